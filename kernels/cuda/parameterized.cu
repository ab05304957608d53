// Parameterized-builtin kernel family: contains, replace, and the one-entry-per-row CSR builder
// of rexpand and ctableexpand; see parameterized.h, Note [One entry per row].
#include <algorithm>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/parameterized.h"
#include "kernels/cuda/java_cast.cuh"

namespace dmlrt::kernels::cuda {
namespace {

__device__ __forceinline__ bool matches(double x, double pattern, bool nan_pattern) {
  return nan_pattern ? isnan(x) : x == pattern;
}

// One flag per block: a block that saw a match sets *found (all store 1).
template <typename T>
__global__ void contains_kernel(const T* __restrict__ v, int64_t n, double pattern,
                                bool nan_pattern, int32_t* __restrict__ found) {
  bool hit = false;
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    hit |= matches(static_cast<double>(v[i]), pattern, nan_pattern);
  if (__syncthreads_or(hit) && threadIdx.x == 0) *found = 1;
}

template <typename T>
__global__ void replace_kernel(const T* in, int64_t n, double pattern, bool nan_pattern,
                               T replacement, T* out) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride()) {
    const T x = in[i];
    out[i] = matches(static_cast<double>(x), pattern, nan_pattern) ? replacement : x;
  }
}

// One thread per row (grid-stride), entries walked in order.
template <typename T>
__global__ void replace_csr_counts_kernel(const int32_t* __restrict__ rp, const T* __restrict__ v,
                                          int64_t m, double pattern, bool nan_pattern,
                                          int32_t* __restrict__ out_rp) {
  for (int64_t r = detail::global_thread(); r < m; r += detail::grid_stride()) {
    int32_t k = 0;
    for (int32_t p = rp[r]; p < rp[r + 1]; ++p)
      k += matches(static_cast<double>(v[p]), pattern, nan_pattern) ? 0 : 1;
    out_rp[r + 1] = k;
    if (r == 0) out_rp[0] = 0;
  }
}

template <typename T>
__global__ void replace_csr_fill_kernel(const int32_t* __restrict__ rp,
                                        const int32_t* __restrict__ ci, const T* __restrict__ v,
                                        int64_t m, double pattern, bool nan_pattern,
                                        const int32_t* __restrict__ out_rp,
                                        int32_t* __restrict__ out_ci, T* __restrict__ out_v) {
  for (int64_t r = detail::global_thread(); r < m; r += detail::grid_stride()) {
    int32_t o = out_rp[r];
    for (int32_t p = rp[r]; p < rp[r + 1]; ++p) {
      if (matches(static_cast<double>(v[p]), pattern, nan_pattern)) continue;
      out_ci[o] = ci[p];
      out_v[o] = v[p];
      ++o;
    }
  }
}

// Row i of Note [One entry per row]: its 1-based index c (> 0 when it gets an entry), whether
// the value is invalid, whether the entry stays in range, and its value.
struct OneHotRow {
  int64_t c = 0;
  bool skip = false;     // no entry, no error (NaN in ctableexpand)
  bool invalid = false;  // an error unless the caller ignores it (rexpand ignore=true)
  bool in_range = false;
  double value = 0;
};

template <typename T>
__device__ OneHotRow onehot_row(const T* __restrict__ v, const T* __restrict__ w,
                                const OneHotArgs& a, int64_t i) {
  OneHotRow row;
  const double x = static_cast<double>(v[i]);
  if (a.mode == OneHotMode::kCtableExpand) {
    const double wv = w != nullptr ? static_cast<double>(w[i]) : a.w_scalar;
    if (isnan(x) || isnan(wv)) {
      row.skip = true;
      return row;
    }
    row.c = detail::java_to_long(x);
    row.invalid = row.c <= 0;
    row.in_range = !row.invalid && (a.limit < 0 || row.c <= a.limit);
    row.value = wv;
    return row;
  }
  const double c = a.mode == OneHotMode::kRexpandCast
                       ? static_cast<double>(detail::java_to_long(x))
                       : trunc(x);
  if (isnan(x) || c <= 0) {
    row.invalid = true;
    return row;
  }
  row.in_range = c <= static_cast<double>(a.limit);
  row.c = row.in_range ? static_cast<int64_t>(c) : 0;
  row.value = 1.0;
  return row;
}

