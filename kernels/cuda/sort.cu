// Sort-based device ops: rsort, qsort, qpick tables and picks, and the (segment, key) grouping of
// unique and countDistinct (sort.h; Note [GPU sort keys]). CUB radix sorts, scans and reductions,
// their temporary storage from the caller's Scratch.
#include <cmath>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/sort.h"
#include "kernels/kmv.h"

namespace dmlrt::kernels::cuda {
namespace {

constexpr uint64_t kSign = 0x8000000000000000ULL;
constexpr uint64_t kJavaNaN = 0x7ff8000000000000ULL;
constexpr unsigned long long kNone = ~0ULL;

// Note [GPU sort keys].
__device__ __forceinline__ uint64_t java_key(double v) {
  const uint64_t b = isnan(v) ? kJavaNaN : static_cast<uint64_t>(__double_as_longlong(v));
  return (b & kSign) ? ~b : (b | kSign);
}
__device__ __forceinline__ double key_value(uint64_t k) {
  const uint64_t b = (k & kSign) ? (k & ~kSign) : ~k;
  return __longlong_as_double(static_cast<long long>(b));
}

// Bits a radix sort needs for keys in [0, bound).
int bits_for(int64_t bound) {
  int b = 0;
  while (b < 63 && (int64_t{1} << b) < bound) ++b;
  return b == 0 ? 1 : b;
}

void check_launch(const char* what, int64_t n) {
  DMLRT_CHECK_CTX(cudaGetLastError(), what << " n=" << n);
}

// One stable ascending radix sort of (keys, values) double buffers; temp storage from scratch.
template <typename K, typename V>
void radix_sort_pairs(cub::DoubleBuffer<K>& keys, cub::DoubleBuffer<V>& vals, int64_t n,
                      int end_bit, Scratch& scratch, cudaStream_t stream, const char* what) {
  size_t bytes = 0;
  DMLRT_CHECK_CTX(
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, vals, n, 0, end_bit, stream),
      what << " workspace n=" << n);
  void* temp = scratch.allocate(bytes, "radix sort workspace");
  DMLRT_CHECK_CTX(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, vals, n, 0, end_bit, stream),
                  what << " n=" << n);
}

__global__ void iota_kernel(int64_t* __restrict__ p, int64_t n) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride()) p[i] = i;
}

void launch_iota(int64_t* p, int64_t n, cudaStream_t stream) {
  iota_kernel<<<detail::grid_for(n), detail::kThreads, 0, stream>>>(p, n);
  check_launch("sort iota", n);
}

// ---- rsort ----

template <typename T>
__global__ void column_keys_kernel(const T* __restrict__ x, int64_t m, int64_t n, int64_t col,
                                   const int64_t* __restrict__ perm, uint64_t flip,
                                   uint64_t* __restrict__ keys) {
  for (int64_t i = detail::global_thread(); i < m; i += detail::grid_stride())
    keys[i] = java_key(static_cast<double>(x[perm[i] * n + col])) ^ flip;
}

template <typename T>
__global__ void gather_rows_kernel(const T* __restrict__ x, int64_t m, int64_t n,
                                   const int64_t* __restrict__ perm, T* __restrict__ out) {
  const int64_t total = m * n;
  for (int64_t i = detail::global_thread(); i < total; i += detail::grid_stride()) {
    const int64_t r = i / n, c = i - r * n;
    out[i] = x[perm[r] * n + c];
  }
}

template <typename T>
__global__ void one_based_kernel(const int64_t* __restrict__ perm, int64_t m, T* __restrict__ out) {
  for (int64_t i = detail::global_thread(); i < m; i += detail::grid_stride())
    out[i] = static_cast<T>(perm[i] + 1);
}

// ---- qsort ----

template <typename T>
__global__ void keys_kernel(const T* __restrict__ x, int64_t n, uint64_t* __restrict__ keys) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    keys[i] = java_key(static_cast<double>(x[i]));
}

template <typename T>
__global__ void values_of_keys_kernel(const uint64_t* __restrict__ keys, int64_t n,
                                      T* __restrict__ out) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    out[i] = static_cast<T>(key_value(keys[i]));
}

template <typename T>
__global__ void count_nonzero_kernel(const T* __restrict__ x, int64_t n,
                                     unsigned long long* __restrict__ count) {
  unsigned long long c = 0;
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    c += x[i] != T(0) ? 1 : 0;  // NaN != 0
  if (c != 0) atomicAdd(count, c);
}

// Nonzero values get their compacted slot from the exclusive scan of the flags in `slot`; zeros
// put their weight (as double) into zero_w for the reduction.
template <typename T>
__global__ void weighted_split_kernel(const T* __restrict__ x, const T* __restrict__ w, int64_t m,
                                      const int64_t* __restrict__ slot, uint64_t* __restrict__ keys,
                                      int64_t* __restrict__ src, double* __restrict__ zero_w) {
  for (int64_t i = detail::global_thread(); i < m; i += detail::grid_stride()) {
    const bool nz = x[i] != T(0);
    zero_w[i] = nz ? 0.0 : static_cast<double>(w[i]);
    if (nz) {
      keys[slot[i]] = java_key(static_cast<double>(x[i]));
      src[slot[i]] = i;
    }
  }
}

