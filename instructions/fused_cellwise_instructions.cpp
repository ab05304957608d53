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

#ifdef DMLRT_WITH_CUDA
#include "kernels/cuda/fused_cellwise.h"
#include "memory/gpu_session.h"
#endif

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
    if (bop == cpu::BinaryOp::kXor) return std::nullopt;  // no device kernel
    c.kind = CellOpKind::kBinary;
    c.op = static_cast<int>(bop);
    n_in = 2, out_at = 2, min_fields = 3, max_fields = 5;
  } else if (cpu::unary_op_from_opcode(t.opcode, &uop)) {
    if (uop == cpu::UnaryOp::kIsNan) return std::nullopt;  // no device kernel
    // log with a base (a non-integer third field) is another instruction (make_unary).
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

class FusedCellwiseInstruction final : public Instruction {
 public:
  FusedCellwiseInstruction(InstructionText text, FusedCellPlan plan,
                           std::vector<InstructionPtr> parts, std::vector<bool> is_step,
                           std::string name)
      : Instruction(std::move(text)),
        plan_(std::move(plan)),
        parts_(std::move(parts)),
        is_step_(std::move(is_step)),
        name_(std::move(name)) {}

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu && execute_fused(ec)) return;
#endif
    ec.services().run_parts(parts_, ec);
  }
  std::string stats_name() const override { return name_; }
  bool has_gpu_impl() const override { return true; }
  const std::vector<InstructionPtr>* parts() const override { return &parts_; }
  const FusedCellPlan& plan() const { return plan_; }

 private:
