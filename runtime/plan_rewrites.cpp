// Plan rewrites; see plan_rewrites.h. One pass so far: conv2d_bias_add followed by a ReLU written
// as max(A, 0) becomes one conv2d_bias_add_relu (inst::make_conv2d_bias_add_relu), which on the GPU
// applies the ReLU to the convolution's output in place instead of a second cell-wise pass.
#include "runtime/plan_rewrites.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "gpu_context/error.h"
#include "gpu_context/log.h"
#include "instructions/dnn_families.h"
#include "instructions/opcode_table.h"
#include "instructions/operand.h"

namespace dmlrt::runtime {
namespace {

// Note [Fusing conv2d_bias_add and ReLU]
// SystemDS compiles relu::forward(conv2d::forward(...)) and max(bias_add(conv2d(...), b), 0) to
//   createvar A ...; conv2d_bias_add X b W <12 shape scalars> A; createvar B ...;
//   max A 0 B  (or max 0 A B; the zero an INT64 or FP64 literal);  rmvar A
// The pass turns the conv line into conv2d_bias_add_relu (same operands, writes max(A, 0) into A)
// and the max line into `cpvar A B`, so B is bound to A's matrix object without a copy (on the GPU
// the device copy stays where it is), and the later rmvar A leaves B holding the value. It fires
// only where nobody can tell the difference, within one instruction list:
//  * the max is the first instruction after the conv that names A, has the conv's execution type
//    (CP or GPU, so the fused op runs where both would), no ¶ placeholders, and its other operand
//    is the literal +0 (INT64 or FP64; a literal -0.0 would keep -0.0 cells as -0.0);
//  * A is not an input of the conv, and B is not A;
//  * after the max, A is named by nothing but an rmvar that removes it, in the same list: A is
//    dead, so its relu'd value is never observed (a plan with no such rmvar keeps A live out of
//    the block and is left alone);
//  * the last instruction before the max that names B is `createvar B`: B's old object is fresh
//    and unaliased, so binding B to A's object (instead of max writing into B's object) changes
//    nothing another name could see.
// "Names" is a conservative text test (mentions()): any field holding the name as a whole word,
// typed operand, bare name, key=value or ¶name¶ alike. Max(NaN, 0) is NaN and max(-0.0, 0) is
// +0.0 in SystemDS (Java's Math.max); the CPU ReLU of the fused op (relu_of in
// dnn_conv_instructions.cpp) and the cell-wise max (kernels/cpu/binary.cpp) agree on NaN, ±0 and
// ±Inf, which tests/unit/test_plan_rewrites.cpp checks cell for cell.

constexpr size_t kConvInputs = 3;                        // X, bias, W
constexpr size_t kConvOutputField = kConvInputs + 12;    // after the 12 shape scalars
constexpr size_t kConvMinFields = kConvOutputField + 1;  // then the optional k and budget

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// True when a field of `t` holds `name` as a whole word (not as part of a longer identifier).
bool mentions(const inst::InstructionText& t, const std::string& name) {
  for (const std::string& f : t.fields) {
    for (size_t p = f.find(name); p != std::string::npos; p = f.find(name, p + 1)) {
      const size_t end = p + name.size();
      if ((p == 0 || !is_word_char(f[p - 1])) && (end == f.size() || !is_word_char(f[end])))
        return true;
    }
  }
  return false;
}

// The name part of a typed or bare field ("_mVar1·MATRIX·FP64" -> "_mVar1").
std::string name_part(const std::string& field) {
  return field.substr(0, field.find(inst::kTypeDelim));
}

bool has_placeholder(const inst::InstructionText& t) {
  return t.raw.find(inst::kPlaceholder) != std::string::npos;
}

std::optional<inst::Operand> operand_of(const std::string& field) {
  try {
    return inst::Operand::parse(field);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// A literal scalar +0 of value type INT64 or FP64 ("0", "0.0", "0E0"; not "-0.0").
bool is_literal_zero(const inst::Operand& op) {
  if (!op.literal || !op.is_scalar()) return false;
  if (op.value_type != inst::ValueType::kINT64 && op.value_type != inst::ValueType::kFP64)
    return false;
  if (op.name.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(op.name.c_str(), &end);
  return *end == '\0' && v == 0.0 && !std::signbit(v);
}

// For `max A 0 B` / `max 0 A B` with the given execution type: B's name; nullopt otherwise.
std::optional<std::string> relu_output(const inst::InstructionText& t, inst::ExecType exec,
                                       const std::string& a) {
  if (t.opcode != "max" || t.exec_type != exec || has_placeholder(t)) return std::nullopt;
  const size_t n = t.fields.size();
  if (n != 3 && !(n == 4 && inst::is_integer_text(t.fields[3]))) return std::nullopt;
  const auto x = operand_of(t.fields[0]), y = operand_of(t.fields[1]);
  const auto out = operand_of(t.fields[2]);
  if (!x || !y || !out || !out->is_matrix() || out->literal) return std::nullopt;
  auto is_a = [&](const inst::Operand& op) {
    return op.is_matrix() && !op.literal && op.name == a;
  };
  const bool relu = (is_a(*x) && is_literal_zero(*y)) || (is_literal_zero(*x) && is_a(*y));
  if (!relu || out->name == a) return std::nullopt;
  return out->name;
}

bool is_rmvar_of(const inst::InstructionText& t, const std::string& name) {
  if (t.opcode != "rmvar") return false;
  for (const std::string& f : t.fields)
    if (name_part(f) == name) return true;
  return false;
}

bool is_createvar_of(const inst::InstructionText& t, const std::string& name) {
  return t.opcode == "createvar" && !t.fields.empty() && name_part(t.fields[0]) == name;
}

struct ConvReluMatch {
  size_t max_at = 0;
  std::string a, b;
};

// The ReLU that can be folded into the conv2d_bias_add at list[at]; see the Note.
std::optional<ConvReluMatch> match_conv_relu(const InstructionList& list, size_t at) {
  const inst::InstructionText& conv = list[at]->text();
  if (conv.opcode != "conv2d_bias_add" || has_placeholder(conv)) return std::nullopt;
  if (conv.exec_type != inst::ExecType::kCP && conv.exec_type != inst::ExecType::kGPU)
    return std::nullopt;
  if (conv.fields.size() < kConvMinFields) return std::nullopt;
  const auto out = operand_of(conv.fields[kConvOutputField]);
  if (!out || !out->is_matrix() || out->literal || out->name.empty()) return std::nullopt;
  ConvReluMatch m;
  m.a = out->name;
  for (size_t i = 0; i < kConvInputs; ++i)
    if (name_part(conv.fields[i]) == m.a) return std::nullopt;

  // The first instruction naming A must be the max.
  size_t j = at + 1;
  while (j < list.size() && !mentions(list[j]->text(), m.a)) ++j;
  if (j == list.size()) return std::nullopt;
  const std::optional<std::string> b = relu_output(list[j]->text(), conv.exec_type, m.a);
  if (!b) return std::nullopt;
  m.max_at = j;
  m.b = *b;

  // B's old object is the fresh one of a createvar.
  size_t k = j;
  while (k > 0 && !mentions(list[k - 1]->text(), m.b)) --k;
  if (k == 0 || !is_createvar_of(list[k - 1]->text(), m.b)) return std::nullopt;

  // A is dead after the max: removed before anything else names it.
  for (size_t r = j + 1; r < list.size(); ++r) {
    const inst::InstructionText& t = list[r]->text();
    if (is_rmvar_of(t, m.a)) return m;
    if (mentions(t, m.a)) return std::nullopt;
  }
  return std::nullopt;  // live out of the list
}

// conv2d_bias_add with the ReLU applied to its output (inst::make_conv2d_bias_add_relu), reported
// as conv2d_bias_add_relu in -explain and -stats. Errors name the conv line as written.
class ConvBiasAddRelu final : public inst::Instruction {
 public:
  // `conv`: a conv2d_bias_add line.
  explicit ConvBiasAddRelu(inst::InstructionText conv)
      : inst::Instruction(fused_text(conv)),
        conv_(inst::make_conv2d_bias_add_relu(std::move(conv))) {}

  void execute(inst::ExecutionContext& ec) override { conv_->execute(ec); }
  std::string stats_name() const override { return kConvBiasAddReluOpcode; }
  bool has_gpu_impl() const override { return conv_->has_gpu_impl(); }

 private:
  static inst::InstructionText fused_text(const inst::InstructionText& conv) {
    inst::InstructionText t = conv;
    t.opcode = kConvBiasAddReluOpcode;
    t.raw = t.to_raw();
    return t;
  }

  inst::InstructionPtr conv_;
};

inst::InstructionPtr make_cpvar(const std::string& src, const std::string& dst,
                                const inst::SourceLocation& loc) {
  inst::InstructionText t;
  t.exec_type = inst::ExecType::kCP;
  t.opcode = "cpvar";
  t.fields = {src, dst};
  t.raw = t.to_raw();
  t.loc = loc;
  return inst::make_instruction(std::move(t));
}

void rewrite_blocks(std::vector<BlockPtr>& blocks, const RuntimeConfig& config,
                    RewriteReport& report) {
  for (BlockPtr& b : blocks) {
    if (b->kind == BlockKind::kGeneric && config.rewrite_fuse_conv_relu)
      report.conv_relu_fused += fuse_conv_bias_add_relu(b->instructions);
    rewrite_blocks(b->body, config, report);
    rewrite_blocks(b->else_body, config, report);
  }
}

}  // namespace

int fuse_conv_bias_add_relu(InstructionList& list) {
  int fused = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::optional<ConvReluMatch> m = match_conv_relu(list, i);
    if (!m) continue;
    const inst::SourceLocation max_loc = list[m->max_at]->text().loc;
    // Build both before replacing either, so a failure leaves the list as it was.
    inst::InstructionPtr conv = std::make_unique<ConvBiasAddRelu>(list[i]->text());
    inst::InstructionPtr alias = make_cpvar(m->a, m->b, max_loc);
    list[i] = std::move(conv);
    list[m->max_at] = std::move(alias);
    ++fused;
  }
  return fused;
}

RewriteReport apply_plan_rewrites(Program& program, const RuntimeConfig& config) {
  RewriteReport report;
  for (auto& kv : program.functions) rewrite_blocks(kv.second.body, config, report);
  rewrite_blocks(program.main, config, report);
  if (report.conv_relu_fused > 0)
    DMLRT_DEBUG("plan rewrites: " << report.conv_relu_fused
                                  << " conv2d_bias_add + relu pair(s) fused into "
                                  << kConvBiasAddReluOpcode);
  return report;
}

inst::InstructionPtr make_fused_instruction(const inst::InstructionText& text) {
  if (text.opcode != kConvBiasAddReluOpcode) return nullptr;
  // SPARK, FED and OOC lines are left to make_instruction, which rejects them with its message.
  if (text.exec_type != inst::ExecType::kCP && text.exec_type != inst::ExecType::kCPFile &&
      text.exec_type != inst::ExecType::kGPU)
    return nullptr;
  DMLRT_REQUIRE(!has_placeholder(text), ParseError,
                "instruction '" << text.raw << "': " << kConvBiasAddReluOpcode
                                << " cannot take ¶name¶ placeholders");
  inst::InstructionText conv = text;
  conv.opcode = "conv2d_bias_add";
  auto fused = std::make_unique<ConvBiasAddRelu>(std::move(conv));
  return fused;
}

}  // namespace dmlrt::runtime