template <typename T>
__global__ void nonzero_flags_kernel(const T* __restrict__ x, int64_t m, int64_t* __restrict__ f) {
  for (int64_t i = detail::global_thread(); i < m; i += detail::grid_stride())
    f[i] = x[i] != T(0) ? 1 : 0;
}

// The zero row sits after every key below key(+0.0): at the number of such keys (sorted).
__device__ int64_t lower_bound_key(const uint64_t* keys, int64_t n, uint64_t k) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

template <typename T>
__global__ void weighted_table_kernel(const T* __restrict__ x, const T* __restrict__ w,
                                      const uint64_t* __restrict__ keys,
                                      const int64_t* __restrict__ src, int64_t nz,
                                      const double* __restrict__ zero_sum, T* __restrict__ table) {
  const int64_t zpos = lower_bound_key(keys, nz, java_key(0.0));
  for (int64_t r = detail::global_thread(); r <= nz; r += detail::grid_stride()) {
    if (r == zpos) {
      table[2 * r] = T(0);
      table[2 * r + 1] = static_cast<T>(*zero_sum);
    } else {
      const int64_t s = src[r < zpos ? r : r - 1];
      table[2 * r] = x[s];
      table[2 * r + 1] = w[s];
    }
  }
}

// ---- qpick ----

// flags f[i] = x[i] != 0 and *first = the first nonzero index whose value is not negative.
template <typename T>
__global__ void zero_row_flags_kernel(const T* __restrict__ x, int64_t m, int64_t* __restrict__ f,
                                      unsigned long long* __restrict__ first) {
  for (int64_t i = detail::global_thread(); i < m; i += detail::grid_stride()) {
    const bool nz = x[i] != T(0);
    f[i] = nz ? 1 : 0;
    if (nz && !(x[i] < T(0))) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

// slot holds the exclusive scan of the flags: nonzero i goes to row slot[i], one further down
// from the first non-negative nonzero on (the zero row goes before it).
template <typename T>
__global__ void zero_row_fill_kernel(const T* __restrict__ x, int64_t m,
                                     const int64_t* __restrict__ slot,
                                     const unsigned long long* __restrict__ first, int64_t nonzeros,
                                     double* __restrict__ val, double* __restrict__ wt) {
  const unsigned long long f = *first;
  for (int64_t i = detail::global_thread(); i < m; i += detail::grid_stride()) {
    if (x[i] == T(0)) continue;
    const int64_t r = slot[i] + (static_cast<unsigned long long>(i) >= f ? 1 : 0);
    val[r] = static_cast<double>(x[i]);
    wt[r] = 1.0;
  }
  if (detail::global_thread() == 0) {
    const int64_t z = f == kNone ? nonzeros : slot[f];
    val[z] = 0.0;
    wt[z] = static_cast<double>(m - nonzeros);
  }
}

template <typename T>
__global__ void weighted_table_split_kernel(const T* __restrict__ x, int64_t k,
                                            double* __restrict__ val, double* __restrict__ wt) {
  for (int64_t i = detail::global_thread(); i < k; i += detail::grid_stride()) {
    val[i] = static_cast<double>(x[2 * i]);
    wt[i] = static_cast<double>(x[2 * i + 1]);
  }
}

template <typename T>
__global__ void unit_table_kernel(const T* __restrict__ x, int64_t k, double* __restrict__ val,
                                  double* __restrict__ wt) {
  for (int64_t i = detail::global_thread(); i < k; i += detail::grid_stride()) {
    val[i] = static_cast<double>(x[i]);
    wt[i] = 1.0;
  }
}

__global__ void first_noninteger_kernel(const double* __restrict__ wt, int64_t k,
                                        unsigned long long* __restrict__ first) {
  for (int64_t i = detail::global_thread(); i < k; i += detail::grid_stride())
    if (floor(wt[i]) < wt[i]) atomicMin(first, static_cast<unsigned long long>(i));
}

struct MaxOp {
  __device__ __forceinline__ double operator()(double a, double b) const { return a < b ? b : a; }
};

// The first row whose cmax reaches p, or k - 1 (the CPU walk's stop).
__device__ int64_t walk_stop(const PickTable& t, double p) {
  int64_t lo = 0, hi = t.k;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (t.cmax[mid] >= p)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo < t.k ? lo : t.k - 1;
}

// kernels/cpu/sort.cpp pick_weighted_value, row for row.
template <typename Out>
__global__ void pick_kernel(PickTable t, double W, double q, bool average, Out* out) {
  const int64_t n = t.k;
  const int64_t pos = static_cast<int64_t>(ceil(q * W));
  const int64_t i = walk_stop(t, static_cast<double>(pos));
  const int64_t cum = static_cast<int64_t>(t.cum[i]);
  const auto at = [&](int64_t r) { return r < n ? r : n - 1; };  // guards i + 1 at the end
  double r;
  if (t.wt[i] != 0) {
    if (average && pos < n - 1) {
      if (pos < cum)
        r = t.val[i];
      else if (t.wt[at(i + 1)] != 0)
        r = (t.val[i] + t.val[at(i + 1)]) / 2.0;
      else
        r = (t.val[i] + t.val[at(i + 2)]) / 2.0;
    } else {
      r = t.val[i];
    }
  } else {
    r = i + 1 < n ? t.val[i + 1] : t.val[i - 1 > 0 ? i - 1 : 0];
  }
  *out = static_cast<Out>(r);
}

// kernels/cpu/sort.cpp inter_quartile_mean: the rows its two walks stop at.
__global__ void iqm_bounds_kernel(PickTable t, double W, int64_t* bounds) {
  const double q25i = ceil(0.25 * W), q75i = ceil(0.75 * W);
  const int64_t i25 = walk_stop(t, q25i);
  bounds[0] = i25;
  bounds[1] = t.cum[i25] >= q75i ? i25 : walk_stop(t, q75i);
}

__global__ void products_kernel(PickTable t, int64_t begin, int64_t count, double* __restrict__ p) {
  for (int64_t i = detail::global_thread(); i < count; i += detail::grid_stride())
    p[i] = t.val[begin + i] * t.wt[begin + i];
}

__global__ void iqm_finish_kernel(PickTable t, double W, int64_t i25, int64_t i75,
                                  const double* __restrict__ sum, double* out) {
  const double q25_part = t.cum[i25] - 0.25 * W, q75_part = t.cum[i75] - 0.75 * W;
  *out = (*sum + q25_part * t.val[i25] - q75_part * t.val[i75]) / (W * 0.5);
}

// ---- unique and countDistinct ----

template <typename T>
__global__ void keys_colmajor_kernel(const T* __restrict__ x, int64_t m, int64_t n,
                                     uint64_t* __restrict__ keys) {
  const int64_t total = m * n;
  for (int64_t i = detail::global_thread(); i < total; i += detail::grid_stride()) {
    const int64_t c = i / m, r = i - c * m;
    keys[i] = java_key(static_cast<double>(x[r * n + c]));
  }
}

template <typename T>
__global__ void mark_zero_kernel(const T* __restrict__ x, int64_t n, uint64_t* slot) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    if (x[i] == T(0)) *slot = java_key(0.0);  // every writer writes the same value
}

__global__ void set_key_kernel(uint64_t* dst, const uint64_t* src) {
  *dst = src != nullptr ? *src : java_key(0.0);
}

__global__ void index_segments_kernel(int64_t n, int64_t inner, bool by_row,
                                      int64_t* __restrict__ seg) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    seg[i] = by_row ? i / inner : i % inner;
}

