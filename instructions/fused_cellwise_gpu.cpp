// Fused cell-wise chains: the GPU run, the whole chain as one kernel (fused_cellwise.h,
// kernels/cuda/fused_cellwise.h).
#include <algorithm>

#include "gpu_context/error.h"
#include "instructions/fused_cellwise.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/fused_cellwise.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {
namespace {

namespace cuda = kernels::cuda;

cuda::FusedInputShape input_shape_of(kernels::cpu::Broadcast b) {
  return b == kernels::cpu::Broadcast::kColVector   ? cuda::FusedInputShape::kColVector
         : b == kernels::cpu::Broadcast::kRowVector ? cuda::FusedInputShape::kRowVector
                                                    : cuda::FusedInputShape::kFull;
}

template <typename T>
void launch(const FusedCellPlan& plan, mem::GpuSession& gpu,
            const std::vector<const mem::DeviceMatrix*>& dense,
            const std::vector<kernels::cpu::Broadcast>& shape, const std::vector<double>& scalars,
            std::vector<mem::DeviceMatrix>& outs, int64_t rows, int64_t cols) {
  cuda::FusedProgram<T> p;
  // Sizes within the program's limits (make_fused_cellwise checked the plan).
  const size_t n_steps = std::min<size_t>(plan.steps.size(), cuda::kFusedMaxSteps);
  const size_t n_in = std::min<size_t>(dense.size(), cuda::kFusedMaxInputs);
  const size_t n_out = std::min<size_t>(outs.size(), cuda::kFusedMaxOutputs);
  const size_t n_scalars = std::min<size_t>(scalars.size(), cuda::kFusedMaxScalars);
  p.steps = static_cast<int32_t>(n_steps);
  p.inputs = static_cast<int32_t>(n_in);
  p.outputs = static_cast<int32_t>(n_out);
  for (size_t s = 0; s < n_steps; ++s) {
    const FusedCellStep& st = plan.steps[s];
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
    p.input_shape[k] = input_shape_of(shape[k]);
  }
  for (size_t o = 0; o < static_cast<size_t>(cuda::kFusedMaxOutputs) && o < n_out; ++o) {
    p.output[o] = outs[o].values_as<T>();
    p.output_step[o] = static_cast<uint8_t>(plan.outputs[o].first);
  }
  for (size_t k = 0; k < n_scalars; ++k) p.scalar[k] = scalars[k];
  cuda::launch_fused_cellwise(p, rows, cols, gpu.stream());
}

}  // namespace

// gpu_applicable has just said the operands fit: analyze() finds the same again.
void FusedCellwiseInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  Analysis a;
  DMLRT_REQUIRE(analyze(ec, &a), RuntimeError,
                where() << ": the fused chain's operands changed between placement and run");
  run_bookkeeping(ec, /*before=*/true);
  const size_t n_in = plan_.inputs.size();
  std::vector<DeviceRead> reads(n_in);
  std::vector<const mem::DeviceMatrix*> dense(n_in);
  for (size_t k = 0; k < n_in; ++k) {
    Operand op;
    op.name = plan_.inputs[k];
    op.data_type = DataType::kMatrix;
    reads[k] = gpu_read(ec, gpu, op);
    dense[k] = &reads[k].dense(gpu);
  }
  std::vector<mem::DeviceMatrix> outs;
  outs.reserve(plan_.outputs.size());
  for (size_t o = 0; o < plan_.outputs.size(); ++o)
    outs.push_back(mem::DeviceMatrix::dense(gpu.memory(), a.rows, a.cols, gpu.dtype(), gpu.stream(),
                                            mem::AllocLabel("gpu_", name_, " output")));
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    launch<decltype(t)>(plan_, gpu, dense, a.input_shape, a.scalars, outs, a.rows, a.cols);
  });
  reads.clear();  // unpinned before outputs may replace the inputs' objects
  for (size_t o = 0; o < outs.size(); ++o)
    set_gpu_output(ec, gpu, plan_.outputs[o].second, std::move(outs[o]));
  run_bookkeeping(ec, /*before=*/false);
}

}  // namespace dmlrt::inst
