// unique, uniquer, uniquec: the GPU run (unique_instructions.h). See Note [GPU unique].
//
// Note [GPU unique]
// SystemDS returns the distinct values in a java.util.HashSet's iteration order, which the CPU
// kernel reproduces (Note [Java HashSet order] in kernels/cpu/unique.cpp). That order depends only
// on the sequence of values first inserted (a value already present changes nothing), so the
// device does the data-sized part: a stable sort by (row or column, Java key) finds every
// distinct value's first occurrence (kernels/cuda/sort.h), and only those values come back, in
// first-occurrence order per row/column. The host then runs the CPU kernel on that compact
// matrix — each row (column) its distinct values, padded by repeating its first one, which adds
// nothing — and the result, as SystemDS orders it, goes back to the device. The transfer is the
// size of the output (at most the input), not the input.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "gpu_context/cuda_check.h"
#include "instructions/gpu_placement.h"
#include "instructions/unique_instructions.h"
#include "kernels/cuda/sort.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {

namespace kc = kernels::cuda;
using kernels::MatrixBlock;
using kernels::cpu::UniqueDir;

void UniqueInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, in_);
  const int64_t m = x->rows(), n = x->cols(), count = m * n;
  if (count == 0) {  // the CPU's shapes of an empty input; nothing to sort
    MatrixBlock empty = MatrixBlock::dense(m, n, std::vector<double>());
    set_gpu_output(ec, gpu, out_.name,
                   gpu.upload(kernels::cpu::unique_values(empty, dir_), "gpu_unique output"));
    return;
  }
  const mem::DeviceMatrix& xd = x.dense(gpu);  // (m, n) row-major
  // Segments: the whole matrix, each row, or each column (keys laid out column by column).
  const bool all = dir_ == UniqueDir::kAll, by_col = dir_ == UniqueDir::kCol;
  const int64_t outer = all ? 1 : (by_col ? n : m), inner = count / outer;
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_" + opcode());
  const size_t N = static_cast<size_t>(count);
  uint64_t* keys = scratch.allocate_n<uint64_t>(N, "keys");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (by_col)
      kc::launch_java_keys_colmajor<T>(xd.values_as<T>(), m, n, keys, gpu.stream());
    else
      kc::launch_java_keys<T>(xd.values_as<T>(), count, keys, gpu.stream());
  });
  int64_t* seg = nullptr;
  if (!all) {
    seg = scratch.allocate_n<int64_t>(N, "segments");
    kc::launch_index_segments(count, inner, /*by_row=*/true, seg, gpu.stream());
  }
  int64_t* perm = scratch.allocate_n<int64_t>(N, "permutation");
  kc::sort_by_segment_and_key(keys, seg, count, outer, perm, scratch, gpu.stream());
  int64_t* positions = scratch.allocate_n<int64_t>(N, "first positions");
  int64_t* num = scratch.allocate_n<int64_t>(1, "distinct count");
  kc::select_first_positions(keys, seg, perm, count, positions, num, scratch, gpu.stream());
  int64_t d = 0;
  DMLRT_CHECK(cudaMemcpyAsync(&d, num, sizeof(d), cudaMemcpyDeviceToHost, gpu.stream()));
  gpu.synchronize("unique distinct count");
  double* values = scratch.allocate_n<double>(static_cast<size_t>(d), "distinct values");
  kc::launch_values_at(keys, positions, d, values, gpu.stream());
  std::vector<int64_t> pos(static_cast<size_t>(d));
  std::vector<double> val(static_cast<size_t>(d));
  DMLRT_CHECK(cudaMemcpyAsync(pos.data(), positions, pos.size() * sizeof(int64_t),
                              cudaMemcpyDeviceToHost, gpu.stream()));
  DMLRT_CHECK(cudaMemcpyAsync(val.data(), values, val.size() * sizeof(double),
                              cudaMemcpyDeviceToHost, gpu.stream()));
  gpu.synchronize("unique distinct values");
  // Counted with the session's transfers (-stats fromDev), as a download would be.
  gpu.stats().from_dev_n += 1;
  gpu.stats().from_dev_bytes +=
      static_cast<int64_t>(pos.size() * (sizeof(int64_t) + sizeof(double)));

  // Positions are ascending, so each segment's values are contiguous, in first-occurrence order.
  std::vector<int64_t> begin(static_cast<size_t>(outer) + 1, 0);
  for (int64_t p : pos) ++begin[static_cast<size_t>(p / inner) + 1];
  int64_t width = 0;
  for (int64_t o = 0; o < outer; ++o) {
    width = std::max(width, begin[o + 1]);
    begin[o + 1] += begin[o];
  }
  MatrixBlock compact;
  if (all) {
    compact = MatrixBlock::dense(d, 1, std::move(val));
  } else {
    // (outer, width) for uniquer, its transpose for uniquec; every segment has a value.
    std::vector<double> v(static_cast<size_t>(outer * width));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < width; ++k) {
        const int64_t src = begin[o] + std::min(k, begin[o + 1] - begin[o] - 1);
        v[static_cast<size_t>(by_col ? k * outer + o : o * width + k)] = val[src];
      }
    compact = by_col ? MatrixBlock::dense(width, outer, std::move(v))
                     : MatrixBlock::dense(outer, width, std::move(v));
  }
  set_gpu_output(ec, gpu, out_.name,
                 gpu.upload(kernels::cpu::unique_values(compact, dir_), "gpu_unique output"));
}

}  // namespace dmlrt::inst
