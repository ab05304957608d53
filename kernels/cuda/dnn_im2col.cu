// The im2col kernel family of the sparse-filter conv2d path: im2col from dense rows (gather, one
// thread per output column), im2col from CSR rows (scatter, one thread per nonzero) and reorg_knpq
// with an optional bias; see dnn_im2col.h.
#include <cuda_runtime.h>

#include <algorithm>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/dnn_im2col.h"
#include "kernels/cuda/kernel_utils.cuh"

namespace dmlrt::kernels::cuda {
namespace {

// One thread per output column (image img, output position (p, q)) and channel group: the
// column's decomposition is computed once, then the thread walks its channels' R x S rows with no
// divisions. Consecutive threads write consecutive cells of a row (coalesced) and read along an
// image row with the horizontal stride. Channels are spread over blockIdx.y, so few columns (small
// P x Q, one image) still fill the device.
template <typename T>
__global__ void im2col_dense_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t n,
                                    Im2colGeometry g) {
  const int64_t pq = g.p * g.q, cols = n * pq, hw = g.h * g.w, chw = g.c * hw;
  const int64_t rs_cols = g.r * g.s * cols;
  for (int64_t col = detail::global_thread(); col < cols; col += detail::grid_stride()) {
    const int64_t img = col / pq, j = col - img * pq;
    const int64_t p = j / g.q, q = j - p * g.q;
    const int64_t h0 = p * g.stride_h - g.pad_h, w0 = q * g.stride_w - g.pad_w;
    for (int64_t c = blockIdx.y; c < g.c; c += gridDim.y) {
      const T* src = in + img * chw + c * hw;
      T* dst = out + c * rs_cols + col;  // row c*RS of out, then one row per (r, s)
      for (int64_t r = 0; r < g.r; ++r) {
        const int64_t h = h0 + r;
        const bool h_in = h >= 0 && h < g.h;
        for (int64_t s = 0; s < g.s; ++s, dst += cols) {
          const int64_t w = w0 + s;
          *dst = (h_in && w >= 0 && w < g.w) ? src[h * g.w + w] : T(0);
        }
      }
    }
  }
}

// Each nonzero x[img, c, h, w] of rows [r0, r1) feeds the cells (c*RS + r*S + s, img*PQ + p*Q + q)
// with p*stride_h - pad_h + r = h and q*stride_w - pad_w + s = w; distinct image cells feed
// distinct im2col cells, so the scatter needs no atomics. The entries' range comes from row_ptr
// on the device (no host read of the chunk's nnz); a binary search over the chunk's row offsets
// finds an entry's row.
template <typename T, typename I>
__global__ void im2col_csr_kernel(const I* __restrict__ row_ptr, const I* __restrict__ col_idx,
                                  const T* __restrict__ values, int64_t r0, int64_t r1,
                                  Im2colGeometry g, T* __restrict__ out) {
  const int64_t begin = row_ptr[r0], end = row_ptr[r1];
  const int64_t rs = g.r * g.s, pq = g.p * g.q, hw = g.h * g.w;
  const int64_t cols = (r1 - r0) * pq;
  for (int64_t e = begin + detail::global_thread(); e < end; e += detail::grid_stride()) {
    // The largest row i in [r0, r1) with row_ptr[i] <= e holds entry e (rows may be empty).
    int64_t lo = r0, hi = r1 - 1;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (static_cast<int64_t>(row_ptr[mid]) <= e)
        lo = mid;
      else
        hi = mid - 1;
    }
    const int64_t img = lo - r0;
    const int64_t col = col_idx[e];
    if (col < 0 || col >= g.c * hw) continue;  // not an image cell (a malformed CSR)
    const int64_t c = col / hw, rem = col - c * hw;
    const int64_t h = rem / g.w, w = rem - h * g.w;
    const T v = values[e];
    T* base = out + c * rs * cols + img * pq;
    for (int64_t r = 0; r < g.r; ++r) {
      const int64_t hp = h + g.pad_h - r;  // p * stride_h
      if (hp < 0) break;                   // and for every larger r
      if (hp % g.stride_h != 0) continue;
      const int64_t p = hp / g.stride_h;
      if (p >= g.p) continue;
      for (int64_t s = 0; s < g.s; ++s) {
        const int64_t wq = w + g.pad_w - s;  // q * stride_w
        if (wq < 0) break;
        if (wq % g.stride_w != 0) continue;
        const int64_t q = wq / g.stride_w;
        if (q >= g.q) continue;
        base[(r * g.s + s) * cols + p * g.q + q] = v;
      }
    }
  }
}