template <typename T>
__global__ void onehot_flags_kernel(const T* __restrict__ v, const T* __restrict__ w,
                                    OneHotArgs a, int32_t* __restrict__ out_rp,
                                    unsigned long long* __restrict__ stats) {
  for (int64_t i = detail::global_thread(); i < a.m; i += detail::grid_stride()) {
    const OneHotRow row = onehot_row(v, w, a, i);
    if (row.invalid) atomicMin(&stats[0], static_cast<unsigned long long>(i));
    if (row.in_range && a.mode == OneHotMode::kCtableExpand)  // only table() sizes by it
      atomicMax(&stats[1], static_cast<unsigned long long>(row.c));
    out_rp[i + 1] = row.in_range && row.value != 0.0 ? 1 : 0;
    if (i == 0) out_rp[0] = 0;
  }
}

template <typename T>
__global__ void onehot_fill_kernel(const T* __restrict__ v, const T* __restrict__ w, OneHotArgs a,
                                   const int32_t* __restrict__ out_rp,
                                   int32_t* __restrict__ out_ci, T* __restrict__ out_v) {
  for (int64_t i = detail::global_thread(); i < a.m; i += detail::grid_stride()) {
    const int32_t o = out_rp[i];
    if (out_rp[i + 1] == o) continue;
    const OneHotRow row = onehot_row(v, w, a, i);
    out_ci[o] = static_cast<int32_t>(row.c - 1);
    out_v[o] = static_cast<T>(row.value);
  }
}

// Java's (int) cast, which saturates; NaN -> 0 (kernels/cpu grouped_aggregate).
__device__ __forceinline__ int64_t java_int(double g) {
  if (isnan(g)) return 0;
  if (g >= 2147483647.0) return 2147483647;
  if (g <= -2147483648.0) return -2147483648LL;
  return static_cast<int64_t>(g);
}

template <typename T>
__global__ void group_ids_scan_kernel(const T* __restrict__ groups, int64_t m,
                                      unsigned long long* __restrict__ stats) {
  unsigned long long bad = ~0ull;
  int64_t max_g = 0;
  for (int64_t i = detail::global_thread(); i < m; i += detail::grid_stride()) {
    const int64_t g = java_int(static_cast<double>(groups[i]));
    if (g < 1 && bad == ~0ull) bad = static_cast<unsigned long long>(i);
    max_g = g > max_g ? g : max_g;
  }
  if (bad != ~0ull) atomicMin(&stats[0], bad);
  if (max_g > 0) atomicMax(&stats[1], static_cast<unsigned long long>(max_g));
}

template <typename T>
__global__ void grouped_sums_kernel(const T* __restrict__ x, const T* __restrict__ w,
                                    const T* __restrict__ groups, int64_t m, int64_t n, int64_t k,
                                    double* __restrict__ sum, double* __restrict__ wsum) {
  const int64_t total = m * n;
  const int64_t start = detail::global_thread();
  if (start >= total) return;
  detail::RowColWalk rc(start, detail::grid_stride(), n);
  for (int64_t i = start; i < total; i += detail::grid_stride(), rc.advance()) {
    const int64_t g = java_int(static_cast<double>(groups[rc.r]));
    if (g > k) continue;  // ids < 1 were raised before
    const double wv = w != nullptr ? static_cast<double>(w[i]) : 1.0;
    const int64_t dst = (g - 1) * n + rc.c;
    atomicAdd(&sum[dst], wv * static_cast<double>(x[i]));
    if (wsum != nullptr) atomicAdd(&wsum[dst], wv);
  }
}

// Few groups (k <= kFewGroups): a thread owns one column over a run of rows and adds into k
// register accumulators (the unrolled compare keeps them in registers), flushed with k atomics
// at its end: n * k * chunks atomics instead of one per cell, which with naiveBayes's 3 classes
// put 33,000 atomics on every address (1.25 ms for a 100000 x 1000 X on the H200, 6x its read).
constexpr int kFewGroups = 8;

template <typename T>
__global__ void grouped_sums_few_kernel(const T* __restrict__ x, const T* __restrict__ w,
                                        const T* __restrict__ groups, int64_t m, int64_t n,
                                        int64_t k, int64_t rows_per_chunk,
                                        double* __restrict__ sum, double* __restrict__ wsum) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= n) return;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * rows_per_chunk;
  const int64_t r1 = r0 + rows_per_chunk < m ? r0 + rows_per_chunk : m;
  double acc[kFewGroups], wacc[kFewGroups];