template <typename I>
__global__ void csr_row_segments_kernel(const I* __restrict__ rp, int64_t m,
                                        int64_t* __restrict__ seg) {
  for (int64_t r = detail::global_thread(); r < m; r += detail::grid_stride())
    for (int64_t p = rp[r]; p < static_cast<int64_t>(rp[r + 1]); ++p) seg[p] = r;
}

template <typename I>
__global__ void csr_col_segments_kernel(const I* __restrict__ ci, int64_t nnz,
                                        int64_t* __restrict__ seg) {
  for (int64_t p = detail::global_thread(); p < nnz; p += detail::grid_stride())
    seg[p] = static_cast<int64_t>(ci[p]);
}

__global__ void gather_segments_kernel(const int64_t* __restrict__ seg,
                                       const int64_t* __restrict__ perm, int64_t n,
                                       int64_t* __restrict__ out) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    out[i] = seg[perm[i]];
}

// True when perm[i] starts a new (seg, key) group of the sorted perm.
__device__ __forceinline__ bool group_start(const uint64_t* keys, const int64_t* seg,
                                            const int64_t* perm, int64_t i) {
  if (i == 0) return true;
  const int64_t a = perm[i - 1], b = perm[i];
  return keys[a] != keys[b] || (seg != nullptr && seg[a] != seg[b]);
}

__global__ void count_distinct_kernel(const uint64_t* __restrict__ keys,
                                      const int64_t* __restrict__ seg,
                                      const int64_t* __restrict__ perm, int64_t n,
                                      unsigned long long* __restrict__ counts) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    if (group_start(keys, seg, perm, i))
      atomicAdd(&counts[seg != nullptr ? seg[perm[i]] : 0], 1ULL);
}

template <typename T>
__global__ void cast_kernel(const double* __restrict__ in, int64_t n, T* __restrict__ out) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    out[i] = static_cast<T>(in[i]);
}

template <typename T>
__global__ void kmv_bucket_keys_kernel(const T* __restrict__ x, int64_t n, int32_t M,
                                       uint64_t* __restrict__ keys) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    keys[i] = java_key(kmv::bucket(static_cast<double>(x[i]), M));
}

// rank: the exclusive scan of the group starts. kth[s] = the value of segment s's k-th distinct
// key, where it has one.
__global__ void kmv_kth_kernel(const uint64_t* __restrict__ keys, const int64_t* __restrict__ seg,
                               const int64_t* __restrict__ perm, int64_t n, int64_t len, int64_t k,
                               const int64_t* __restrict__ rank, double* __restrict__ kth) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride()) {
    const int64_t s = i / len;
    if (group_start(keys, seg, perm, i) && rank[i] - rank[s * len] == k - 1)
      kth[s] = key_value(keys[perm[i]]);
  }
}

