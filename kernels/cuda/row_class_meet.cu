// rowClassMeet's device part (row_class_meet.h): label pairs as sort keys, a CUB radix sort by
// (row, pair, cell), class boundaries by a scan, and the scatter of class numbers and sizes.
#include <cub/device/device_scan.cuh>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/row_class_meet.h"
#include "kernels/cuda/sort.h"

namespace dmlrt::kernels::cuda {
namespace {

// Java's (int) cast (kernels/cpu/row_class_meet.cpp java_int): truncation, saturation, NaN -> 0.
__device__ __forceinline__ int32_t java_int(double v) {
  if (isnan(v)) return 0;
  if (v >= 2147483647.0) return INT32_MAX;
  if (v <= -2147483648.0) return INT32_MIN;
  return static_cast<int32_t>(v);
}

template <typename T>
__global__ void rcm_keys_kernel(const T* __restrict__ a, int64_t ma, int64_t na,
                                const T* __restrict__ b, int64_t nb, bool b_one_row,
                                int64_t num_cols, uint64_t* __restrict__ keys,
                                int64_t* __restrict__ seg) {
  const int64_t cells = ma * num_cols;
  for (int64_t p = detail::global_thread(); p < cells; p += detail::grid_stride()) {
    const int64_t i = p / num_cols, j = p - i * num_cols;
    const int32_t av = java_int(static_cast<double>(a[i * na + j]));
    const int32_t bv = av == 0 ? 0 : java_int(static_cast<double>(b[(b_one_row ? 0 : i) * nb + j]));
    const bool in = av != 0 && bv != 0;
    keys[p] = in ? (uint64_t{static_cast<uint32_t>(av)} << 32) | static_cast<uint32_t>(bv) : 0;
    seg[p] = in ? i : ma;
  }
}

__device__ __forceinline__ bool participates(const RcmClasses& c, int64_t s) {
  return c.seg[c.perm[s]] < c.ma;
}

// group[s] = 1 where sorted position s starts a class (a participating cell whose (row, pair)
// differs from s - 1's), else 0; scanned into 1 + the class number afterwards.
__global__ void rcm_heads_kernel(RcmClasses c, const uint64_t* __restrict__ keys, int64_t cells) {
  for (int64_t s = detail::global_thread(); s < cells; s += detail::grid_stride()) {
    bool head = participates(c, s);
    if (head && s > 0) {
      const int64_t p = c.perm[s], q = c.perm[s - 1];
      head = keys[p] != keys[q] || c.seg[p] != c.seg[q];
    }
    c.group[s] = head ? 1 : 0;
  }
}

// The first cell and pair of each class (its head: the sort is stable, so the smallest cell),
// its start position in `start`, and the class count.
__global__ void rcm_firsts_kernel(RcmClasses c, const uint64_t* __restrict__ keys, int64_t cells,
                                  int64_t* __restrict__ start) {
  for (int64_t s = detail::global_thread(); s < cells; s += detail::grid_stride()) {
    if (s == cells - 1) *c.num = c.group[s];
    if (!participates(c, s) || (s > 0 && c.group[s] == c.group[s - 1])) continue;
    const int64_t g = c.group[s] - 1, p = c.perm[s];
    c.pair[g] = keys[p];
    c.first[g] = p;
    start[g] = s;
  }
}

// size[g] at the last position of each class.
__global__ void rcm_sizes_kernel(RcmClasses c, int64_t cells, const int64_t* __restrict__ start) {
  for (int64_t s = detail::global_thread(); s < cells; s += detail::grid_stride()) {
    if (!participates(c, s)) continue;
    if (s + 1 < cells && participates(c, s + 1) && c.group[s + 1] == c.group[s]) continue;
    const int64_t g = c.group[s] - 1;
    c.size[g] = s + 1 - start[g];
  }
}

template <typename T>
__global__ void rcm_scatter_kernel(RcmClasses c, int64_t cells, int64_t num_cols,
                                   const T* __restrict__ label, int64_t nc, T* __restrict__ out_c,
                                   T* __restrict__ out_n) {
  for (int64_t s = detail::global_thread(); s < cells; s += detail::grid_stride()) {
    if (!participates(c, s)) continue;
    const int64_t p = c.perm[s], g = c.group[s] - 1;
    const int64_t i = p / num_cols, j = p - i * num_cols;
    out_c[i * nc + j] = label[g];
    out_n[i * nc + j] = static_cast<T>(c.size[g]);
  }
}

void check_launch(const char* what, int64_t n) {
  DMLRT_CHECK_CTX(cudaGetLastError(), what << " n=" << n);
}

}  // namespace

template <typename T>
RcmClasses rcm_classes(const T* a, int64_t ma, int64_t na, const T* b, int64_t nb, bool b_one_row,
                       int64_t num_cols, Scratch& scratch, cudaStream_t stream) {
  const int64_t cells = ma * num_cols;
  const size_t n = static_cast<size_t>(cells);
  RcmClasses c;
  c.ma = ma;
  c.num = scratch.allocate_n<int64_t>(1, "rcm class count");
  c.pair = scratch.allocate_n<uint64_t>(n, "rcm class pairs");
  c.first = scratch.allocate_n<int64_t>(n, "rcm class first cells");
  c.size = scratch.allocate_n<int64_t>(n, "rcm class sizes");
  c.perm = scratch.allocate_n<int64_t>(n, "rcm cell order");
  c.group = scratch.allocate_n<int64_t>(n, "rcm cell classes");
  c.seg = scratch.allocate_n<int64_t>(n, "rcm cell rows");
  uint64_t* keys = scratch.allocate_n<uint64_t>(n, "rcm cell pairs");
  int64_t* start = scratch.allocate_n<int64_t>(n, "rcm class starts");
  const int grid = detail::grid_for(cells);
  rcm_keys_kernel<T>
      <<<grid, detail::kThreads, 0, stream>>>(a, ma, na, b, nb, b_one_row, num_cols, keys, c.seg);
  check_launch("rcm keys", cells);
  sort_by_segment_and_key(keys, c.seg, cells, ma + 1, c.perm, scratch, stream);
  rcm_heads_kernel<<<grid, detail::kThreads, 0, stream>>>(c, keys, cells);
  check_launch("rcm class heads", cells);
  size_t bytes = 0;
  DMLRT_CHECK_CTX(cub::DeviceScan::InclusiveSum(nullptr, bytes, c.group, c.group, cells, stream),
                  "rcm scan workspace cells=" << cells);
  void* temp = scratch.allocate(bytes, "scan workspace");
  DMLRT_CHECK_CTX(cub::DeviceScan::InclusiveSum(temp, bytes, c.group, c.group, cells, stream),
                  "rcm scan cells=" << cells);
  rcm_firsts_kernel<<<grid, detail::kThreads, 0, stream>>>(c, keys, cells, start);
  check_launch("rcm class firsts", cells);
  rcm_sizes_kernel<<<grid, detail::kThreads, 0, stream>>>(c, cells, start);
  check_launch("rcm class sizes", cells);
  return c;
}

template <typename T>
void launch_rcm_scatter(const RcmClasses& c, int64_t cells, int64_t num_cols, const T* label,
                        int64_t nc, T* out_c, T* out_n, cudaStream_t stream) {
  if (cells == 0) return;
  rcm_scatter_kernel<T><<<detail::grid_for(cells), detail::kThreads, 0, stream>>>(
      c, cells, num_cols, label, nc, out_c, out_n);
  check_launch("rcm scatter", cells);
}

#define DMLRT_RCM_INSTANTIATE(T)                                                                   \
  template RcmClasses rcm_classes<T>(const T*, int64_t, int64_t, const T*, int64_t, bool, int64_t, \
                                     Scratch&, cudaStream_t);                                      \
  template void launch_rcm_scatter<T>(const RcmClasses&, int64_t, int64_t, const T*, int64_t, T*,  \
                                      T*, cudaStream_t);
DMLRT_RCM_INSTANTIATE(double)
DMLRT_RCM_INSTANTIATE(float)
#undef DMLRT_RCM_INSTANTIATE

}  // namespace dmlrt::kernels::cuda
