// CSR kernel family: slices, row reversal, diag and rbind concatenation on device CSR data; see
// csr_ops.h. Row-wise kernels give each row one warp (rows of very different lengths balance
// across warps; lanes read a row's entries coalesced).
#include <cub/device/device_scan.cuh>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/csr_ops.h"
#include "kernels/cuda/kernel_utils.cuh"

namespace dmlrt::kernels::cuda {
namespace {

constexpr unsigned kFullMask = 0xFFFFFFFFu;

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31); }
__device__ __forceinline__ int64_t global_warp() { return detail::global_thread() >> 5; }
__device__ __forceinline__ int64_t warp_stride() { return detail::grid_stride() >> 5; }

// Blocks for one warp per row (the grid-stride loops cover the rest).
int warp_grid(int64_t rows) { return detail::grid_for(rows * 32); }

template <typename I, typename T>
__global__ void csr_slice_to_dense_kernel(const I* __restrict__ rp, const I* __restrict__ ci,
                                          const T* __restrict__ v, int64_t r0, int64_t nrows,
                                          int64_t c0, int64_t c1, T* __restrict__ out) {
  const int64_t ncols = c1 - c0;
  for (int64_t i = global_warp(); i < nrows; i += warp_stride()) {
    const int64_t b = rp[r0 + i], e = rp[r0 + i + 1];
    for (int64_t k = b + lane_id(); k < e; k += 32) {
      const int64_t c = ci[k];
      if (c >= c0 && c < c1) out[i * ncols + (c - c0)] = v[k];
    }
  }
}

// out_rp[0] = 0 and out_rp[i + 1] = the count of row r0 + i within [c0, c1).
__global__ void csr_slice_count_kernel(const int32_t* __restrict__ rp,
                                       const int32_t* __restrict__ ci, int64_t r0, int64_t nrows,
                                       int64_t c0, int64_t c1, bool all_cols,
                                       int32_t* __restrict__ out_rp) {
  if (detail::global_thread() == 0) out_rp[0] = 0;
  for (int64_t i = global_warp(); i < nrows; i += warp_stride()) {
    const int64_t b = rp[r0 + i], e = rp[r0 + i + 1];
    if (all_cols) {
      if (lane_id() == 0) out_rp[i + 1] = static_cast<int32_t>(e - b);
      continue;
    }
    int count = 0;
    for (int64_t k = b + lane_id(); k < e; k += 32) {
      const int64_t c = ci[k];
      count += (c >= c0 && c < c1) ? 1 : 0;
    }
    count = __reduce_add_sync(kFullMask, count);
    if (lane_id() == 0) out_rp[i + 1] = count;
  }
}

// Each warp compacts its row's selected entries in order: a ballot over 32 entries at a time
// gives every selected lane its position.
template <typename T>
__global__ void csr_slice_fill_kernel(const int32_t* __restrict__ rp,
                                      const int32_t* __restrict__ ci, const T* __restrict__ v,
                                      int64_t r0, int64_t nrows, int64_t c0, int64_t c1,
                                      const int32_t* __restrict__ out_rp,
                                      int32_t* __restrict__ out_ci, T* __restrict__ out_v) {
  const unsigned lower = (1u << lane_id()) - 1u;
  for (int64_t i = global_warp(); i < nrows; i += warp_stride()) {
    const int64_t b = rp[r0 + i], e = rp[r0 + i + 1];
    int64_t base = out_rp[i];
    for (int64_t k0 = b; k0 < e; k0 += 32) {  // warp-uniform bounds
      const int64_t k = k0 + lane_id();
      int64_t c = -1;
      if (k < e) c = ci[k];
      const bool take = k < e && c >= c0 && c < c1;
      const unsigned mask = __ballot_sync(kFullMask, take);
      if (take) {
        const int64_t pos = base + __popc(mask & lower);
        out_ci[pos] = static_cast<int32_t>(c - c0);
        out_v[pos] = v[k];
      }
      base += __popc(mask);
    }
  }
}

// Output row i is input row rows-1-i; its entries start at nnz - rp[rows - i].
template <typename T>
__global__ void csr_reverse_rows_kernel(const int32_t* __restrict__ rp,
                                        const int32_t* __restrict__ ci, const T* __restrict__ v,
                                        int64_t rows, int64_t nnz, int32_t* __restrict__ out_rp,
                                        int32_t* __restrict__ out_ci, T* __restrict__ out_v) {
  if (detail::global_thread() == 0) out_rp[rows] = static_cast<int32_t>(nnz);
  for (int64_t i = global_warp(); i < rows; i += warp_stride()) {
    const int64_t src = rows - 1 - i;
    const int64_t b = rp[src], e = rp[src + 1];
    const int64_t dst = nnz - e;
    if (lane_id() == 0) out_rp[i] = static_cast<int32_t>(dst);
    for (int64_t k = b + lane_id(); k < e; k += 32) {
      out_ci[dst + (k - b)] = ci[k];
      out_v[dst + (k - b)] = v[k];
    }
  }
}

