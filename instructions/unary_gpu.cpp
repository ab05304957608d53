// Unary builtins: the GPU runs (unary_instructions.h). Sparse inputs are densified into
// temporaries (the kernels are dense; the inputs keep their format); outputs are dense with unknown
// nnz and take the host format SystemDS would pick when they are copied back.
#include "instructions/gpu_placement.h"
#include "instructions/unary_instructions.h"
#include "kernels/cuda/unary.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

// Scans take their workspace from scratch, returned (stream-ordered) when the run returns.
void UnaryInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  namespace cuda = kernels::cuda;
  DeviceRead x = gpu_read(ec, gpu, in_);
  const mem::DeviceMatrix& xd = x.dense(gpu);
  const int64_t rows = xd.rows(), cols = xd.cols();
  mem::DeviceMatrix out =
      mem::DeviceMatrix::dense(gpu.memory(), rows, kind_ == Kind::kCumSumProd ? 1 : cols,
                               gpu.dtype(), gpu.stream(), "gpu_" + opcode() + " output");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* in = xd.values_as<T>();  // (rows, cols) row-major
    T* o = out.values_as<T>();
    switch (kind_) {
      case Kind::kCellwise:
        cuda::launch_unary(op_, in, o, rows * cols, gpu.stream());
        break;
      case Kind::kSoftmax:
        cuda::launch_softmax(in, o, rows, cols, gpu.stream());
        break;
      case Kind::kCumulative: {
        mem::DeviceAllocation ws = gpu.scratch(
            cuda::cumulative_workspace_bytes(rows, cols, sizeof(T)), "gpu_" + opcode() + " scan");
        cuda::launch_cumulative(cum_, in, o, rows, cols, ws.data(), gpu.stream());
        break;
      }
      case Kind::kCumSumProd: {
        mem::DeviceAllocation ws =
            gpu.scratch(cuda::cumulative_workspace_bytes(rows, 1, sizeof(T)), "gpu_ucumk+* scan");
        cuda::launch_cumsumprod(in, o, rows, ws.data(), gpu.stream());
        break;
      }
      case Kind::kRowCumSum:
        cuda::launch_row_cumsum(in, o, rows, cols, gpu.stream());
        break;
    }
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

void LogBaseInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x, b;
  double x_value = 0, base_value = 0;
  if (x_.is_matrix())
    x = gpu_read(ec, gpu, x_);
  else
    x_value = number(ec, x_);
  if (base_.is_matrix())
    b = gpu_read(ec, gpu, base_);
  else
    base_value = number(ec, base_);
  const mem::DeviceMatrix* xd = x_.is_matrix() ? &x.dense(gpu) : nullptr;
  const mem::DeviceMatrix* bd = base_.is_matrix() ? &b.dense(gpu) : nullptr;
  const mem::DeviceMatrix& shape = xd != nullptr ? *xd : *bd;
  const int64_t rows = shape.rows(), cols = shape.cols();
  // A scalar x has a (rows, cols) matrix base, which the kernel reads without broadcasting.
  const int64_t br = bd != nullptr ? bd->rows() : 1, bc = bd != nullptr ? bd->cols() : 1;
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_log output");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    kernels::cuda::launch_log_base(xd != nullptr ? xd->values_as<T>() : nullptr, x_value,
                                   bd != nullptr ? bd->values_as<T>() : nullptr, base_value, br, bc,
                                   out.values_as<T>(), rows, cols, gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
