// InstructionText splitting and the Instruction helpers.
#include "instructions/instruction.h"

#include <algorithm>
#include <cctype>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"

#ifdef DMLRT_WITH_CUDA
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {
namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
  return s;
}

}  // namespace

InstructionText InstructionText::parse(const std::string& raw_text, SourceLocation loc) {
  InstructionText t;
  t.raw = raw_text;
  t.loc = std::move(loc);
  std::vector<std::string> parts = split_keep_empty(raw_text, kOperandDelim);
  DMLRT_REQUIRE(parts.size() >= 2 && !parts[1].empty(), ParseError,
                "instruction '" << raw_text << "': expected ExecType°opcode°operands...");
  t.exec_type = parse_exec_type(parts[0]);
  t.opcode = parts[1];
  std::transform(t.opcode.begin(), t.opcode.end(), t.opcode.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  t.fields.assign(parts.begin() + 2, parts.end());
  // A plan line cannot hold a line break, so captures write LF/CR inside string literals as
  // U+240A / U+240D (scripts/dml2plan/README.md); the fields get the real characters back.
  for (std::string& f : t.fields) {
    f = replace_all(f, "\u240A", "\n");
    f = replace_all(f, "\u240D", "\r");
  }
  return t;
}

std::string InstructionText::to_raw() const {
  std::string s = std::string(name_of(exec_type)) + kOperandDelim + opcode;
  for (const auto& f : fields) s += kOperandDelim + f;
  return s;
}

Ran Instruction::run(ExecutionContext& ec) { return run_as(ec, *this); }

void Instruction::execute(ExecutionContext& ec) {
  if (run(ec) != Ran::kParts) return;
  for (const auto& p : *parts()) p->execute(ec);
}

Ran Instruction::run_as(ExecutionContext& ec, const Instruction& named) {
  InstructionPtr built;
  Instruction& t = target(ec, built);
  if (&t != this) return t.run_as(ec, named);
  check(ec);
#ifdef DMLRT_WITH_CUDA
  if (mem::GpuSession* gpu = placement(ec)) {
    // Note [GPU instruction timing] (memory/gpu_session.h): events around the stream's work.
    if (t_graph_watch != nullptr) t_graph_watch->gpu_instruction(*this, ec);
    gpu->begin_instruction();
    run_gpu(ec, *gpu);
    if (gpu->uses_instruction_names()) gpu->end_instruction("gpu_" + named.stats_name());
    return Ran::kGpu;
  }
#else
  (void)named;  // a CPU-only build has no session to place anything on
#endif
  if (parts() != nullptr) return Ran::kParts;
  run_cpu(ec);
  return Ran::kCpu;
}

mem::GpuSession* Instruction::placement(ExecutionContext& ec) {
  mem::GpuSession* gpu = ec.options().gpu.get();
  if (gpu == nullptr || !has_gpu_impl()) return nullptr;
  const int64_t bytes = placement_needs_bytes(ec, *this) ? device_bytes(ec) : -1;
  if (choose_placement(exec_type(), ec.options().gpu_mode, true, true, bytes,
                       gpu_budget_bytes(*gpu)) == Placement::kCpu)
    return nullptr;
  return gpu_applicable(ec) ? gpu : nullptr;
}

bool Instruction::graph_safe_dense(ExecutionContext& ec) const {
  for (const std::string& f : text_.fields) {
    Operand op;
    try {
      op = Operand::parse(f);
    } catch (const Error&) {
      continue;  // not an operand (a name=value field, a flag)
    }
    if (op.literal || !op.is_matrix()) continue;
    const Value* v = ec.find(op.name);
    const auto* mo = v != nullptr ? std::get_if<std::shared_ptr<MatrixObject>>(v) : nullptr;
    if (mo == nullptr || !(*mo)->has_block()) continue;  // an output, not read
    const mem::DeviceMatrix* d = (*mo)->device_copy();
    if (d == nullptr || d->is_sparse()) return false;
  }
  return true;
}

void Instruction::run_gpu(ExecutionContext&, mem::GpuSession&) {
  DMLRT_FAIL(NotSupported, where() << ": " << opcode() << " has no GPU implementation");
}

std::string Instruction::where() const {
  std::string s;
  if (!text_.loc.file.empty() || text_.loc.line > 0) {
    s += text_.loc.file.empty() ? "<plan>" : text_.loc.file;
    if (text_.loc.line > 0) s += ":" + std::to_string(text_.loc.line);
    s += ": ";
  }
  s += "instruction '" + text_.raw + "'";
  return s;
}

const std::string& Instruction::field(size_t i) const {
  DMLRT_REQUIRE(i < text_.fields.size(), ParseError,
                where() << ": missing field " << i + 1 << " (has " << text_.fields.size() << ")");
  return text_.fields[i];
}

Operand Instruction::operand(size_t i) const {
  try {
    return Operand::parse(field(i));
  } catch (const Error& e) {  // a ParseError, or FramesNotSupported (Note [Frames in plans])
    if (std::string(e.what()).rfind(where(), 0) == 0) throw;
    rethrow_with_context(e, where() + ": ");
  }
}

std::map<std::string, std::string> Instruction::named_fields(size_t first, size_t last) const {
  std::map<std::string, std::string> out;
  for (size_t i = first; i < last; ++i) {
    const std::string& f = field(i);
    const size_t eq = f.find('=');
    DMLRT_REQUIRE(eq != std::string::npos && eq > 0, ParseError,
                  where() << ": " << opcode() << ": field '" << f << "' is not name=value");
    out[f.substr(0, eq)] = f.substr(eq + 1);
  }
  return out;
}

void Instruction::expect_fields(size_t min, size_t max) const {
  const size_t n = text_.fields.size();
  if (n >= min && n <= max) return;
  if (min == max)
    DMLRT_FAIL(ParseError, where() << ": " << opcode() << " expects " << min
                                   << " operand fields, got " << n);
  DMLRT_FAIL(ParseError, where() << ": " << opcode() << " expects " << min << " to " << max
                                 << " operand fields, got " << n);
}

std::string shape_of(const kernels::MatrixBlock& b) { return kernels::dims_string(b.rows(), b.cols()); }

}  // namespace dmlrt::inst