__global__ void kmv_estimate_kernel(const uint64_t* __restrict__ keys,
                                    const int64_t* __restrict__ seg,
                                    const int64_t* __restrict__ perm, int64_t num_segs, int64_t len,
                                    int64_t k, int64_t D, int32_t M,
                                    const int64_t* __restrict__ rank,
                                    const double* __restrict__ kth, double* __restrict__ est) {
  for (int64_t s = detail::global_thread(); s < num_segs; s += detail::grid_stride()) {
    const int64_t first = s * len, last = first + len - 1;
    const int64_t distinct =
        rank[last] - rank[first] + (group_start(keys, seg, perm, last) ? 1 : 0);
    est[s] = kmv::estimate(distinct, k, kth[s], D, M);
  }
}

template <typename T>
__global__ void counts_to_values_kernel(const unsigned long long* __restrict__ c, int64_t n,
                                        T* __restrict__ out) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    out[i] = static_cast<T>(c[i]);
}

__global__ void first_flags_kernel(const uint64_t* __restrict__ keys,
                                   const int64_t* __restrict__ seg,
                                   const int64_t* __restrict__ perm, int64_t n,
                                   int64_t* __restrict__ f) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    f[i] = group_start(keys, seg, perm, i) ? 1 : 0;
}

// slot: exclusive scan of the flags; total goes to *num.
__global__ void compact_firsts_kernel(const uint64_t* __restrict__ keys,
                                      const int64_t* __restrict__ seg,
                                      const int64_t* __restrict__ perm, int64_t n,
                                      const int64_t* __restrict__ slot,
                                      int64_t* __restrict__ positions, int64_t* num) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride()) {
    const bool first = group_start(keys, seg, perm, i);
    if (first) positions[slot[i]] = perm[i];
    if (i == n - 1) *num = slot[i] + (first ? 1 : 0);
  }
}

__global__ void values_at_kernel(const uint64_t* __restrict__ keys,
                                 const int64_t* __restrict__ positions, int64_t n,
                                 double* __restrict__ out) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    out[i] = key_value(keys[positions[i]]);
}

// In-place exclusive sum of n int64 flags (n >= 1).
void exclusive_sum(int64_t* f, int64_t n, Scratch& scratch, cudaStream_t stream, const char* what) {
  size_t bytes = 0;
  DMLRT_CHECK_CTX(cub::DeviceScan::ExclusiveSum(nullptr, bytes, f, f, n, stream),
                  what << " workspace n=" << n);
  void* temp = scratch.allocate(bytes, "scan workspace");
  DMLRT_CHECK_CTX(cub::DeviceScan::ExclusiveSum(temp, bytes, f, f, n, stream), what << " n=" << n);
}

void sum_doubles(const double* in, int64_t n, double* out, Scratch& scratch, cudaStream_t stream,
                 const char* what) {
  size_t bytes = 0;
  DMLRT_CHECK_CTX(cub::DeviceReduce::Sum(nullptr, bytes, in, out, n, stream),
                  what << " workspace n=" << n);
  void* temp = scratch.allocate(bytes, "reduce workspace");
  DMLRT_CHECK_CTX(cub::DeviceReduce::Sum(temp, bytes, in, out, n, stream), what << " n=" << n);
}

}  // namespace

// ---- rsort ----

template <typename T>
void sort_rows_permutation(const T* x, int64_t m, int64_t n, const std::vector<int64_t>& by,
                           bool decreasing, int64_t* perm, Scratch& scratch, cudaStream_t stream) {
  if (m == 0) return;
  launch_iota(perm, m, stream);
  if (m == 1) return;
  uint64_t* k0 = scratch.allocate_n<uint64_t>(static_cast<size_t>(m), "sort keys");
  uint64_t* k1 = scratch.allocate_n<uint64_t>(static_cast<size_t>(m), "sort keys (alternate)");
  int64_t* p1 = scratch.allocate_n<int64_t>(static_cast<size_t>(m), "sort permutation (alternate)");
  cub::DoubleBuffer<uint64_t> keys(k0, k1);
  cub::DoubleBuffer<int64_t> vals(perm, p1);
  const uint64_t flip = decreasing ? ~0ULL : 0ULL;
  for (auto c = by.rbegin(); c != by.rend(); ++c) {
    column_keys_kernel<T><<<detail::grid_for(m), detail::kThreads, 0, stream>>>(
        x, m, n, *c, vals.Current(), flip, keys.Current());
    check_launch("rsort column keys", m);
    radix_sort_pairs(keys, vals, m, 64, scratch, stream, "rsort radix sort");
  }
  if (vals.Current() != perm)
    DMLRT_CHECK(cudaMemcpyAsync(perm, vals.Current(), static_cast<size_t>(m) * sizeof(int64_t),
                                cudaMemcpyDeviceToDevice, stream));
}

template <typename T>
void launch_gather_rows(const T* x, int64_t m, int64_t n, const int64_t* perm, T* out,
                        cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  gather_rows_kernel<T>
      <<<detail::grid_for(m * n), detail::kThreads, 0, stream>>>(x, m, n, perm, out);
  check_launch("rsort gather rows", m * n);
}

template <typename T>
void launch_one_based(const int64_t* perm, int64_t m, T* out, cudaStream_t stream) {
  if (m == 0) return;
  one_based_kernel<T><<<detail::grid_for(m), detail::kThreads, 0, stream>>>(perm, m, out);
  check_launch("rsort index", m);
}

// ---- qsort ----

