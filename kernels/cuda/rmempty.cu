// rmempty kernel family: flags, scan and gather of removeEmpty; see rmempty.h, Note [GPU rmempty].
#include <cub/device/device_scan.cuh>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/rmempty.h"

namespace dmlrt::kernels::cuda {
namespace {

// Every nonzero cell sets its row's (column's) flag; concurrent stores all write 1.
template <typename T>
__global__ void rmempty_flags_kernel(const T* __restrict__ a, int64_t m, int64_t n, bool rows,
                                     int64_t* __restrict__ keep) {
  const int64_t total = m * n;
  const int64_t start = detail::global_thread();
  if (start >= total) return;
  detail::RowColWalk w(start, detail::grid_stride(), n);
  for (int64_t i = start; i < total; i += detail::grid_stride(), w.advance())
    if (a[i] != T(0)) keep[rows ? w.r : w.c] = 1;  // NaN != 0
}

template <typename T>
void rmempty_flags(const T* a, int64_t m, int64_t n, bool rows, int64_t* keep,
                   cudaStream_t stream) {
  const int64_t len = rows ? m : n;
  DMLRT_CHECK(cudaMemsetAsync(keep, 0, static_cast<size_t>(len + 1) * sizeof(int64_t), stream));
  if (m == 0 || n == 0) return;
  rmempty_flags_kernel<T>
      <<<detail::grid_for(m * n), detail::kThreads, 0, stream>>>(a, m, n, rows, keep);
  DMLRT_CHECK_CTX(cudaGetLastError(), "rmempty_flags " << m << "x" << n);
}

template <typename T>
__global__ void rmempty_select_flags_kernel(const T* __restrict__ s, int64_t len,
                                            int64_t* __restrict__ keep) {
  for (int64_t i = detail::global_thread(); i <= len; i += detail::grid_stride())
    keep[i] = i < len && s[i] != T(0) ? 1 : 0;
}

template <typename T>
void rmempty_select_flags(const T* s, int64_t len, int64_t* keep, cudaStream_t stream) {
  rmempty_select_flags_kernel<T>
      <<<detail::grid_for(len + 1), detail::kThreads, 0, stream>>>(s, len, keep);
  DMLRT_CHECK_CTX(cudaGetLastError(), "rmempty_select_flags len=" << len);
}

// One thread per input cell; a kept row (column) i goes to out row (column) to[i].
template <typename T>
__global__ void rmempty_gather_kernel(const T* __restrict__ a, int64_t m, int64_t n, bool rows,
                                      const int64_t* __restrict__ to, T* __restrict__ out,
                                      int64_t k) {
  const int64_t total = m * n;
  const int64_t start = detail::global_thread();
  if (start >= total) return;
  detail::RowColWalk w(start, detail::grid_stride(), n);
  for (int64_t i = start; i < total; i += detail::grid_stride(), w.advance()) {
    const int64_t idx = rows ? w.r : w.c;
    const int64_t t = to[idx];
    if (to[idx + 1] == t) continue;  // dropped
    if (rows)
      out[t * n + w.c] = a[i];
    else
      out[w.r * k + t] = a[i];
  }
}

template <typename T>
void rmempty_gather(const T* a, int64_t m, int64_t n, bool rows, const int64_t* to, int64_t k,
                    T* out, cudaStream_t stream) {
  if (m == 0 || n == 0 || k == 0) return;
  rmempty_gather_kernel<T>
      <<<detail::grid_for(m * n), detail::kThreads, 0, stream>>>(a, m, n, rows, to, out, k);
  DMLRT_CHECK_CTX(cudaGetLastError(), "rmempty_gather " << m << "x" << n << " k=" << k);
}

// CSR forms: one thread per input row (grid-stride), entries walked in order.
template <typename T>
__global__ void rmempty_csr_flags_kernel(const int32_t* __restrict__ rp,
                                         const int32_t* __restrict__ ci, const T* __restrict__ v,
                                         int64_t m, bool rows, int64_t* __restrict__ keep) {
  for (int64_t r = detail::global_thread(); r < m; r += detail::grid_stride())
    for (int32_t p = rp[r]; p < rp[r + 1]; ++p) {
      if (v[p] == T(0)) continue;  // NaN != 0 keeps
      if (rows) {
        keep[r] = 1;
        break;
      }
      keep[ci[p]] = 1;
    }
}

// Whether entry p of input row r goes to the output: a nonzero value in a kept column (every
// column is kept for margin=rows, whose dropped rows the callers skip).
template <typename T>
__device__ __forceinline__ bool rmempty_takes(const int32_t* ci, const T* v, bool rows,
                                              const int64_t* to, int32_t p) {
  return v[p] != T(0) && (rows || to[ci[p] + 1] != to[ci[p]]);
}

template <typename T>
__global__ void rmempty_csr_counts_kernel(const int32_t* __restrict__ rp,
                                          const int32_t* __restrict__ ci, const T* __restrict__ v,
                                          int64_t m, bool rows, const int64_t* __restrict__ to,
                                          int32_t* __restrict__ out_rp) {
  for (int64_t r = detail::global_thread(); r < m; r += detail::grid_stride()) {
    if (rows && to[r + 1] == to[r]) continue;  // dropped row
    int32_t count = 0;
    for (int32_t p = rp[r]; p < rp[r + 1]; ++p) count += rmempty_takes(ci, v, rows, to, p);
    out_rp[(rows ? to[r] : r) + 1] = count;
  }
}

template <typename T>
__global__ void rmempty_csr_gather_kernel(const int32_t* __restrict__ rp,
                                          const int32_t* __restrict__ ci, const T* __restrict__ v,
                                          int64_t m, bool rows, const int64_t* __restrict__ to,
                                          const int32_t* __restrict__ out_rp,
                                          int32_t* __restrict__ out_ci, T* __restrict__ out_v) {
  for (int64_t r = detail::global_thread(); r < m; r += detail::grid_stride()) {
    if (rows && to[r + 1] == to[r]) continue;
    int32_t o = out_rp[rows ? to[r] : r];
    for (int32_t p = rp[r]; p < rp[r + 1]; ++p) {
      if (!rmempty_takes(ci, v, rows, to, p)) continue;
      out_ci[o] = rows ? ci[p] : static_cast<int32_t>(to[ci[p]]);
      out_v[o] = v[p];
      ++o;
    }
  }
}

template <typename T>
void rmempty_csr_flags(const int32_t* rp, const int32_t* ci, const T* v, int64_t m, int64_t n,
                       bool rows, int64_t* keep, cudaStream_t stream) {
  const int64_t len = rows ? m : n;
  DMLRT_CHECK(cudaMemsetAsync(keep, 0, static_cast<size_t>(len + 1) * sizeof(int64_t), stream));
  if (m == 0) return;
  rmempty_csr_flags_kernel<T>
      <<<detail::grid_for(m), detail::kThreads, 0, stream>>>(rp, ci, v, m, rows, keep);
  DMLRT_CHECK_CTX(cudaGetLastError(), "rmempty_csr_flags m=" << m);
}

template <typename T>
void rmempty_csr_counts(const int32_t* rp, const int32_t* ci, const T* v, int64_t m, bool rows,
                        const int64_t* to, int32_t* out_rp, cudaStream_t stream) {
  if (m == 0) return;
  rmempty_csr_counts_kernel<T>
      <<<detail::grid_for(m), detail::kThreads, 0, stream>>>(rp, ci, v, m, rows, to, out_rp);
  DMLRT_CHECK_CTX(cudaGetLastError(), "rmempty_csr_counts m=" << m);
}

template <typename T>
void rmempty_csr_gather(const int32_t* rp, const int32_t* ci, const T* v, int64_t m, bool rows,
                        const int64_t* to, const int32_t* out_rp, int32_t* out_ci, T* out_v,
                        cudaStream_t stream) {
  if (m == 0) return;
  rmempty_csr_gather_kernel<T><<<detail::grid_for(m), detail::kThreads, 0, stream>>>(
      rp, ci, v, m, rows, to, out_rp, out_ci, out_v);
  DMLRT_CHECK_CTX(cudaGetLastError(), "rmempty_csr_gather m=" << m);
}

}  // namespace

void launch_rmempty_csr_flags(const int32_t* rp, const int32_t* ci, const double* v, int64_t m,
                              int64_t n, bool rows, int64_t* keep, cudaStream_t stream) {
  rmempty_csr_flags(rp, ci, v, m, n, rows, keep, stream);
}
void launch_rmempty_csr_flags(const int32_t* rp, const int32_t* ci, const float* v, int64_t m,
                              int64_t n, bool rows, int64_t* keep, cudaStream_t stream) {
  rmempty_csr_flags(rp, ci, v, m, n, rows, keep, stream);
}
void launch_rmempty_csr_counts(const int32_t* rp, const int32_t* ci, const double* v, int64_t m,
                               bool rows, const int64_t* to, int32_t* out_rp, cudaStream_t stream) {
  rmempty_csr_counts(rp, ci, v, m, rows, to, out_rp, stream);
}
void launch_rmempty_csr_counts(const int32_t* rp, const int32_t* ci, const float* v, int64_t m,
                               bool rows, const int64_t* to, int32_t* out_rp, cudaStream_t stream) {
  rmempty_csr_counts(rp, ci, v, m, rows, to, out_rp, stream);
}
void launch_rmempty_csr_gather(const int32_t* rp, const int32_t* ci, const double* v, int64_t m,
                               bool rows, const int64_t* to, const int32_t* out_rp, int32_t* out_ci,
                               double* out_v, cudaStream_t stream) {
  rmempty_csr_gather(rp, ci, v, m, rows, to, out_rp, out_ci, out_v, stream);
}
void launch_rmempty_csr_gather(const int32_t* rp, const int32_t* ci, const float* v, int64_t m,
                               bool rows, const int64_t* to, const int32_t* out_rp, int32_t* out_ci,
                               float* out_v, cudaStream_t stream) {
  rmempty_csr_gather(rp, ci, v, m, rows, to, out_rp, out_ci, out_v, stream);
}

size_t rmempty_offsets_workspace_bytes(int64_t om) {
  size_t bytes = 0;
  if (om <= 0) return 0;
  DMLRT_CHECK_CTX(cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<int32_t*>(nullptr),
                                                static_cast<int32_t*>(nullptr), om),
                  "rmempty offsets workspace om=" << om);
  return bytes;
}

