// Unary aggregates: the GPU run (aggregate_instructions.h). Sparse inputs are densified into a
// temporary (the kernels are dense; implicit zeros then take part as the CPU's add_zeros does). Row
// and column aggregates stay on the device; a full aggregate with a scalar output is read back (the
// one synchronisation; deferred under the graph runner: Note [Deferred scalars] in
// scalar_value.cpp), one with a 1x1 matrix output stays on the device.
#include <algorithm>

#include "instructions/aggregate_instructions.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/reduce.h"
#include "kernels/cuda/reorg.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

// Workspaces come from scratch and return (stream-ordered) when the run returns.
void AggregateInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  namespace cuda = kernels::cuda;
  DeviceRead x = gpu_read(ec, gpu, in_);
  const mem::DeviceMatrix& xd = x.dense(gpu);
  const int64_t rows = xd.rows(), cols = xd.cols();
  const int64_t out_rows = dir_ == Direction::kRow ? rows : 1;
  const int64_t out_cols = dir_ == Direction::kCol ? cols : 1;
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), out_rows, out_cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_" + opcode() + " output");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* in = xd.values_as<T>();  // (rows, cols) row-major
    T* o = out.values_as<T>();
    if (kind_ != Kind::kAggregate) {
      cuda::launch_row_index(kind_ == Kind::kIndexMax, in, rows, cols, o, gpu.stream());
      return;
    }
    switch (dir_) {
      case Direction::kRow:
        cuda::launch_reduce_rows(op_, in, rows, cols, o, gpu.stream());
        return;
      case Direction::kCol: {
        mem::DeviceAllocation ws = gpu.scratch(cuda::reduce_cols_workspace_bytes(rows, cols),
                                               "gpu_" + opcode() + " column partials");
        cuda::launch_reduce_cols(op_, in, rows, cols, o, ws.data(), gpu.stream());
        return;
      }
      case Direction::kDiag: {
        // trace: the diagonal (rows, 1) into scratch, then its full sum (check() made it square).
        mem::DeviceAllocation diag =
            gpu.scratch(static_cast<size_t>(std::max<int64_t>(rows, 1)) * sizeof(T),
                        "gpu_" + opcode() + " diagonal");
        T* d = static_cast<T*>(diag.data());
        cuda::launch_diag_to_vector(in, d, rows, gpu.stream());
        mem::DeviceAllocation ws =
            gpu.scratch(cuda::reduce_all_workspace_bytes(rows), "gpu_" + opcode() + " partials");
        cuda::launch_reduce_all(op_, d, rows, o, ws.data(), gpu.stream());
        return;
      }
      case Direction::kAll: {
        mem::DeviceAllocation ws = gpu.scratch(cuda::reduce_all_workspace_bytes(rows * cols),
                                               "gpu_" + opcode() + " partials");
        cuda::launch_reduce_all(op_, in, rows * cols, o, ws.data(), gpu.stream());
        return;
      }
    }
  });
  if ((dir_ == Direction::kAll || dir_ == Direction::kDiag) && out_.is_scalar()) {
    ec.set_scalar(out_, gpu_scalar_result(gpu, out, out_.name));
    return;
  }
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