#pragma unroll
  for (int j = 0; j < kFewGroups; ++j) acc[j] = wacc[j] = 0.0;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t g = java_int(static_cast<double>(groups[r]));
    if (g > k) continue;  // ids < 1 were raised before
    const int64_t i = r * n + c;
    const double wv = w != nullptr ? static_cast<double>(w[i]) : 1.0;
    const double v = wv * static_cast<double>(x[i]);
#pragma unroll
    for (int j = 0; j < kFewGroups; ++j) {
      if (j == g - 1) {
        acc[j] += v;
        wacc[j] += wv;
      }
    }
  }
#pragma unroll
  for (int j = 0; j < kFewGroups; ++j) {
    if (j >= k) break;
    atomicAdd(&sum[j * n + c], acc[j]);
    if (wsum != nullptr) atomicAdd(&wsum[j * n + c], wacc[j]);
  }
}

template <typename T>
__global__ void grouped_finish_kernel(const double* __restrict__ sum,
                                      const double* __restrict__ wsum, int64_t cells,
                                      GroupFinish fn, T* __restrict__ out) {
  for (int64_t i = detail::global_thread(); i < cells; i += detail::grid_stride()) {
    double v = sum[i];
    if (fn == GroupFinish::kCount) v = wsum[i];
    else if (fn == GroupFinish::kMean) v = wsum[i] == 0.0 ? 0.0 : sum[i] / wsum[i];
    out[i] = static_cast<T>(v);
  }
}

}  // namespace

template <typename T>
void launch_group_ids_scan(const T* groups, int64_t m, unsigned long long* stats,
                           cudaStream_t stream) {
  if (m == 0) return;
  group_ids_scan_kernel<T>
      <<<detail::grid_for(m), detail::kThreads, 0, stream>>>(groups, m, stats);
  DMLRT_CHECK_CTX(cudaGetLastError(), "group ids scan m=" << m);
}

template <typename T>
void launch_grouped_sums(const T* x, const T* w, const T* groups, int64_t m, int64_t n, int64_t k,
                         double* sum, double* wsum, cudaStream_t stream) {
  if (m == 0 || n == 0 || k == 0) return;
  if (k <= kFewGroups) {
    // Enough (column, row run) threads to fill the device: about 2^18, runs of >= 64 rows.
    const int64_t col_blocks = (n + detail::kThreads - 1) / detail::kThreads;
    const int64_t want_chunks = std::max<int64_t>(1, (int64_t{1} << 18) / (col_blocks * 256));
    const int64_t rows_per_chunk =
        std::max<int64_t>(64, (m + want_chunks - 1) / want_chunks);
    const int64_t chunks = std::min<int64_t>((m + rows_per_chunk - 1) / rows_per_chunk, 65535);
    const int64_t per_chunk = (m + chunks - 1) / chunks;
    const dim3 grid(static_cast<unsigned>(col_blocks), static_cast<unsigned>(chunks));
    grouped_sums_few_kernel<T><<<grid, detail::kThreads, 0, stream>>>(x, w, groups, m, n, k,
                                                                      per_chunk, sum, wsum);
  } else {
    grouped_sums_kernel<T><<<detail::grid_for(m * n), detail::kThreads, 0, stream>>>(
        x, w, groups, m, n, k, sum, wsum);
  }
  DMLRT_CHECK_CTX(cudaGetLastError(), "grouped sums " << m << "x" << n << " into " << k);
}

template <typename T>
void launch_grouped_finish(const double* sum, const double* wsum, int64_t cells, GroupFinish fn,
                           T* out, cudaStream_t stream) {
  if (cells == 0) return;
  grouped_finish_kernel<T>
      <<<detail::grid_for(cells), detail::kThreads, 0, stream>>>(sum, wsum, cells, fn, out);
  DMLRT_CHECK_CTX(cudaGetLastError(), "grouped finish cells=" << cells);
}

template <typename T>
void launch_contains(const T* v, int64_t n, double pattern, int32_t* found, cudaStream_t stream) {
  if (n == 0) return;
  contains_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, stream>>>(
      v, n, pattern, isnan(pattern), found);
  DMLRT_CHECK_CTX(cudaGetLastError(), "contains n=" << n);
}