template <typename T>
void sort_values(const T* x, int64_t m, T* out, Scratch& scratch, cudaStream_t stream) {
  if (m == 0) return;
  uint64_t* k0 = scratch.allocate_n<uint64_t>(static_cast<size_t>(m), "sort keys");
  uint64_t* k1 = scratch.allocate_n<uint64_t>(static_cast<size_t>(m), "sort keys (alternate)");
  keys_kernel<T><<<detail::grid_for(m), detail::kThreads, 0, stream>>>(x, m, k0);
  check_launch("qsort keys", m);
  cub::DoubleBuffer<uint64_t> keys(k0, k1);
  size_t bytes = 0;
  DMLRT_CHECK_CTX(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, m, 0, 64, stream),
                  "qsort radix sort workspace n=" << m);
  void* temp = scratch.allocate(bytes, "radix sort workspace");
  DMLRT_CHECK_CTX(cub::DeviceRadixSort::SortKeys(temp, bytes, keys, m, 0, 64, stream),
                  "qsort radix sort n=" << m);
  values_of_keys_kernel<T>
      <<<detail::grid_for(m), detail::kThreads, 0, stream>>>(keys.Current(), m, out);
  check_launch("qsort values", m);
}

template <typename T>
void launch_count_nonzero(const T* x, int64_t m, unsigned long long* count, cudaStream_t stream) {
  DMLRT_CHECK(cudaMemsetAsync(count, 0, sizeof(unsigned long long), stream));
  if (m == 0) return;
  count_nonzero_kernel<T><<<detail::grid_for(m), detail::kThreads, 0, stream>>>(x, m, count);
  check_launch("count nonzero", m);
}

template <typename T>
void sort_weighted(const T* x, const T* w, int64_t m, int64_t nonzeros, T* table, Scratch& scratch,
                   cudaStream_t stream) {
  double* zero_sum = scratch.allocate_n<double>(1, "zero weight sum");
  DMLRT_CHECK(cudaMemsetAsync(zero_sum, 0, sizeof(double), stream));
  const size_t nz = static_cast<size_t>(nonzeros);
  uint64_t* k0 = scratch.allocate_n<uint64_t>(nz, "sort keys");
  uint64_t* k1 = scratch.allocate_n<uint64_t>(nz, "sort keys (alternate)");
  int64_t* s0 = scratch.allocate_n<int64_t>(nz, "sort sources");
  int64_t* s1 = scratch.allocate_n<int64_t>(nz, "sort sources (alternate)");
  cub::DoubleBuffer<uint64_t> keys(k0, k1);
  cub::DoubleBuffer<int64_t> src(s0, s1);
  if (m > 0) {
    int64_t* slot = scratch.allocate_n<int64_t>(static_cast<size_t>(m), "nonzero slots");
    double* zero_w = scratch.allocate_n<double>(static_cast<size_t>(m), "zero weights");
    nonzero_flags_kernel<T><<<detail::grid_for(m), detail::kThreads, 0, stream>>>(x, m, slot);
    check_launch("qsort nonzero flags", m);
    exclusive_sum(slot, m, scratch, stream, "qsort nonzero scan");
    weighted_split_kernel<T>
        <<<detail::grid_for(m), detail::kThreads, 0, stream>>>(x, w, m, slot, k0, s0, zero_w);
    check_launch("qsort weighted split", m);
    sum_doubles(zero_w, m, zero_sum, scratch, stream, "qsort zero weights");
    if (nonzeros > 1)
      radix_sort_pairs(keys, src, nonzeros, 64, scratch, stream, "qsort radix sort");
  }
  weighted_table_kernel<T><<<detail::grid_for(nonzeros + 1), detail::kThreads, 0, stream>>>(
      x, w, keys.Current(), src.Current(), nonzeros, zero_sum, table);
  check_launch("qsort weighted table", nonzeros + 1);
}

// ---- qpick ----

PickTable alloc_pick_table(int64_t k, Scratch& scratch) {
  PickTable t;
  t.k = k;
  const size_t n = static_cast<size_t>(k);
  t.val = scratch.allocate_n<double>(n, "pick values");
  t.wt = scratch.allocate_n<double>(n, "pick weights");
  t.cum = scratch.allocate_n<double>(n, "pick running weight");
  t.cmax = scratch.allocate_n<double>(n, "pick running maximum");
  return t;
}

template <typename T>
void build_zero_row_table(const T* x, int64_t m, int64_t nonzeros, const PickTable& t,
                          Scratch& scratch, cudaStream_t stream) {
  unsigned long long* first = scratch.allocate_n<unsigned long long>(1, "first non-negative");
  DMLRT_CHECK(cudaMemsetAsync(first, 0xff, sizeof(unsigned long long), stream));
  int64_t* slot = scratch.allocate_n<int64_t>(static_cast<size_t>(m), "nonzero slots");
  if (m > 0) {
    zero_row_flags_kernel<T>
        <<<detail::grid_for(m), detail::kThreads, 0, stream>>>(x, m, slot, first);
    check_launch("qpick flags", m);
    exclusive_sum(slot, m, scratch, stream, "qpick nonzero scan");
  }
  zero_row_fill_kernel<T><<<detail::grid_for(m), detail::kThreads, 0, stream>>>(
      x, m, slot, first, nonzeros, t.val, t.wt);
  check_launch("qpick table", m);
}

