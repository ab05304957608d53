// Fused cell-wise chains; see fused_cellwise.h and Note [Fusing cell-wise chains] in
// runtime/plan_rewrites.cpp (which builds them).
#include <algorithm>
#include <string>
#include <variant>

#include "gpu_context/error.h"
#include "instructions/fused_cellwise.h"
#include "instructions/gpu_placement.h"
#include "instructions/matrix_object.h"
#include "kernels/cpu/binary.h"
#include "kernels/cpu/ternary.h"
#include "kernels/cpu/unary.h"

namespace dmlrt::inst {

namespace cpu = kernels::cpu;

namespace {

std::optional<Operand> operand_at(const InstructionText& t, size_t i) {
  if (i >= t.fields.size()) return std::nullopt;
  try {
    return Operand::parse(t.fields[i]);
  } catch (const Error&) {
    return std::nullopt;
  }
}

bool usable(const std::optional<Operand>& o) {
  return o && (o->is_matrix() || o->is_scalar()) && !(o->is_matrix() && o->literal);
}

}  // namespace

// The operand layouts are those of BinaryInstruction, UnaryInstruction and TernaryInstruction
// (binary_instructions.cpp, unary_instructions.cpp, ternary_instructions.cpp); a line those would
// reject is not a cell op here, so its own instruction raises its error as before.
std::optional<CellOpText> cell_op_of(const InstructionText& t) {
  if (t.exec_type != ExecType::kCP && t.exec_type != ExecType::kGPU) return std::nullopt;
  if (t.raw.find(kPlaceholder) != std::string::npos) return std::nullopt;
  CellOpText c;
  size_t n_in = 0, out_at = 0, min_fields = 0, max_fields = 0;
  cpu::BinaryOp bop{};
  cpu::UnaryOp uop{};
  if (t.opcode == "+*" || t.opcode == "-*" || t.opcode == "ifelse") {
    c.kind = CellOpKind::kTernary;
    c.op = static_cast<int>(t.opcode == "+*"   ? cpu::TernaryOp::kPlusMult
                            : t.opcode == "-*" ? cpu::TernaryOp::kMinusMult
                                               : cpu::TernaryOp::kIfElse);
    n_in = 3, out_at = 3, min_fields = 4, max_fields = 5;
  } else if (cpu::binary_op_from_opcode(t.opcode, &bop)) {
    if (!cpu::binary_op_fusable(bop)) return std::nullopt;  // not in the fused step switch
    c.kind = CellOpKind::kBinary;
    c.op = static_cast<int>(bop);
    n_in = 2, out_at = 2, min_fields = 3, max_fields = 5;
  } else if (cpu::unary_op_from_opcode(t.opcode, &uop)) {
    // log with a base (a non-integer third field) is another instruction (UnaryInstruction::make).
    if (t.opcode == "log" && t.fields.size() >= 3 && !is_integer_text(t.fields[2]))
      return std::nullopt;
    c.kind = CellOpKind::kUnary;
    c.op = static_cast<int>(uop);
    // ^2 and *2 may carry their constant as a literal second field (UnaryInstruction).
    size_t skip = 0;
    if ((t.opcode == "^2" || t.opcode == "*2") && t.fields.size() >= 3) {
      const auto second = operand_at(t, 1), third = operand_at(t, 2);
      if (second && second->is_scalar() && second->literal && third && !third->literal) skip = 1;
    }
    n_in = 1, out_at = 1 + skip, min_fields = 2 + skip, max_fields = 4 + skip;
    if (t.fields.size() >= 3 + skip && !is_integer_text(t.fields[2 + skip])) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (t.fields.size() < min_fields || t.fields.size() > max_fields) return std::nullopt;
  bool any_matrix = false;
  for (size_t i = 0; i < n_in; ++i) {
    const auto o = operand_at(t, i);
    if (!usable(o)) return std::nullopt;
    any_matrix = any_matrix || o->is_matrix();
    c.inputs.push_back(*o);
  }
  const auto out = operand_at(t, out_at);
  if (!usable(out) || !out->is_matrix() || !any_matrix || out->name.empty()) return std::nullopt;
  if (c.kind == CellOpKind::kUnary && !c.inputs[0].is_matrix()) return std::nullopt;
  c.output = *out;
  return c;
}

std::string fused_cellwise_name(const std::vector<std::string>& opcodes) {
  std::string s = "fused(";
  for (size_t i = 0; i < opcodes.size(); ++i) s += (i > 0 ? "," : "") + opcodes[i];
  return s + ")";
}

namespace {

// The matrix object bound to `name`, or null (unbound, or a scalar).
MatrixObject* bound_matrix(const ExecutionContext& ec, const std::string& name) {
  const Value* v = ec.find(name);
  const auto* mo = v != nullptr ? std::get_if<std::shared_ptr<MatrixObject>>(v) : nullptr;
  return mo != nullptr ? mo->get() : nullptr;
}

}  // namespace

FusedCellwiseInstruction::FusedCellwiseInstruction(InstructionText text, FusedCellPlan plan,
                                                   std::vector<InstructionPtr> parts,
                                                   std::vector<bool> is_step, std::string name)
    : Instruction(std::move(text)),
      plan_(std::move(plan)),
      parts_(std::move(parts)),
      is_step_(std::move(is_step)),
      name_(std::move(name)) {}

int64_t FusedCellwiseInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixObject* first = bound_matrix(ec, plan_.inputs[0]);
  if (first == nullptr) return -1;  // gpu_applicable says no as well
  const int64_t full =
      dense_device_bytes(ec.options().gpu.get(), first->meta().rows, first->meta().cols);
  return full < 0 ? -1 : 4 * full;
}

bool FusedCellwiseInstruction::gpu_applicable(ExecutionContext& ec) {
  Analysis a;
  return analyze(ec, &a);
}

bool FusedCellwiseInstruction::analyze(ExecutionContext& ec, Analysis* a) const {
  // Inputs: bound, read, with the shapes the kernel handles.
  const size_t n_in = plan_.inputs.size();
  std::vector<MatrixObject*> in(n_in);
  for (size_t k = 0; k < n_in; ++k) {
    in[k] = bound_matrix(ec, plan_.inputs[k]);
    if (in[k] == nullptr || !in[k]->has_block()) return false;
  }
  a->rows = in[0]->meta().rows;
  a->cols = in[0]->meta().cols;
  if (a->rows <= 0 || a->cols <= 0) return false;
  a->input_shape.assign(n_in, cpu::Broadcast::kNone);
  for (size_t k = 0; k < n_in; ++k) {
    const int64_t r = in[k]->meta().rows, c = in[k]->meta().cols;
    if (r == a->rows && c == a->cols) continue;
    const cpu::Broadcast bc = cpu::binary_broadcast(a->rows, a->cols, r, c);
    if (plan_.input_full[k] ||
        (bc != cpu::Broadcast::kColVector && bc != cpu::Broadcast::kRowVector))
      return false;
    a->input_shape[k] = bc;
  }
  // Scalars, as the steps' own instructions convert them.
  a->scalars.assign(plan_.scalars.size(), 0.0);
  for (size_t k = 0; k < a->scalars.size(); ++k) {
    const Operand& op = plan_.scalars[k];
    if (!op.literal) {
      const Value* v = ec.find(op.name);
      if (v == nullptr || !std::holds_alternative<ScalarValue>(*v)) return false;
    }
    try {
      a->scalars[k] = ec.scalar(op).to_double();
    } catch (const Error&) {
      return false;
    }
  }
  // A step writes into the object bound to its output (set_gpu_output), so where another name
  // shares that object (cpvar, a function's argument) the plain lines change that name too,
  // and a later step would read the new value where the chain reads its input: run the lines.
  for (const std::string& name : plan_.written) {
    const Value* v = ec.find(name);
    const auto* mo = v != nullptr ? std::get_if<std::shared_ptr<MatrixObject>>(v) : nullptr;
    if (mo != nullptr && mo->use_count() > 1) return false;
  }
  return true;
}

void FusedCellwiseInstruction::run_cpu(ExecutionContext&) {
  DMLRT_FAIL(RuntimeError, where() << ": internal error: a fused chain runs on the CPU as its "
                                      "parts (Ran::kParts), never through run_cpu");
}

void FusedCellwiseInstruction::run_bookkeeping(ExecutionContext& ec, bool before) {
  for (size_t i = 0; i < parts_.size(); ++i) {
    if (is_step_[i]) continue;
    if ((parts_[i]->opcode() == "createvar") == before) parts_[i]->execute(ec);
  }
}

const FusedCellPlan* fused_cellwise_plan(const Instruction& i) {
  const auto* f = dynamic_cast<const FusedCellwiseInstruction*>(&i);
  return f != nullptr ? &f->plan() : nullptr;
}

InstructionPtr make_fused_cellwise(FusedCellPlan plan, std::vector<InstructionPtr> parts,
                                   std::vector<bool> is_step) {
  DMLRT_REQUIRE(!parts.empty() && parts.size() == is_step.size(), RuntimeError,
                "fused cell-wise chain: " << parts.size() << " lines, " << is_step.size()
                                          << " step flags");
  std::vector<std::string> opcodes, raws;
  const Instruction* first = nullptr;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!is_step[i]) continue;
    if (first == nullptr) first = parts[i].get();
    opcodes.push_back(parts[i]->opcode());
    raws.push_back(parts[i]->text().raw);
  }
  DMLRT_REQUIRE(first != nullptr, RuntimeError, "fused cell-wise chain without steps");
  DMLRT_REQUIRE(plan.steps.size() == opcodes.size() && !plan.steps.empty() &&
                    static_cast<int>(plan.steps.size()) <= kFusedCellMaxSteps &&
                    static_cast<int>(plan.inputs.size()) <= kFusedCellMaxInputs &&
                    plan.input_full.size() == plan.inputs.size() && !plan.inputs.empty() &&
                    static_cast<int>(plan.scalars.size()) <= kFusedCellMaxScalars &&
                    !plan.outputs.empty() &&
                    static_cast<int>(plan.outputs.size()) <= kFusedCellMaxOutputs,
                RuntimeError,
                "fused cell-wise chain of " << opcodes.size() << " lines outside the limits: "
                                            << plan.steps.size() << " steps, "
                                            << plan.inputs.size() << " inputs, "
                                            << plan.scalars.size() << " scalars, "
                                            << plan.outputs.size() << " outputs");
  // Errors of the fused kernel itself (out of memory) name the chain's lines.
  InstructionText text = first->text();
  text.opcode = fused_cellwise_name(opcodes);
  text.fields.clear();
  text.raw.clear();
  for (size_t i = 0; i < raws.size(); ++i) text.raw += (i > 0 ? " ; " : "") + raws[i];
  return std::make_unique<FusedCellwiseInstruction>(std::move(text), std::move(plan),
                                                    std::move(parts), std::move(is_step),
                                                    fused_cellwise_name(opcodes));
}

}  // namespace dmlrt::inst