template <typename T>
void launch_replace(const T* in, int64_t n, double pattern, double replacement, T* out,
                    cudaStream_t stream) {
  if (n == 0) return;
  replace_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, stream>>>(
      in, n, pattern, isnan(pattern), static_cast<T>(replacement), out);
  DMLRT_CHECK_CTX(cudaGetLastError(), "replace n=" << n);
}

template <typename T>
void launch_replace_csr_counts(const int32_t* rp, const T* v, int64_t m, double pattern,
                               int32_t* out_rp, cudaStream_t stream) {
  if (m == 0) {
    DMLRT_CHECK(cudaMemsetAsync(out_rp, 0, sizeof(int32_t), stream));
    return;
  }
  replace_csr_counts_kernel<T><<<detail::grid_for(m), detail::kThreads, 0, stream>>>(
      rp, v, m, pattern, isnan(pattern), out_rp);
  DMLRT_CHECK_CTX(cudaGetLastError(), "replace csr counts m=" << m);
}

template <typename T>
void launch_replace_csr_fill(const int32_t* rp, const int32_t* ci, const T* v, int64_t m,
                             double pattern, const int32_t* out_rp, int32_t* out_ci, T* out_v,
                             cudaStream_t stream) {
  if (m == 0) return;
  replace_csr_fill_kernel<T><<<detail::grid_for(m), detail::kThreads, 0, stream>>>(
      rp, ci, v, m, pattern, isnan(pattern), out_rp, out_ci, out_v);
  DMLRT_CHECK_CTX(cudaGetLastError(), "replace csr fill m=" << m);
}

template <typename T>
void launch_onehot_flags(const T* v, const T* w, const OneHotArgs& args, int32_t* out_rp,
                         unsigned long long* stats, cudaStream_t stream) {
  if (args.m == 0) {
    DMLRT_CHECK(cudaMemsetAsync(out_rp, 0, sizeof(int32_t), stream));
    return;
  }
  onehot_flags_kernel<T><<<detail::grid_for(args.m), detail::kThreads, 0, stream>>>(
      v, w, args, out_rp, stats);
  DMLRT_CHECK_CTX(cudaGetLastError(), "onehot flags m=" << args.m);
}

template <typename T>
void launch_onehot_fill(const T* v, const T* w, const OneHotArgs& args, const int32_t* out_rp,
                        int32_t* out_ci, T* out_v, cudaStream_t stream) {
  if (args.m == 0) return;
  onehot_fill_kernel<T><<<detail::grid_for(args.m), detail::kThreads, 0, stream>>>(
      v, w, args, out_rp, out_ci, out_v);
  DMLRT_CHECK_CTX(cudaGetLastError(), "onehot fill m=" << args.m);
}

#define DMLRT_PARAMETERIZED_INSTANTIATE(T)                                                     \
  template void launch_contains<T>(const T*, int64_t, double, int32_t*, cudaStream_t);         \
  template void launch_replace<T>(const T*, int64_t, double, double, T*, cudaStream_t);        \
  template void launch_replace_csr_counts<T>(const int32_t*, const T*, int64_t, double,        \
                                             int32_t*, cudaStream_t);                          \
  template void launch_replace_csr_fill<T>(const int32_t*, const int32_t*, const T*, int64_t,  \
                                           double, const int32_t*, int32_t*, T*, cudaStream_t); \
  template void launch_onehot_flags<T>(const T*, const T*, const OneHotArgs&, int32_t*,        \
                                       unsigned long long*, cudaStream_t);                     \
  template void launch_onehot_fill<T>(const T*, const T*, const OneHotArgs&, const int32_t*,   \
                                      int32_t*, T*, cudaStream_t);                           \
  template void launch_group_ids_scan<T>(const T*, int64_t, unsigned long long*, cudaStream_t); \
  template void launch_grouped_sums<T>(const T*, const T*, const T*, int64_t, int64_t, int64_t, \
                                       double*, double*, cudaStream_t);                         \
  template void launch_grouped_finish<T>(const double*, const double*, int64_t, GroupFinish, T*, \
                                         cudaStream_t);
DMLRT_PARAMETERIZED_INSTANTIATE(double)
DMLRT_PARAMETERIZED_INSTANTIATE(float)
#undef DMLRT_PARAMETERIZED_INSTANTIATE

}  // namespace dmlrt::kernels::cuda