template <typename T>
void build_weighted_table(const T* x, const PickTable& t, cudaStream_t stream) {
  if (t.k == 0) return;
  weighted_table_split_kernel<T>
      <<<detail::grid_for(t.k), detail::kThreads, 0, stream>>>(x, t.k, t.val, t.wt);
  check_launch("qpick weighted table", t.k);
}

template <typename T>
void build_unit_table(const T* x, const PickTable& t, cudaStream_t stream) {
  if (t.k == 0) return;
  unit_table_kernel<T><<<detail::grid_for(t.k), detail::kThreads, 0, stream>>>(x, t.k, t.val, t.wt);
  check_launch("qpick unit table", t.k);
}

void launch_first_noninteger(const PickTable& t, unsigned long long* first, cudaStream_t stream) {
  DMLRT_CHECK(cudaMemsetAsync(first, 0xff, sizeof(unsigned long long), stream));
  if (t.k == 0) return;
  first_noninteger_kernel<<<detail::grid_for(t.k), detail::kThreads, 0, stream>>>(t.wt, t.k, first);
  check_launch("qpick weight check", t.k);
}

void sum_weights(const PickTable& t, double* sum, Scratch& scratch, cudaStream_t stream) {
  if (t.k == 0) {
    DMLRT_CHECK(cudaMemsetAsync(sum, 0, sizeof(double), stream));
    return;
  }
  sum_doubles(t.wt, t.k, sum, scratch, stream, "qpick weight sum");
}

void scan_weights(const PickTable& t, Scratch& scratch, cudaStream_t stream) {
  if (t.k == 0) return;
  size_t bytes = 0;
  DMLRT_CHECK_CTX(cub::DeviceScan::InclusiveSum(nullptr, bytes, t.wt, t.cum, t.k, stream),
                  "qpick weight scan workspace k=" << t.k);
  size_t max_bytes = 0;
  DMLRT_CHECK_CTX(
      cub::DeviceScan::InclusiveScan(nullptr, max_bytes, t.cum, t.cmax, MaxOp{}, t.k, stream),
      "qpick running maximum workspace k=" << t.k);
  void* temp = scratch.allocate(bytes > max_bytes ? bytes : max_bytes, "scan workspace");
  DMLRT_CHECK_CTX(cub::DeviceScan::InclusiveSum(temp, bytes, t.wt, t.cum, t.k, stream),
                  "qpick weight scan k=" << t.k);
  DMLRT_CHECK_CTX(
      cub::DeviceScan::InclusiveScan(temp, max_bytes, t.cum, t.cmax, MaxOp{}, t.k, stream),
      "qpick running maximum k=" << t.k);
}

template <typename Out>
void launch_pick(const PickTable& t, double W, double q, bool average, Out* out,
                 cudaStream_t stream) {
  pick_kernel<Out><<<1, 1, 0, stream>>>(t, W, q, average, out);
  check_launch("qpick pick", t.k);
}

void launch_iqm_bounds(const PickTable& t, double W, int64_t* bounds, cudaStream_t stream) {
  iqm_bounds_kernel<<<1, 1, 0, stream>>>(t, W, bounds);
  check_launch("qpick IQM bounds", t.k);
}

void iqm_finish(const PickTable& t, double W, int64_t i25, int64_t i75, double* out,
                Scratch& scratch, cudaStream_t stream) {
  double* sum = scratch.allocate_n<double>(1, "IQM sum");
  const int64_t count = i75 - i25;
  if (count > 0) {
    double* p = scratch.allocate_n<double>(static_cast<size_t>(count), "IQM products");
    products_kernel<<<detail::grid_for(count), detail::kThreads, 0, stream>>>(t, i25 + 1, count, p);
    check_launch("qpick IQM products", count);
    sum_doubles(p, count, sum, scratch, stream, "qpick IQM sum");
  } else {
    DMLRT_CHECK(cudaMemsetAsync(sum, 0, sizeof(double), stream));
  }
  iqm_finish_kernel<<<1, 1, 0, stream>>>(t, W, i25, i75, sum, out);
  check_launch("qpick IQM", t.k);
}

// ---- unique and countDistinct ----

template <typename T>
void launch_java_keys(const T* x, int64_t count, uint64_t* keys, cudaStream_t stream) {
  if (count == 0) return;
  keys_kernel<T><<<detail::grid_for(count), detail::kThreads, 0, stream>>>(x, count, keys);
  check_launch("java keys", count);
}

template <typename T>
void launch_java_keys_colmajor(const T* x, int64_t m, int64_t n, uint64_t* keys,
                               cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  keys_colmajor_kernel<T><<<detail::grid_for(m * n), detail::kThreads, 0, stream>>>(x, m, n, keys);
  check_launch("java keys (column-major)", m * n);
}

template <typename T>
void launch_mark_zero(const T* x, int64_t count, uint64_t* slot, cudaStream_t stream) {
  if (count == 0) return;
  mark_zero_kernel<T><<<detail::grid_for(count), detail::kThreads, 0, stream>>>(x, count, slot);
  check_launch("mark zero", count);
}

void launch_set_key(uint64_t* dst, const uint64_t* src, cudaStream_t stream) {
  set_key_kernel<<<1, 1, 0, stream>>>(dst, src);
  check_launch("set key", 1);
}