// out (n, K*PQ) row i, segment k is the contiguous copy of in (K, n*PQ) row k, segment i (plus
// bias[k]). Segments (i, k) are spread over blockIdx.y (walked with RowColWalk: no division per
// cell), their PQ cells over the x threads, so reads and writes are both coalesced.
template <typename T>
__global__ void reorg_knpq_kernel(const T* __restrict__ in, const T* __restrict__ bias, int64_t n,
                                  int64_t k, int64_t pq, T* __restrict__ out) {
  const int64_t npq = n * pq;
  const int64_t j0 = detail::global_thread(), jstride = detail::grid_stride();
  for (detail::RowColWalk seg(blockIdx.y, gridDim.y, k); seg.r < n; seg.advance()) {
    const T* src = in != nullptr ? in + seg.c * npq + seg.r * pq : nullptr;
    T* dst = out + (seg.r * k + seg.c) * pq;
    if (bias == nullptr) {
      for (int64_t j = j0; j < pq; j += jstride) dst[j] = src != nullptr ? src[j] : T(0);
    } else {
      const T b = bias[seg.c];
      for (int64_t j = j0; j < pq; j += jstride) dst[j] = (src != nullptr ? src[j] : T(0)) + b;
    }
  }
}

// The same, one thread per output cell (a division per cell): for short segments (small P x Q),
// where the segmented kernel would leave most x threads idle.
template <typename T>
__global__ void reorg_knpq_flat_kernel(const T* __restrict__ in, const T* __restrict__ bias,
                                       int64_t n, int64_t k, int64_t pq, T* __restrict__ out) {
  const int64_t kpq = k * pq, npq = n * pq, total = n * kpq;
  const int64_t start = detail::global_thread(), stride = detail::grid_stride();
  if (start >= total) return;
  detail::RowColWalk walk(start, stride, kpq);  // (image i, column k*PQ + j) of out
  for (int64_t idx = start; idx < total; idx += stride, walk.advance()) {
    const int64_t kk = walk.c / pq, j = walk.c - kk * pq;
    T v = in != nullptr ? in[kk * npq + walk.r * pq + j] : T(0);
    if (bias != nullptr) v += bias[kk];
    out[idx] = v;
  }
}

// Segments shorter than this take reorg_knpq_flat_kernel.
constexpr int64_t kMinSegment = 128;

// A 2-D grid: x blocks cover `cols` threads (capped), y blocks `ys` work items, with at most
// about detail::kMaxBlocks blocks in all.
dim3 grid_2d(int64_t cols, int64_t ys) {
  const int64_t x = detail::grid_for(cols);
  int64_t y = std::min<int64_t>(ys, 65535);
  y = std::min<int64_t>(y, std::max<int64_t>(1, detail::kMaxBlocks / x));
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(std::max<int64_t>(y, 1)));
}

template <typename T>
void im2col_dense(const T* images, int64_t n, const Im2colGeometry& g, T* out,
                  cudaStream_t stream) {
  const int64_t total = g.c * g.r * g.s * n * g.p * g.q;
  if (total == 0) return;
  im2col_dense_kernel<T>
      <<<grid_2d(n * g.p * g.q, g.c), detail::kThreads, 0, stream>>>(images, out, n, g);
  DMLRT_CHECK_CTX(cudaGetLastError(), "im2col (dense) n=" << n << " C=" << g.c << " H=" << g.h
                                                          << " W=" << g.w << " R=" << g.r
                                                          << " S=" << g.s);
}

