// Plan rewrites; see plan_rewrites.h. Two passes: conv2d_bias_add followed by a ReLU written as
// max(A, 0) becomes one conv2d_bias_add_relu (inst::make_conv2d_bias_add_relu), which on the GPU
// applies the ReLU to the convolution's output in place instead of a second cell-wise pass; and
// chains of cell-wise lines become one fused instruction each (instructions/fused_cellwise.h),
// one GPU kernel instead of one per line.
#include "runtime/plan_rewrites.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <unordered_map>

#include "gpu_context/error.h"
#include "gpu_context/log.h"
#include "gpu_context/string_util.h"
#include "instructions/dnn_conv_instructions.h"
#include "instructions/fused_cellwise.h"
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

// True when field `f` holds `name` as a whole word (not as part of a longer identifier).
bool field_mentions(const std::string& f, const std::string& name) {
  for (size_t p = f.find(name); p != std::string::npos; p = f.find(name, p + 1)) {
    const size_t end = p + name.size();
    if ((p == 0 || !is_word_char(f[p - 1])) && (end == f.size() || !is_word_char(f[end])))
      return true;
  }
  return false;
}

// True when a field of `t` holds `name` as a whole word.
bool mentions(const inst::InstructionText& t, const std::string& name) {
  for (const std::string& f : t.fields)
    if (field_mentions(f, name)) return true;
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

  void check(inst::Shapes& shapes) const override { conv_->check(shapes); }
  std::string stats_name() const override { return kConvBiasAddReluOpcode; }
  bool has_gpu_impl() const override { return conv_->has_gpu_impl(); }

 private:
  // The convolution runs through the whole life cycle in this one's place, under this one's
  // -stats name (Note [Instruction life cycle]).
  Instruction& target(inst::ExecutionContext&, inst::InstructionPtr&) override { return *conv_; }
  void run_cpu(inst::ExecutionContext&) override {
    DMLRT_FAIL(RuntimeError, where() << ": internal error: the wrapper ran instead of its conv");
  }

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

// Note [Fusing cell-wise chains]
// A tiny GPU instruction costs the kernel launch (~4.5 us on the H200 hosts, ~85 % of a 1x1 op),
// and SystemDS compiles expressions such as the SGD-Nesterov update
//   createvar T1; +* dW 5.0E-4 W T1; rmvar dW; createvar T2; -* V 0.01 T1 T2; rmvar T1;
//   createvar T3; +* P 1.9 T2 T3
// into one line per operator. The pass finds such chains in a GENERIC block and replaces each by
// one instruction (inst::make_fused_cellwise) whose GPU path evaluates every step per cell in
// registers (kernels/cuda/fused_cellwise.h): one launch, each input read once, only the values
// someone can observe written. A chain is a window of lines:
//  * the steps: cell-wise lines with a matrix output and a device kernel (inst::cell_op_of), of
//    one execution type (CP or GPU), each after the first reading a value an earlier step wrote
//    (a connected chain: unrelated lines keep their own kernels and shapes);
//  * between them only createvar and rmvar lines, which move: on the fused path every createvar
//    runs before the kernel and every rmvar after it. That is the plan's meaning as long as a
//    createvar'd name is named by no earlier line of the window, no step reads it before a step
//    wrote it, and an rmvar'd name is named by no later line of the window; a line that would
//    break this ends the window;
//  * at most kFusedCellMaxSteps steps, kFusedCellMaxInputs matrix inputs, kFusedCellMaxScalars
//    scalar operands and kFusedCellMaxOutputs outputs (fields of the kernel's parameter block).
// A step reads a variable written by an earlier step from that step's register (the last write
// before it), any other matrix as an input of the chain. Of each variable the steps write, the last
// value is written to memory (bound to the variable) unless it is dead: removed by an rmvar of the
// window, or the first line after the window that names it is an rmvar of it. Earlier values of
// a variable written twice are seen by no line, and dead ones only by their rmvar. (A step writes
// into the matrix object bound to its output; where another name shares that object, the chain
// runs its lines instead: FusedCellPlan::written is checked at run time.)
// At run time the chain falls back to its original lines, run one by one exactly as written, when
// it does not fit the kernel (instructions/fused_cellwise.h lists when), so results, errors and
// messages are those of the plan; on the fused path the values are the separate kernels' bits
// (Note [Fused cell-wise programs]). -explain prints the original lines; -stats counts the chain
// as gpu_fused(op,op,...) or, when it fell back, line by line.

// The variable names an rmvar removes.
std::vector<std::string> rmvar_names(const inst::InstructionText& t) {
  std::vector<std::string> names;
  for (const std::string& f : t.fields) names.push_back(name_part(f));
  return names;
}

// The chain being grown from one start line; copied per line so that a rejected line changes
// nothing.
struct ChainState {
  inst::FusedCellPlan plan;
  std::unordered_map<std::string, int> reg;     // variable -> step holding its latest value
  std::unordered_map<std::string, int> input;   // variable -> input number
  std::set<std::string> mentioned, created, removed;
  size_t last_step = 0;                          // list index of the last step
};

// Adds step line `t` (cell op `c`) to `st`; false when the line cannot join the chain.
bool add_step(ChainState& st, const inst::CellOpText& c, bool first) {
  const std::vector<inst::Operand>& in = c.inputs;
  bool connected = false;
  for (const inst::Operand& o : in) {
    if (st.removed.count(o.name) != 0 && !o.literal) return false;
    if (o.is_matrix() && st.reg.count(o.name) != 0) connected = true;
  }
  if (!first && !connected) return false;
  if (st.removed.count(c.output.name) != 0) return false;
  if (static_cast<int>(st.plan.steps.size()) >= inst::kFusedCellMaxSteps) return false;
  // Operands a step reads as full (chain-shaped) matrices; a binary step's right matrix may be
  // broadcast as a vector when its left operand is a matrix.
  auto full_only = [&](size_t k) {
    if (c.kind != inst::CellOpKind::kBinary) return true;
    return k == 0 || !in[0].is_matrix();
  };
  inst::FusedCellStep step;
  step.kind = c.kind;
  step.op = c.op;
  for (size_t k = 0; k < in.size(); ++k) {
    const inst::Operand& o = in[k];
    inst::FusedCellArg a;
    if (o.is_scalar()) {
      if (static_cast<int>(st.plan.scalars.size()) >= inst::kFusedCellMaxScalars) return false;
      a.kind = inst::FusedCellArg::Kind::kScalar;
      a.index = static_cast<int>(st.plan.scalars.size());
      st.plan.scalars.push_back(o);
      if (!o.literal) st.mentioned.insert(o.name);
    } else if (auto r = st.reg.find(o.name); r != st.reg.end()) {
      a.kind = inst::FusedCellArg::Kind::kStep;
      a.index = r->second;
    } else {
      if (st.created.count(o.name) != 0) return false;  // a fresh createvar read before written
      auto it = st.input.find(o.name);
      if (it == st.input.end()) {
        if (static_cast<int>(st.plan.inputs.size()) >= inst::kFusedCellMaxInputs) return false;
        it = st.input.emplace(o.name, static_cast<int>(st.plan.inputs.size())).first;
        st.plan.inputs.push_back(o.name);
        st.plan.input_full.push_back(false);
        st.mentioned.insert(o.name);
      }
      a.kind = inst::FusedCellArg::Kind::kInput;
      a.index = it->second;
      if (full_only(k)) st.plan.input_full[static_cast<size_t>(it->second)] = true;
    }
    step.args.push_back(a);
  }
  if (st.reg.count(c.output.name) == 0) st.plan.written.push_back(c.output.name);
  st.reg[c.output.name] = static_cast<int>(st.plan.steps.size());
  st.mentioned.insert(c.output.name);
  st.plan.steps.push_back(std::move(step));
  return true;
}

// Grows the chain that starts with the step at list[start]; the window is [start, last_step].
ChainState grow_chain(const InstructionList& list, size_t start, const inst::CellOpText& first) {
  ChainState st;
  const inst::ExecType exec = list[start]->exec_type();
  add_step(st, first, /*first=*/true);
  st.last_step = start;
  for (size_t j = start + 1; j < list.size(); ++j) {
    const inst::InstructionText& t = list[j]->text();
    ChainState next = st;
    if (t.opcode == "createvar" && !t.fields.empty()) {
      const std::string x = name_part(t.fields[0]);
      if (next.mentioned.count(x) != 0) break;
      next.mentioned.insert(x);
      next.created.insert(x);
    } else if (t.opcode == "rmvar") {
      for (const std::string& x : rmvar_names(t)) {
        next.mentioned.insert(x);
        next.removed.insert(x);
      }
    } else {
      const std::optional<inst::CellOpText> c = inst::cell_op_of(t);
      if (!c || t.exec_type != exec || !add_step(next, *c, /*first=*/false)) break;
      next.last_step = j;
    }
    st = std::move(next);
  }
  return st;
}

// The (step, variable) outputs of a chain over window [start, end]: the last value of each
// variable the steps write, unless dead (see the Note).
std::vector<std::pair<int, std::string>> chain_outputs(const InstructionList& list, size_t start,
                                                       size_t end, const ChainState& st) {
  std::set<std::string> removed;  // by the window's own rmvar lines
  for (size_t j = start; j <= end; ++j)
    if (list[j]->text().opcode == "rmvar")
      for (const std::string& x : rmvar_names(list[j]->text())) removed.insert(x);
  std::vector<std::pair<int, std::string>> outs;
  for (const auto& [name, step] : st.reg) {
    bool dead = removed.count(name) != 0;
    for (size_t k = end + 1; !dead && k < list.size(); ++k) {
      const inst::InstructionText& t = list[k]->text();
      if (!mentions(t, name)) continue;
      dead = is_rmvar_of(t, name);
      break;
    }
    if (!dead) outs.emplace_back(step, name);
  }
  std::sort(outs.begin(), outs.end());
  return outs;
}

// Note [Folding transposes into ba+*]
// SystemDS's static plans for data-dependent blocks (recompile=true) keep `r' X T` followed by
// `ba+* T B C` where its run-time recompilation would multiply t(X) directly: multiLogReg's inner
// loop transposes its whole X 42 times (about 1 s of 2 s on the 2-core machine). This pass rewrites
//   r' X T; ...; ba+* T B C [k]; ...; rmvar T    into    ...; ba+* X B C k true false; ...
// (T on the right sets the right flag; a ba+* that already has flags flips the one of T's side),
// and drops the r' line, when, in one instruction list:
//  * the r' and the ba+* have one execution type (CP or GPU), no ¶ placeholders, and the ba+* is
//    the first line after the r' that names T, naming it as exactly one of its two inputs;
//  * T is dead after the ba+*: the next line that names T is an rmvar that removes it;
//  * no line between the r' and the ba+* writes X: a line there may name X only as an input of
//    an opcode whose output position is known (ba+*, tsmm, r', the cell-wise binary ops and the
//    unary aggregates), so X still holds the value the r' would have read;
//  * X is not T and not the ba+*'s output.
// The createvar of T stays: T is created, never written, and removed, which nothing can observe.
// ba+* multiplies a transposed operand without materialising it on both backends (OpenBLAS's
// transpose flags, a CSR operand transposed in O(nnz); cuBLAS / cuSPARSE operations on the GPU).

// The field positions at which `t` reads its inputs, for the opcodes whose layout is fixed
// (inputs first, one output after them); nullopt for any other opcode.
std::optional<std::vector<size_t>> input_positions(const inst::InstructionText& t) {
  const inst::OpcodeEntry* e = inst::find_opcode(t.opcode);
  if (e == nullptr) return std::nullopt;
  const std::string family = e->family;
  if (t.opcode == "ba+*" || family == "binary") return std::vector<size_t>{0, 1};
  if (t.opcode == "tsmm" || t.opcode == "r'") return std::vector<size_t>{0};
  if (family == "aggregate" && t.opcode != "uaggouterchain") return std::vector<size_t>{0};
  return std::nullopt;
}

// True when `t` may write `name`: it names it anywhere but at a known input position.
bool may_write(const inst::InstructionText& t, const std::string& name) {
  if (!mentions(t, name)) return false;
  const auto inputs = input_positions(t);
  if (!inputs) return true;
  for (size_t f = 0; f < t.fields.size(); ++f) {
    if (name_part(t.fields[f]) != name && field_mentions(t.fields[f], name))
      return true;  // inside a compound field: unknown
    if (name_part(t.fields[f]) == name &&
        std::find(inputs->begin(), inputs->end(), f) == inputs->end())
      return true;
  }
  return false;
}

struct TransposeFold {
  size_t mm_at = 0;
  bool right = false;  // T is the ba+*'s right input
  std::string x;
};

std::optional<TransposeFold> match_transpose_fold(const InstructionList& list, size_t at) {
  const inst::InstructionText& r = list[at]->text();
  if (r.opcode != "r'" || has_placeholder(r) || r.fields.size() < 2) return std::nullopt;
  const auto x = operand_of(r.fields[0]), t = operand_of(r.fields[1]);
  if (!x || !t || !x->is_matrix() || !t->is_matrix() || x->literal || x->name == t->name)
    return std::nullopt;
  for (size_t j = at + 1; j < list.size(); ++j) {
    const inst::InstructionText& m = list[j]->text();
    if (!mentions(m, t->name)) {
      if (may_write(m, x->name)) return std::nullopt;
      continue;
    }
    // The first line after the r' that names T.
    if (m.opcode != "ba+*" || m.exec_type != r.exec_type || has_placeholder(m) ||
        m.fields.size() < 3)
      return std::nullopt;
    const bool left = name_part(m.fields[0]) == t->name, right = name_part(m.fields[1]) == t->name;
    if (left == right || name_part(m.fields[2]) == x->name) return std::nullopt;
    for (size_t f = 2; f < m.fields.size(); ++f)
      if (field_mentions(m.fields[f], t->name)) return std::nullopt;
    for (size_t k = j + 1; k < list.size(); ++k) {
      const inst::InstructionText& after = list[k]->text();
      if (!mentions(after, t->name)) continue;
      if (!is_rmvar_of(after, t->name)) return std::nullopt;
      return TransposeFold{j, right, x->name};
    }
    return std::nullopt;  // T lives on after the list
  }
  return std::nullopt;
}

void rewrite_blocks(std::vector<BlockPtr>& blocks, const RuntimeConfig& config,
                    RewriteReport& report) {
  for (BlockPtr& b : blocks) {
    if (b->kind == BlockKind::kGeneric && config.rewrite_fold_transpose)
      report.transposes_folded += fold_transposes_into_matmult(b->instructions);
    if (b->kind == BlockKind::kGeneric && config.rewrite_fuse_conv_relu)
      report.conv_relu_fused += fuse_conv_bias_add_relu(b->instructions);
    if (b->kind == BlockKind::kGeneric && config.rewrite_fuse_cellwise)
      report.cellwise_chains += fuse_cellwise_chains(b->instructions, &report.cellwise_steps);
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

int fold_transposes_into_matmult(InstructionList& list) {
  int folded = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::optional<TransposeFold> f = match_transpose_fold(list, i);
    if (!f) continue;
    inst::InstructionText mm = list[f->mm_at]->text();
    const std::string x_field = list[i]->text().fields[0];
    mm.fields[f->right ? 1 : 0] = x_field;
    if (mm.fields.size() < 4) mm.fields.push_back("1");
    if (mm.fields.size() < 6) mm.fields.resize(6, "false");  // A°B°out°k°leftT°rightT
    std::string& flag = mm.fields[f->right ? 5 : 4];
    flag = to_lower(flag) == "true" ? "false" : "true";
    mm.raw = mm.to_raw();
    // Build before replacing, so a failure leaves the list as it was.
    inst::InstructionPtr rewritten = inst::make_instruction(std::move(mm));
    list[f->mm_at] = std::move(rewritten);
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
    --i;
    ++folded;
  }
  return folded;
}

int fuse_cellwise_chains(InstructionList& list, int* steps) {
  int fused = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::optional<inst::CellOpText> first = inst::cell_op_of(list[i]->text());
    if (!first) continue;
    ChainState st = grow_chain(list, i, *first);
    if (st.plan.steps.size() < 2) continue;
    const size_t end = st.last_step;
    st.plan.outputs = chain_outputs(list, i, end, st);
    if (st.plan.outputs.empty() ||
        static_cast<int>(st.plan.outputs.size()) > inst::kFusedCellMaxOutputs)
      continue;
    std::vector<inst::InstructionPtr> parts;
    std::vector<bool> is_step;
    for (size_t j = i; j <= end; ++j) {
      const std::string& op = list[j]->opcode();
      is_step.push_back(op != "createvar" && op != "rmvar");
      parts.push_back(std::move(list[j]));
    }
    const int n_steps = static_cast<int>(st.plan.steps.size());
    list[i] = inst::make_fused_cellwise(std::move(st.plan), std::move(parts), std::move(is_step));
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(i) + 1,
               list.begin() + static_cast<std::ptrdiff_t>(end) + 1);
    ++fused;
    if (steps != nullptr) *steps += n_steps;
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
  if (report.transposes_folded > 0)
    DMLRT_DEBUG("plan rewrites: " << report.transposes_folded << " r' folded into ba+*");
  if (report.cellwise_chains > 0)
    DMLRT_DEBUG("plan rewrites: " << report.cellwise_steps << " cell-wise lines fused into "
                                  << report.cellwise_chains << " chain(s)");
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
