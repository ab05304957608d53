// N-ary instructions: the GPU run (nary_instructions.h). The fold of the CPU kernel, one pass per
// matrix in plan order: out = op(start, M1) with the scalars folded into `start` first, then
// out = op(out, Mi) in place — the same operations in the same order as kernels/cpu/nary.cpp, so
// FP64 results are bit-identical. Sparse inputs are read through dense temporaries; the output is
// dense.
#include "instructions/gpu_placement.h"
#include "instructions/nary_instructions.h"
#include "kernels/cuda/elementwise.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

namespace {

kernels::cpu::BinaryOp binary_of(kernels::cpu::NaryOp op) {
  using kernels::cpu::BinaryOp;
  using kernels::cpu::NaryOp;
  switch (op) {
    case NaryOp::kPlus:
      return BinaryOp::kPlus;
    case NaryOp::kMult:
      return BinaryOp::kMult;
    case NaryOp::kMin:
      return BinaryOp::kMin;
    case NaryOp::kMax:
      return BinaryOp::kMax;
  }
  return BinaryOp::kPlus;
}

}  // namespace

void NaryInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  std::vector<DeviceRead> reads;
  double start = kernels::cpu::nary_init(op_);
  for (const Operand& op : in_) {
    if (op.is_matrix())
      reads.push_back(gpu_read(ec, gpu, op));
    else
      start = kernels::cpu::nary_apply(op_, start, scalar_operand(ec, op));
  }
  const int64_t rows = reads.front()->rows(), cols = reads.front()->cols();
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_" + opcode() + " output");
  if (rows * cols > 0) {
    const kernels::cpu::BinaryOp bop = binary_of(op_);
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      T* o = out.values_as<T>();
      for (size_t i = 0; i < reads.size(); ++i) {
        const T* m = reads[i].dense(gpu).template values_as<T>();
        if (i == 0)
          kernels::cuda::launch_binary_matrix_scalar(bop, m, start, /*scalar_left=*/true, o,
                                                     rows * cols, gpu.stream());
        else
          kernels::cuda::launch_binary_matrix_matrix(bop, kernels::cpu::Broadcast::kNone, o, m, o,
                                                     rows, cols, gpu.stream());
      }
    });
  }
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