template <typename T, typename I>
void im2col_csr(const I* row_ptr, const I* col_idx, const T* values, int64_t r0, int64_t r1,
                int64_t nnz_hint, const Im2colGeometry& g, T* out, cudaStream_t stream) {
  const int64_t total = g.c * g.r * g.s * (r1 - r0) * g.p * g.q;
  if (total == 0) return;
  DMLRT_CHECK_CTX(cudaMemsetAsync(out, 0, static_cast<size_t>(total) * sizeof(T), stream),
                  "im2col (csr) zero " << total << " cells");
  im2col_csr_kernel<T, I>
      <<<detail::grid_for(nnz_hint > 0 ? nnz_hint : 1), detail::kThreads, 0, stream>>>(
          row_ptr, col_idx, values, r0, r1, g, out);
  DMLRT_CHECK_CTX(cudaGetLastError(), "im2col (csr) rows [" << r0 << ", " << r1 << ") C=" << g.c
                                                            << " H=" << g.h << " W=" << g.w
                                                            << " R=" << g.r << " S=" << g.s);
}

template <typename T>
void reorg_knpq(const T* in, const T* bias, int64_t n, int64_t k, int64_t pq, T* out,
                cudaStream_t stream) {
  const int64_t total = n * k * pq;
  if (total == 0) return;
  if (pq >= kMinSegment)
    reorg_knpq_kernel<T>
        <<<grid_2d(pq, n * k), detail::kThreads, 0, stream>>>(in, bias, n, k, pq, out);
  else
    reorg_knpq_flat_kernel<T>
        <<<detail::grid_for(total), detail::kThreads, 0, stream>>>(in, bias, n, k, pq, out);
  DMLRT_CHECK_CTX(cudaGetLastError(), "reorg_knpq n=" << n << " K=" << k << " PQ=" << pq
                                                      << " bias=" << (bias != nullptr));
}

}  // namespace

void launch_im2col_dense(const double* images, int64_t n, const Im2colGeometry& g, double* out,
                         cudaStream_t stream) {
  im2col_dense(images, n, g, out, stream);
}
void launch_im2col_dense(const float* images, int64_t n, const Im2colGeometry& g, float* out,
                         cudaStream_t stream) {
  im2col_dense(images, n, g, out, stream);
}

void launch_im2col_csr(const int32_t* row_ptr, const int32_t* col_idx, const double* values,
                       int64_t r0, int64_t r1, int64_t nnz_hint, const Im2colGeometry& g,
                       double* out, cudaStream_t stream) {
  im2col_csr(row_ptr, col_idx, values, r0, r1, nnz_hint, g, out, stream);
}
void launch_im2col_csr(const int32_t* row_ptr, const int32_t* col_idx, const float* values,
                       int64_t r0, int64_t r1, int64_t nnz_hint, const Im2colGeometry& g,
                       float* out, cudaStream_t stream) {
  im2col_csr(row_ptr, col_idx, values, r0, r1, nnz_hint, g, out, stream);
}
void launch_im2col_csr(const int64_t* row_ptr, const int64_t* col_idx, const double* values,
                       int64_t r0, int64_t r1, int64_t nnz_hint, const Im2colGeometry& g,
                       double* out, cudaStream_t stream) {
  im2col_csr(row_ptr, col_idx, values, r0, r1, nnz_hint, g, out, stream);
}
void launch_im2col_csr(const int64_t* row_ptr, const int64_t* col_idx, const float* values,
                       int64_t r0, int64_t r1, int64_t nnz_hint, const Im2colGeometry& g,
                       float* out, cudaStream_t stream) {
  im2col_csr(row_ptr, col_idx, values, r0, r1, nnz_hint, g, out, stream);
}

void launch_reorg_knpq(const double* in, const double* bias, int64_t n, int64_t k, int64_t pq,
                       double* out, cudaStream_t stream) {
  reorg_knpq(in, bias, n, k, pq, out, stream);
}
void launch_reorg_knpq(const float* in, const float* bias, int64_t n, int64_t k, int64_t pq,
                       float* out, cudaStream_t stream) {
  reorg_knpq(in, bias, n, k, pq, out, stream);
}

}  // namespace dmlrt::kernels::cuda