// An (n, 1) CSR has at most one entry per row: its offsets stay, its column becomes the row.
template <typename T>
__global__ void csr_diag_from_vector_kernel(const int32_t* __restrict__ rp, const T* __restrict__ v,
                                            int64_t n, int32_t* __restrict__ out_rp,
                                            int32_t* __restrict__ out_ci, T* __restrict__ out_v) {
  for (int64_t i = detail::global_thread(); i <= n; i += detail::grid_stride()) {
    out_rp[i] = rp[i];
    if (i == n) continue;
    for (int64_t k = rp[i]; k < rp[i + 1]; ++k) {
      out_ci[k] = static_cast<int32_t>(i);
      out_v[k] = v[k];
    }
  }
}

template <typename I, typename T>
__global__ void csr_diag_to_vector_kernel(const I* __restrict__ rp, const I* __restrict__ ci,
                                          const T* __restrict__ v, int64_t n, T* __restrict__ out) {
  for (int64_t i = global_warp(); i < n; i += warp_stride()) {
    const int64_t b = rp[i], e = rp[i + 1];
    bool found = false;
    for (int64_t k0 = b; k0 < e; k0 += 32) {  // warp-uniform bounds
      const int64_t k = k0 + lane_id();
      const bool hit = k < e && static_cast<int64_t>(ci[k]) == i;
      if (hit) out[i] = v[k];
      found = found || __ballot_sync(kFullMask, hit) != 0;
    }
    if (!found && lane_id() == 0) out[i] = T(0);
  }
}

__global__ void csr_rbind_offsets_kernel(const int32_t* __restrict__ rp, int64_t rows,
                                         int64_t row_off, int64_t nnz_off,
                                         int32_t* __restrict__ out_rp) {
  for (int64_t i = detail::global_thread(); i <= rows; i += detail::grid_stride())
    out_rp[row_off + i] = static_cast<int32_t>((rp != nullptr ? rp[i] : 0) + nnz_off);
}

template <typename I, typename T>
void slice_to_dense(const I* rp, const I* ci, const T* v, int64_t r0, int64_t r1, int64_t c0,
                    int64_t c1, T* out, cudaStream_t stream) {
  const int64_t nrows = r1 - r0;
  if (nrows <= 0 || c1 <= c0) return;
  csr_slice_to_dense_kernel<I, T>
      <<<warp_grid(nrows), detail::kThreads, 0, stream>>>(rp, ci, v, r0, nrows, c0, c1, out);
  DMLRT_CHECK_CTX(cudaGetLastError(), "csr slice to dense rows [" << r0 << "," << r1 << ") cols ["
                                                                  << c0 << "," << c1 << ")");
}

template <typename T>
void slice_fill(const int32_t* rp, const int32_t* ci, const T* v, int64_t r0, int64_t r1,
                int64_t c0, int64_t c1, const int32_t* out_rp, int32_t* out_ci, T* out_v,
                cudaStream_t stream) {
  const int64_t nrows = r1 - r0;
  if (nrows <= 0 || c1 <= c0) return;
  csr_slice_fill_kernel<T><<<warp_grid(nrows), detail::kThreads, 0, stream>>>(
      rp, ci, v, r0, nrows, c0, c1, out_rp, out_ci, out_v);
  DMLRT_CHECK_CTX(cudaGetLastError(), "csr slice fill rows [" << r0 << "," << r1 << ") cols [" << c0
                                                              << "," << c1 << ")");
}

template <typename T>
void reverse_rows(const int32_t* rp, const int32_t* ci, const T* v, int64_t rows, int64_t nnz,
                  int32_t* out_rp, int32_t* out_ci, T* out_v, cudaStream_t stream) {
  if (nnz == 0) return;  // an empty CSR has no device memory
  csr_reverse_rows_kernel<T><<<warp_grid(rows), detail::kThreads, 0, stream>>>(
      rp, ci, v, rows, nnz, out_rp, out_ci, out_v);
  DMLRT_CHECK_CTX(cudaGetLastError(), "csr rev " << rows << " rows nnz=" << nnz);
}