#ifdef DMLRT_WITH_CUDA
  // The chain as one kernel; false (having changed nothing) when it does not fit.
  bool execute_fused(ExecutionContext& ec) {
    // Inputs: bound, read, with the shapes the kernel handles.
    const size_t n_in = plan_.inputs.size();
    std::vector<MatrixObject*> in(n_in);
    for (size_t k = 0; k < n_in; ++k) {
      const Value* v = ec.find(plan_.inputs[k]);
      const auto* mo = v != nullptr ? std::get_if<std::shared_ptr<MatrixObject>>(v) : nullptr;
      if (mo == nullptr || !(*mo)->has_block()) return false;
      in[k] = mo->get();
    }
    const int64_t rows = in[0]->meta().rows, cols = in[0]->meta().cols;
    if (rows <= 0 || cols <= 0) return false;
    std::vector<kernels::cuda::FusedInputShape> shape(n_in);
    for (size_t k = 0; k < n_in; ++k) {
      const int64_t r = in[k]->meta().rows, c = in[k]->meta().cols;
      if (r == rows && c == cols)
        shape[k] = kernels::cuda::FusedInputShape::kFull;
      else if (plan_.input_full[k])
        return false;
      else if (cpu::binary_broadcast(rows, cols, r, c) == cpu::Broadcast::kColVector)
        shape[k] = kernels::cuda::FusedInputShape::kColVector;
      else if (cpu::binary_broadcast(rows, cols, r, c) == cpu::Broadcast::kRowVector)
        shape[k] = kernels::cuda::FusedInputShape::kRowVector;
      else
        return false;
    }
    // Scalars, as the steps' own instructions convert them.
    std::vector<double> scalars(plan_.scalars.size());
    for (size_t k = 0; k < scalars.size(); ++k) {
      const Operand& op = plan_.scalars[k];
      if (!op.literal) {
        const Value* v = ec.find(op.name);
        if (v == nullptr || !std::holds_alternative<ScalarValue>(*v)) return false;
      }
      try {
        scalars[k] = ec.scalar(op).to_double();
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
    // Placement: every step would have run on the GPU (its inputs and output, full size, within
    // the budget under -gpu).
    int64_t bytes = -1;
    if (placement_needs_bytes(ec, *this)) {
      const int64_t full = dense_device_bytes(ec.options().gpu.get(), rows, cols);
      bytes = full < 0 ? -1 : 4 * full;
    }
    mem::GpuSession* gpu = ec.gpu_for(*this, bytes);
    if (gpu == nullptr) return false;
    run_bookkeeping(ec, /*before=*/true);
    std::vector<DeviceRead> reads(n_in);
    std::vector<const mem::DeviceMatrix*> dense(n_in);
    for (size_t k = 0; k < n_in; ++k) {
      Operand op;
      op.name = plan_.inputs[k];
      op.data_type = DataType::kMatrix;
      reads[k] = gpu_read(ec, *gpu, op);
      dense[k] = &reads[k].dense(*gpu);
    }
    std::vector<mem::DeviceMatrix> outs;
    outs.reserve(plan_.outputs.size());
    for (size_t o = 0; o < plan_.outputs.size(); ++o)
      outs.push_back(mem::DeviceMatrix::dense(gpu->memory(), rows, cols, gpu->dtype(),
                                              gpu->stream(),
                                              mem::AllocLabel("gpu_", name_, " output")));
    with_dtype(gpu->dtype(), [&](auto tag) {
      launch<decltype(tag)>(*gpu, dense, shape, scalars, outs, rows, cols);
    });
    reads.clear();  // unpinned before outputs may replace the inputs' objects
    for (size_t o = 0; o < outs.size(); ++o)
      set_gpu_output(ec, *gpu, plan_.outputs[o].second, std::move(outs[o]));
    run_bookkeeping(ec, /*before=*/false);
    return true;
  }

  template <typename T>
  void launch(mem::GpuSession& gpu, const std::vector<const mem::DeviceMatrix*>& dense,
              const std::vector<kernels::cuda::FusedInputShape>& shape,
              const std::vector<double>& scalars, std::vector<mem::DeviceMatrix>& outs,
              int64_t rows, int64_t cols) const {
    namespace cuda = kernels::cuda;
    cuda::FusedProgram<T> p;
    // Sizes within the program's limits (make_fused_cellwise checked the plan).
    const size_t n_steps = std::min<size_t>(plan_.steps.size(), cuda::kFusedMaxSteps);
    const size_t n_in = std::min<size_t>(dense.size(), cuda::kFusedMaxInputs);
    const size_t n_out = std::min<size_t>(outs.size(), cuda::kFusedMaxOutputs);
    const size_t n_scalars = std::min<size_t>(scalars.size(), cuda::kFusedMaxScalars);
    p.steps = static_cast<int32_t>(n_steps);
    p.inputs = static_cast<int32_t>(n_in);
    p.outputs = static_cast<int32_t>(n_out);
    for (size_t s = 0; s < n_steps; ++s) {
      const FusedCellStep& st = plan_.steps[s];
      cuda::FusedStep& d = p.step[s];
      d.kind = st.kind == CellOpKind::kBinary  ? cuda::FusedStepKind::kBinary
               : st.kind == CellOpKind::kUnary ? cuda::FusedStepKind::kUnary
                                               : cuda::FusedStepKind::kTernary;
      d.op = static_cast<uint8_t>(st.op);
      for (size_t a = 0; a < st.args.size(); ++a) {
        d.arg[a].kind = st.args[a].kind == FusedCellArg::Kind::kStep    ? cuda::FusedArgKind::kStep
                        : st.args[a].kind == FusedCellArg::Kind::kInput ? cuda::FusedArgKind::kInput
                                                                        : cuda::FusedArgKind::kScalar;
        d.arg[a].index = static_cast<uint8_t>(st.args[a].index);
      }
    }
    for (size_t k = 0; k < n_in; ++k) {
      p.input[k] = dense[k]->values_as<T>();
      p.input_shape[k] = shape[k];
    }
    for (size_t o = 0; o < static_cast<size_t>(cuda::kFusedMaxOutputs) && o < n_out; ++o) {
      p.output[o] = outs[o].values_as<T>();
      p.output_step[o] = static_cast<uint8_t>(plan_.outputs[o].first);
    }
    for (size_t k = 0; k < n_scalars; ++k) p.scalar[k] = scalars[k];
    cuda::launch_fused_cellwise(p, rows, cols, gpu.stream());
  }

  // The createvar lines (before the kernel) or the rmvar lines (after it).
  void run_bookkeeping(ExecutionContext& ec, bool before) {
    for (size_t i = 0; i < parts_.size(); ++i) {
      if (is_step_[i]) continue;
      if ((parts_[i]->opcode() == "createvar") == before) parts_[i]->execute(ec);
    }
  }
#endif

  FusedCellPlan plan_;
  std::vector<InstructionPtr> parts_;
  std::vector<bool> is_step_;
  std::string name_;
};

}  // namespace

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