void launch_index_segments(int64_t count, int64_t inner, bool by_row, int64_t* seg,
                           cudaStream_t stream) {
  if (count == 0) return;
  index_segments_kernel<<<detail::grid_for(count), detail::kThreads, 0, stream>>>(count, inner,
                                                                                  by_row, seg);
  check_launch("index segments", count);
}

template <typename I>
void launch_csr_segments(const I* row_ptr, const I* col_idx, int64_t m, int64_t nnz, bool by_row,
                         int64_t* seg, cudaStream_t stream) {
  if (nnz == 0) return;
  if (by_row) {
    csr_row_segments_kernel<I>
        <<<detail::grid_for(m), detail::kThreads, 0, stream>>>(row_ptr, m, seg);
  } else {
    csr_col_segments_kernel<I>
        <<<detail::grid_for(nnz), detail::kThreads, 0, stream>>>(col_idx, nnz, seg);
  }
  check_launch("csr segments", nnz);
}

// Sorted by key (stable, so equal keys keep ascending positions), then by segment (stable again):
// the order (seg, key, position).
void sort_by_segment_and_key(const uint64_t* keys, const int64_t* seg, int64_t count,
                             int64_t num_segs, int64_t* perm, Scratch& scratch,
                             cudaStream_t stream) {
  if (count == 0) return;
  launch_iota(perm, count, stream);
  if (count == 1) return;
  const size_t n = static_cast<size_t>(count);
  uint64_t* k0 = scratch.allocate_n<uint64_t>(n, "sort keys");
  uint64_t* k1 = scratch.allocate_n<uint64_t>(n, "sort keys (alternate)");
  int64_t* p1 = scratch.allocate_n<int64_t>(n, "sort permutation (alternate)");
  DMLRT_CHECK(cudaMemcpyAsync(k0, keys, n * sizeof(uint64_t), cudaMemcpyDeviceToDevice, stream));
  cub::DoubleBuffer<uint64_t> kb(k0, k1);
  cub::DoubleBuffer<int64_t> pb(perm, p1);
  radix_sort_pairs(kb, pb, count, 64, scratch, stream, "distinct radix sort (keys)");
  if (seg != nullptr && num_segs > 1) {
    int64_t* s0 = scratch.allocate_n<int64_t>(n, "sort segments");
    int64_t* s1 = scratch.allocate_n<int64_t>(n, "sort segments (alternate)");
    gather_segments_kernel<<<detail::grid_for(count), detail::kThreads, 0, stream>>>(
        seg, pb.Current(), count, s0);
    check_launch("distinct segments", count);
    cub::DoubleBuffer<int64_t> sb(s0, s1);
    radix_sort_pairs(sb, pb, count, bits_for(num_segs), scratch, stream,
                     "distinct radix sort (segments)");
  }
  if (pb.Current() != perm)
    DMLRT_CHECK(
        cudaMemcpyAsync(perm, pb.Current(), n * sizeof(int64_t), cudaMemcpyDeviceToDevice, stream));
}

void launch_count_distinct(const uint64_t* keys, const int64_t* seg, const int64_t* perm,
                           int64_t count, unsigned long long* counts, int64_t num_segs,
                           cudaStream_t stream) {
  if (num_segs == 0) return;
  DMLRT_CHECK(cudaMemsetAsync(counts, 0, static_cast<size_t>(num_segs) * sizeof(*counts), stream));
  if (count == 0) return;
  count_distinct_kernel<<<detail::grid_for(count), detail::kThreads, 0, stream>>>(keys, seg, perm,
                                                                                  count, counts);
  check_launch("count distinct", count);
}

template <typename T>
void launch_kmv_bucket_keys(const T* x, int64_t count, int32_t M, uint64_t* keys,
                            cudaStream_t stream) {
  if (count == 0) return;
  kmv_bucket_keys_kernel<T>
      <<<detail::grid_for(count), detail::kThreads, 0, stream>>>(x, count, M, keys);
  check_launch("kmv bucket keys", count);
}

void kmv_estimates(const uint64_t* keys, const int64_t* seg, const int64_t* perm, int64_t num_segs,
                   int64_t len, int64_t k, int64_t D, int32_t M, double* est, Scratch& scratch,
                   cudaStream_t stream) {
  if (num_segs == 0 || len == 0) return;
  const int64_t count = num_segs * len;
  int64_t* rank = scratch.allocate_n<int64_t>(static_cast<size_t>(count), "kmv ranks");
  first_flags_kernel<<<detail::grid_for(count), detail::kThreads, 0, stream>>>(keys, seg, perm,
                                                                               count, rank);
  check_launch("kmv flags", count);
  exclusive_sum(rank, count, scratch, stream, "kmv rank scan");
  double* kth = scratch.allocate_n<double>(static_cast<size_t>(num_segs), "kmv k-th values");
  DMLRT_CHECK(cudaMemsetAsync(kth, 0, static_cast<size_t>(num_segs) * sizeof(double), stream));
  kmv_kth_kernel<<<detail::grid_for(count), detail::kThreads, 0, stream>>>(keys, seg, perm, count,
                                                                           len, k, rank, kth);
  check_launch("kmv k-th values", count);
  kmv_estimate_kernel<<<detail::grid_for(num_segs), detail::kThreads, 0, stream>>>(
      keys, seg, perm, num_segs, len, k, D, M, rank, kth, est);
  check_launch("kmv estimates", num_segs);
}

