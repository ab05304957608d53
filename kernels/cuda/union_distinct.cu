// union_distinct on the device (union_distinct.h): row hashes, a CUB radix sort by hash, exact
// row comparisons within equal hashes, a scan of the kept flags and a gather.
//
// Note [GPU union_distinct]
// Each row of rbind(A, B) is hashed from its cells' Java bits (Double.doubleToLongBits: NaN
// canonical, -0.0 and 0.0 apart; a float is widened to double first, which is exact), a sum of
// position-mixed cell hashes so that a warp can hash a row in any order. The rows are sorted by
// (hash, row index) (sort.h's sort_by_segment_and_key, a stable radix sort), so equal rows are
// adjacent-by-hash and each run lists its rows in input order. A row is a duplicate when some
// earlier row of its run is bit-equal (a full comparison, so hash collisions cost time, never
// correctness); the first of equal rows is always kept. The kept flags, scanned in row order,
// give every kept row its output row: the CPU's first-occurrence order exactly.
#include <cub/device/device_scan.cuh>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/sort.h"
#include "kernels/cuda/union_distinct.h"

namespace dmlrt::kernels::cuda {
namespace {

constexpr uint64_t kJavaNaN = 0x7ff8000000000000ULL;

template <typename T>
__device__ __forceinline__ uint64_t java_bits(T x) {
  const double v = static_cast<double>(x);
  return isnan(v) ? kJavaNaN : static_cast<uint64_t>(__double_as_longlong(v));
}

__device__ __forceinline__ uint64_t mix64(uint64_t z) {  // splitmix64's finaliser
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Row r of rbind(a, b).
template <typename T>
__device__ __forceinline__ const T* row_of(const T* a, int64_t ma, const T* b, int64_t n,
                                           int64_t r) {
  return r < ma ? a + r * n : b + (r - ma) * n;
}

// One warp per row: hash[r] = mix(sum over c of mix(bits(x[r, c]) ^ mix(c))).
template <typename T>
__global__ void union_hash_kernel(const T* __restrict__ a, int64_t ma, const T* __restrict__ b,
                                  int64_t m, int64_t n, uint64_t* __restrict__ hash) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = detail::grid_stride() / 32;
  for (int64_t r = detail::global_thread() / 32; r < m; r += warps) {
    const T* x = row_of(a, ma, b, n, r);
    uint64_t h = 0;
    for (int64_t c = lane; c < n; c += 32) h += mix64(java_bits(x[c]) ^ mix64(c));
    for (int off = 16; off > 0; off >>= 1) h += __shfl_down_sync(0xffffffffu, h, off);
    if (lane == 0) hash[r] = mix64(h);
  }
}

// keep[perm[s]] = 1 unless an earlier position of s's equal-hash run holds a bit-equal row.
template <typename T>
__global__ void union_keep_kernel(const T* __restrict__ a, int64_t ma, const T* __restrict__ b,
                                  int64_t m, int64_t n, const uint64_t* __restrict__ hash,
                                  const int64_t* __restrict__ perm, int64_t* __restrict__ keep) {
  for (int64_t s = detail::global_thread(); s < m; s += detail::grid_stride()) {
    const int64_t r = perm[s];
    const uint64_t h = hash[r];
    const T* x = row_of(a, ma, b, n, r);
    bool dup = false;
    for (int64_t t = s - 1; !dup && t >= 0 && hash[perm[t]] == h; --t) {
      const T* y = row_of(a, ma, b, n, perm[t]);
      bool equal = true;
      for (int64_t c = 0; equal && c < n; ++c) equal = java_bits(x[c]) == java_bits(y[c]);
      dup = equal;
    }
    keep[r] = dup ? 0 : 1;
  }
}

template <typename T>
__global__ void union_gather_kernel(const T* __restrict__ a, int64_t ma, const T* __restrict__ b,
                                    int64_t m, int64_t n, const int64_t* __restrict__ slot,
                                    T* __restrict__ out) {
  const int64_t total = m * n;
  for (int64_t i = detail::global_thread(); i < total; i += detail::grid_stride()) {
    const int64_t r = i / n, c = i - r * n;
    const int64_t before = r == 0 ? 0 : slot[r - 1];
    if (slot[r] != before) out[before * n + c] = row_of(a, ma, b, n, r)[c];
  }
}

void check_launch(const char* what, int64_t n) {
  DMLRT_CHECK_CTX(cudaGetLastError(), what << " n=" << n);
}

}  // namespace

template <typename T>
void union_distinct_slots(const T* a, int64_t ma, const T* b, int64_t mb, int64_t n, int64_t* slot,
                          Scratch& scratch, cudaStream_t stream) {
  const int64_t m = ma + mb;
  if (m == 0) return;
  const size_t count = static_cast<size_t>(m);
  uint64_t* hash = scratch.allocate_n<uint64_t>(count, "row hashes");
  union_hash_kernel<T>
      <<<detail::grid_for(m * 32), detail::kThreads, 0, stream>>>(a, ma, b, m, n, hash);
  check_launch("union_distinct row hashes", m);
  int64_t* perm = scratch.allocate_n<int64_t>(count, "hash order");
  sort_by_segment_and_key(hash, nullptr, m, 1, perm, scratch, stream);
  union_keep_kernel<T>
      <<<detail::grid_for(m), detail::kThreads, 0, stream>>>(a, ma, b, m, n, hash, perm, slot);
  check_launch("union_distinct kept rows", m);
  size_t bytes = 0;
  DMLRT_CHECK_CTX(cub::DeviceScan::InclusiveSum(nullptr, bytes, slot, slot, m, stream),
                  "union_distinct scan workspace m=" << m);
  void* temp = scratch.allocate(bytes, "scan workspace");
  DMLRT_CHECK_CTX(cub::DeviceScan::InclusiveSum(temp, bytes, slot, slot, m, stream),
                  "union_distinct scan m=" << m);
}

template <typename T>
void launch_union_gather(const T* a, int64_t ma, const T* b, int64_t mb, int64_t n,
                         const int64_t* slot, T* out, cudaStream_t stream) {
  const int64_t m = ma + mb;
  if (m == 0 || n == 0) return;
  union_gather_kernel<T>
      <<<detail::grid_for(m * n), detail::kThreads, 0, stream>>>(a, ma, b, m, n, slot, out);
  check_launch("union_distinct gather", m * n);
}

#define DMLRT_UNION_INSTANTIATE(T)                                                               \
  template void union_distinct_slots<T>(const T*, int64_t, const T*, int64_t, int64_t, int64_t*, \
                                        Scratch&, cudaStream_t);                                 \
  template void launch_union_gather<T>(const T*, int64_t, const T*, int64_t, int64_t,            \
                                       const int64_t*, T*, cudaStream_t);
DMLRT_UNION_INSTANTIATE(double)
DMLRT_UNION_INSTANTIATE(float)
#undef DMLRT_UNION_INSTANTIATE

}  // namespace dmlrt::kernels::cuda
