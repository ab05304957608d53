// uaggouterchain: the GPU run (uagg_outer_chain_instruction.h). As the CPU kernel does, the (m, n)
// outer block is built in row chunks — here in device scratch, by the cell-wise kernel's outer
// broadcast — and reduced by the aggregate kernels, so every cell is the unfused agg(outer(...))'s.
// Row aggregates and row indices go straight into the output; column and full aggregates of
// several chunks keep one partial row (or value) per chunk and reduce those with the same op at
// the end. The output stays on the device.
#include <algorithm>

#include "instructions/gpu_placement.h"
#include "instructions/uagg_outer_chain_instruction.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/reduce.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

namespace {

// Cells of one outer chunk: 16 Mi cells (128 MiB in FP64) bounds the scratch the op takes.
constexpr int64_t kChunkCells = int64_t{1} << 24;

}  // namespace

void UaggOuterChainInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  namespace cuda = kernels::cuda;
  using kernels::cpu::OuterAggDir;
  using kernels::cpu::OuterAggKind;
  DeviceRead xr = gpu_read(ec, gpu, x_), yr = gpu_read(ec, gpu, y_);
  const mem::DeviceMatrix& x = xr.dense(gpu);
  const mem::DeviceMatrix& y = yr.dense(gpu);
  const int64_t m = x.rows(), n = y.cols();
  const bool per_row = kind_ != OuterAggKind::kAggregate || dir_ == OuterAggDir::kRow;
  const int64_t out_rows = per_row ? m : 1, out_cols = dir_ == OuterAggDir::kCol ? n : 1;
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), out_rows, out_cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_uaggouterchain output");
  const int64_t step = std::max<int64_t>(1, kChunkCells / std::max<int64_t>(1, n));
  const int64_t chunks = m == 0 ? 1 : (m + step - 1) / step;
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* xv = x.values_as<T>();
    const T* yv = y.values_as<T>();
    T* o = out.values_as<T>();
    const int64_t chunk_rows = std::min(step, m);
    mem::DeviceAllocation block = gpu.scratch(
        static_cast<size_t>(std::max<int64_t>(1, chunk_rows * n)) * sizeof(T),
        "gpu_uaggouterchain outer block");
    T* b = static_cast<T*>(block.data());
    // Column / full aggregates over several chunks: one partial per chunk, reduced at the end.
    const bool partials = !per_row && chunks > 1;
    const int64_t part_cols = dir_ == OuterAggDir::kCol ? n : 1;
    mem::DeviceAllocation parts;
    if (partials)
      parts = gpu.scratch(static_cast<size_t>(chunks * part_cols) * sizeof(T),
                          "gpu_uaggouterchain chunk partials");
    T* p = partials ? static_cast<T*>(parts.data()) : nullptr;
    for (int64_t c = 0, r0 = 0; c < chunks; ++c, r0 += step) {
      const int64_t rows = std::min(step, m - r0);
      if (rows * n > 0)
        cuda::launch_binary_matrix_matrix(op_, kernels::cpu::Broadcast::kOuter, xv + r0, yv, b,
                                          rows, n, gpu.stream());
      T* dst = per_row ? o + r0 : (partials ? p + c * part_cols : o);
      if (kind_ != OuterAggKind::kAggregate) {
        cuda::launch_row_index(kind_ == OuterAggKind::kIndexMax, b, rows, n, dst, gpu.stream());
      } else if (dir_ == OuterAggDir::kRow) {
        cuda::launch_reduce_rows(agg_, b, rows, n, dst, gpu.stream());
      } else if (dir_ == OuterAggDir::kCol) {
        mem::DeviceAllocation ws = gpu.scratch(cuda::reduce_cols_workspace_bytes(rows, n),
                                               "gpu_uaggouterchain column partials");
        cuda::launch_reduce_cols(agg_, b, rows, n, dst, ws.data(), gpu.stream());
      } else {
        mem::DeviceAllocation ws = gpu.scratch(cuda::reduce_all_workspace_bytes(rows * n),
                                               "gpu_uaggouterchain partials");
        cuda::launch_reduce_all(agg_, b, rows * n, dst, ws.data(), gpu.stream());
      }
    }
    if (!partials) return;
    if (dir_ == OuterAggDir::kCol) {
      mem::DeviceAllocation ws = gpu.scratch(cuda::reduce_cols_workspace_bytes(chunks, n),
                                             "gpu_uaggouterchain column partials");
      cuda::launch_reduce_cols(agg_, p, chunks, n, o, ws.data(), gpu.stream());
    } else {
      mem::DeviceAllocation ws = gpu.scratch(cuda::reduce_all_workspace_bytes(chunks),
                                             "gpu_uaggouterchain partials");
      cuda::launch_reduce_all(agg_, p, chunks, o, ws.data(), gpu.stream());
    }
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