template <typename T>
void diag_from_vector(const int32_t* rp, const T* v, int64_t n, int64_t nnz, int32_t* out_rp,
                      int32_t* out_ci, T* out_v, cudaStream_t stream) {
  if (nnz == 0) return;
  csr_diag_from_vector_kernel<T>
      <<<detail::grid_for(n + 1), detail::kThreads, 0, stream>>>(rp, v, n, out_rp, out_ci, out_v);
  DMLRT_CHECK_CTX(cudaGetLastError(), "csr diag vector->matrix n=" << n << " nnz=" << nnz);
}

template <typename I, typename T>
void diag_to_vector(const I* rp, const I* ci, const T* v, int64_t n, T* out, cudaStream_t stream) {
  if (n == 0) return;
  csr_diag_to_vector_kernel<I, T><<<warp_grid(n), detail::kThreads, 0, stream>>>(rp, ci, v, n, out);
  DMLRT_CHECK_CTX(cudaGetLastError(), "csr diag matrix->vector n=" << n);
}

template <typename T>
void rbind_part(const int32_t* rp, const int32_t* ci, const T* v, int64_t rows, int64_t nnz,
                int64_t row_off, int64_t nnz_off, int32_t* out_rp, int32_t* out_ci, T* out_v,
                cudaStream_t stream) {
  const cudaStream_t s = stream;
  csr_rbind_offsets_kernel<<<detail::grid_for(rows + 1), detail::kThreads, 0, s>>>(
      nnz > 0 ? rp : nullptr, rows, row_off, nnz_off, out_rp);
  DMLRT_CHECK_CTX(cudaGetLastError(), "csr rbind offsets rows=" << rows << " at " << row_off);
  if (nnz == 0) return;
  DMLRT_CHECK_CTX(cudaMemcpyAsync(out_ci + nnz_off, ci, static_cast<size_t>(nnz) * sizeof(int32_t),
                                  cudaMemcpyDeviceToDevice, s),
                  "csr rbind column indices nnz=" << nnz);
  DMLRT_CHECK_CTX(cudaMemcpyAsync(out_v + nnz_off, v, static_cast<size_t>(nnz) * sizeof(T),
                                  cudaMemcpyDeviceToDevice, s),
                  "csr rbind values nnz=" << nnz);
}

}  // namespace

// --- slices ---
void launch_csr_slice_to_dense(const int32_t* rp, const int32_t* ci, const double* v, int64_t r0,
                               int64_t r1, int64_t c0, int64_t c1, double* out,
                               cudaStream_t stream) {
  slice_to_dense(rp, ci, v, r0, r1, c0, c1, out, stream);
}
void launch_csr_slice_to_dense(const int32_t* rp, const int32_t* ci, const float* v, int64_t r0,
                               int64_t r1, int64_t c0, int64_t c1, float* out,
                               cudaStream_t stream) {
  slice_to_dense(rp, ci, v, r0, r1, c0, c1, out, stream);
}
void launch_csr_slice_to_dense(const int64_t* rp, const int64_t* ci, const double* v, int64_t r0,
                               int64_t r1, int64_t c0, int64_t c1, double* out,
                               cudaStream_t stream) {
  slice_to_dense(rp, ci, v, r0, r1, c0, c1, out, stream);
}
void launch_csr_slice_to_dense(const int64_t* rp, const int64_t* ci, const float* v, int64_t r0,
                               int64_t r1, int64_t c0, int64_t c1, float* out,
                               cudaStream_t stream) {
  slice_to_dense(rp, ci, v, r0, r1, c0, c1, out, stream);
}

void launch_csr_slice_count(const int32_t* rp, const int32_t* ci, int64_t r0, int64_t r1,
                            int64_t c0, int64_t c1, int64_t in_cols, int32_t* out_rp,
                            cudaStream_t stream) {
  const int64_t nrows = r1 - r0;
  if (nrows < 0) return;
  csr_slice_count_kernel<<<warp_grid(nrows > 0 ? nrows : 1), detail::kThreads, 0, stream>>>(
      rp, ci, r0, nrows, c0, c1, c0 == 0 && c1 == in_cols, out_rp);
  DMLRT_CHECK_CTX(cudaGetLastError(), "csr slice count rows [" << r0 << "," << r1 << ") cols ["
                                                               << c0 << "," << c1 << ")");
}