template <typename T>
void launch_estimates_to_values(const double* est, int64_t n, T* out, cudaStream_t stream) {
  if (n == 0) return;
  cast_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, stream>>>(est, n, out);
  check_launch("kmv estimates to values", n);
}

template <typename T>
void launch_counts_to_values(const unsigned long long* counts, int64_t n, T* out,
                             cudaStream_t stream) {
  if (n == 0) return;
  counts_to_values_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, stream>>>(counts, n, out);
  check_launch("counts to values", n);
}

void select_first_positions(const uint64_t* keys, const int64_t* seg, const int64_t* perm,
                            int64_t count, int64_t* positions, int64_t* num, Scratch& scratch,
                            cudaStream_t stream) {
  if (count == 0) {
    DMLRT_CHECK(cudaMemsetAsync(num, 0, sizeof(int64_t), stream));
    return;
  }
  const size_t n = static_cast<size_t>(count);
  int64_t* slot = scratch.allocate_n<int64_t>(n, "distinct slots");
  first_flags_kernel<<<detail::grid_for(count), detail::kThreads, 0, stream>>>(keys, seg, perm,
                                                                               count, slot);
  check_launch("distinct flags", count);
  exclusive_sum(slot, count, scratch, stream, "distinct scan");
  // Unselected entries stay above every position (0x7f7f...), so sorting all `count` entries
  // puts the *num selected ones first, ascending.
  int64_t* sel = scratch.allocate_n<int64_t>(n, "distinct positions");
  DMLRT_CHECK(cudaMemsetAsync(sel, 0x7f, n * sizeof(int64_t), stream));
  compact_firsts_kernel<<<detail::grid_for(count), detail::kThreads, 0, stream>>>(
      keys, seg, perm, count, slot, sel, num);
  check_launch("distinct compact", count);
  size_t bytes = 0;
  DMLRT_CHECK_CTX(
      cub::DeviceRadixSort::SortKeys(nullptr, bytes, sel, positions, count, 0, 64, stream),
      "distinct position sort workspace n=" << count);
  void* temp = scratch.allocate(bytes, "radix sort workspace");
  DMLRT_CHECK_CTX(cub::DeviceRadixSort::SortKeys(temp, bytes, sel, positions, count, 0, 64, stream),
                  "distinct position sort n=" << count);
}

void launch_values_at(const uint64_t* keys, const int64_t* positions, int64_t count, double* out,
                      cudaStream_t stream) {
  if (count == 0) return;
  values_at_kernel<<<detail::grid_for(count), detail::kThreads, 0, stream>>>(keys, positions, count,
                                                                             out);
  check_launch("distinct values", count);
}

// ---- explicit instantiations ----

#define DMLRT_SORT_INSTANTIATE(T)                                                                  \
  template void sort_rows_permutation<T>(const T*, int64_t, int64_t, const std::vector<int64_t>&,  \
                                         bool, int64_t*, Scratch&, cudaStream_t);                  \
  template void launch_gather_rows<T>(const T*, int64_t, int64_t, const int64_t*, T*,              \
                                      cudaStream_t);                                               \
  template void launch_one_based<T>(const int64_t*, int64_t, T*, cudaStream_t);                    \
  template void sort_values<T>(const T*, int64_t, T*, Scratch&, cudaStream_t);                     \
  template void launch_count_nonzero<T>(const T*, int64_t, unsigned long long*, cudaStream_t);     \
  template void sort_weighted<T>(const T*, const T*, int64_t, int64_t, T*, Scratch&,               \
                                 cudaStream_t);                                                    \
  template void build_zero_row_table<T>(const T*, int64_t, int64_t, const PickTable&, Scratch&,    \
                                        cudaStream_t);                                             \
  template void build_weighted_table<T>(const T*, const PickTable&, cudaStream_t);                 \
  template void build_unit_table<T>(const T*, const PickTable&, cudaStream_t);                     \
  template void launch_pick<T>(const PickTable&, double, double, bool, T*, cudaStream_t);          \
  template void launch_java_keys<T>(const T*, int64_t, uint64_t*, cudaStream_t);                   \
  template void launch_java_keys_colmajor<T>(const T*, int64_t, int64_t, uint64_t*, cudaStream_t); \
  template void launch_mark_zero<T>(const T*, int64_t, uint64_t*, cudaStream_t);                   \
  template void launch_counts_to_values<T>(const unsigned long long*, int64_t, T*, cudaStream_t); \
  template void launch_kmv_bucket_keys<T>(const T*, int64_t, int32_t, uint64_t*, cudaStream_t);    \
  template void launch_estimates_to_values<T>(const double*, int64_t, T*, cudaStream_t);

DMLRT_SORT_INSTANTIATE(double)
DMLRT_SORT_INSTANTIATE(float)
#undef DMLRT_SORT_INSTANTIATE

template void launch_csr_segments<int32_t>(const int32_t*, const int32_t*, int64_t, int64_t, bool,
                                           int64_t*, cudaStream_t);
template void launch_csr_segments<int64_t>(const int64_t*, const int64_t*, int64_t, int64_t, bool,
                                           int64_t*, cudaStream_t);

}  // namespace dmlrt::kernels::cuda