void launch_rmempty_offsets_scan(int32_t* out_rp, int64_t om, void* workspace,
                                 size_t workspace_bytes, cudaStream_t stream) {
  if (om <= 0) return;
  DMLRT_CHECK_CTX(
      cub::DeviceScan::InclusiveSum(workspace, workspace_bytes, out_rp + 1, out_rp + 1, om, stream),
      "rmempty offsets scan om=" << om);
}

void launch_rmempty_flags(const double* a, int64_t m, int64_t n, bool rows, int64_t* keep,
                          cudaStream_t stream) {
  rmempty_flags(a, m, n, rows, keep, stream);
}
void launch_rmempty_flags(const float* a, int64_t m, int64_t n, bool rows, int64_t* keep,
                          cudaStream_t stream) {
  rmempty_flags(a, m, n, rows, keep, stream);
}
void launch_rmempty_select_flags(const double* s, int64_t len, int64_t* keep, cudaStream_t stream) {
  rmempty_select_flags(s, len, keep, stream);
}
void launch_rmempty_select_flags(const float* s, int64_t len, int64_t* keep, cudaStream_t stream) {
  rmempty_select_flags(s, len, keep, stream);
}

void launch_rmempty_gather(const double* a, int64_t m, int64_t n, bool rows, const int64_t* to,
                           int64_t k, double* out, cudaStream_t stream) {
  rmempty_gather(a, m, n, rows, to, k, out, stream);
}
void launch_rmempty_gather(const float* a, int64_t m, int64_t n, bool rows, const int64_t* to,
                           int64_t k, float* out, cudaStream_t stream) {
  rmempty_gather(a, m, n, rows, to, k, out, stream);
}

size_t rmempty_scan_workspace_bytes(int64_t len) {
  size_t bytes = 0;
  DMLRT_CHECK_CTX(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<int64_t*>(nullptr),
                                                static_cast<int64_t*>(nullptr), len + 1),
                  "rmempty scan workspace len=" << len);
  return bytes;
}

void launch_rmempty_scan(int64_t* keep, int64_t len, void* workspace, size_t workspace_bytes,
                         cudaStream_t stream) {
  DMLRT_CHECK_CTX(
      cub::DeviceScan::ExclusiveSum(workspace, workspace_bytes, keep, keep, len + 1, stream),
      "rmempty scan len=" << len);
}

}  // namespace dmlrt::kernels::cuda