size_t csr_scan_workspace_bytes(int64_t n) {
  size_t bytes = 0;
  if (n <= 0) return 0;
  DMLRT_CHECK_CTX(
      cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<int32_t*>(nullptr),
                                    static_cast<int32_t*>(nullptr), static_cast<int>(n)),
      "csr scan workspace n=" << n);
  return bytes;
}

void launch_csr_scan(int32_t* data, int64_t n, void* workspace, size_t workspace_bytes,
                     cudaStream_t stream) {
  if (n <= 0) return;
  DMLRT_CHECK_CTX(cub::DeviceScan::InclusiveSum(workspace, workspace_bytes, data, data,
                                                static_cast<int>(n), stream),
                  "csr scan n=" << n);
}

void launch_csr_slice_fill(const int32_t* rp, const int32_t* ci, const double* v, int64_t r0,
                           int64_t r1, int64_t c0, int64_t c1, const int32_t* out_rp,
                           int32_t* out_ci, double* out_v, cudaStream_t stream) {
  slice_fill(rp, ci, v, r0, r1, c0, c1, out_rp, out_ci, out_v, stream);
}
void launch_csr_slice_fill(const int32_t* rp, const int32_t* ci, const float* v, int64_t r0,
                           int64_t r1, int64_t c0, int64_t c1, const int32_t* out_rp,
                           int32_t* out_ci, float* out_v, cudaStream_t stream) {
  slice_fill(rp, ci, v, r0, r1, c0, c1, out_rp, out_ci, out_v, stream);
}

// --- reorg ---
void launch_csr_reverse_rows(const int32_t* rp, const int32_t* ci, const double* v, int64_t rows,
                             int64_t nnz, int32_t* out_rp, int32_t* out_ci, double* out_v,
                             cudaStream_t stream) {
  reverse_rows(rp, ci, v, rows, nnz, out_rp, out_ci, out_v, stream);
}
void launch_csr_reverse_rows(const int32_t* rp, const int32_t* ci, const float* v, int64_t rows,
                             int64_t nnz, int32_t* out_rp, int32_t* out_ci, float* out_v,
                             cudaStream_t stream) {
  reverse_rows(rp, ci, v, rows, nnz, out_rp, out_ci, out_v, stream);
}

void launch_csr_diag_from_vector(const int32_t* rp, const double* v, int64_t n, int64_t nnz,
                                 int32_t* out_rp, int32_t* out_ci, double* out_v,
                                 cudaStream_t stream) {
  diag_from_vector(rp, v, n, nnz, out_rp, out_ci, out_v, stream);
}
void launch_csr_diag_from_vector(const int32_t* rp, const float* v, int64_t n, int64_t nnz,
                                 int32_t* out_rp, int32_t* out_ci, float* out_v,
                                 cudaStream_t stream) {
  diag_from_vector(rp, v, n, nnz, out_rp, out_ci, out_v, stream);
}

void launch_csr_diag_to_vector(const int32_t* rp, const int32_t* ci, const double* v, int64_t n,
                               double* out, cudaStream_t stream) {
  diag_to_vector(rp, ci, v, n, out, stream);
}
void launch_csr_diag_to_vector(const int32_t* rp, const int32_t* ci, const float* v, int64_t n,
                               float* out, cudaStream_t stream) {
  diag_to_vector(rp, ci, v, n, out, stream);
}
void launch_csr_diag_to_vector(const int64_t* rp, const int64_t* ci, const double* v, int64_t n,
                               double* out, cudaStream_t stream) {
  diag_to_vector(rp, ci, v, n, out, stream);
}
void launch_csr_diag_to_vector(const int64_t* rp, const int64_t* ci, const float* v, int64_t n,
                               float* out, cudaStream_t stream) {
  diag_to_vector(rp, ci, v, n, out, stream);
}

// --- rbind ---
void launch_csr_rbind_part(const int32_t* rp, const int32_t* ci, const double* v, int64_t rows,
                           int64_t nnz, int64_t row_off, int64_t nnz_off, int32_t* out_rp,
                           int32_t* out_ci, double* out_v, cudaStream_t stream) {
  rbind_part(rp, ci, v, rows, nnz, row_off, nnz_off, out_rp, out_ci, out_v, stream);
}
void launch_csr_rbind_part(const int32_t* rp, const int32_t* ci, const float* v, int64_t rows,
                           int64_t nnz, int64_t row_off, int64_t nnz_off, int32_t* out_rp,
                           int32_t* out_ci, float* out_v, cudaStream_t stream) {
  rbind_part(rp, ci, v, rows, nnz, row_off, nnz_off, out_rp, out_ci, out_v, stream);
}

}  // namespace dmlrt::kernels::cuda
