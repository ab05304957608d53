// Launchers of the im2col kernel family (host-clean) behind the sparse-filter conv2d path
// (DESIGN.md §5; kernels/cuda/dnn_sparse_conv_op.h): im2col of a batch chunk of images into a dense
// CRS x nPQ matrix, from dense rows or straight from CSR rows, and reorg_knpq, which turns the
// K x nPQ product of the filter and the im2col matrix into n rows of the N x KPQ output (plus a
// per-channel bias). Pointers are device pointers; `stream` is a cudaStream_t. Outputs never alias
// inputs; launchers never synchronise.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// Geometry of one convolution: images C x H x W, filters C x R x S, output P x Q (the caller has
// checked P = (H + 2*pad_h - R) / stride_h + 1 >= 1 and Q likewise).
struct Im2colGeometry {
  int64_t c = 0, h = 0, w = 0;
  int64_t r = 0, s = 0;
  int64_t p = 0, q = 0;
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
};

// out (C*R*S, n*P*Q) row-major, every cell written: out[c*RS + r*S + s, i*PQ + p*Q + q] =
// images[i, c*HW + h*W + w] with h = p*stride_h - pad_h + r, w = q*stride_w - pad_w + s, or 0 where
// (h, w) falls in the padding. images (n, C*H*W) row-major. One thread per output cell.
void launch_im2col_dense(const double* images, int64_t n, const Im2colGeometry& g, double* out,
                         cudaStream_t stream);
void launch_im2col_dense(const float* images, int64_t n, const Im2colGeometry& g, float* out,
                         cudaStream_t stream);

// The same from rows [r0, r1) of a CSR image batch (C*H*W columns; the row offsets are those of
// the whole matrix): out (C*R*S, (r1-r0)*P*Q) is zeroed, then each nonzero is scattered to the
// cells it feeds (one thread per nonzero, grid-stride over the chunk's entries, which the kernel
// reads from row_ptr; nnz_hint, e.g. the matrix's nnz times the chunk's share of rows, only sizes
// the grid). Each (row, column) must occur at most once in the CSR.
void launch_im2col_csr(const int32_t* row_ptr, const int32_t* col_idx, const double* values,
                       int64_t r0, int64_t r1, int64_t nnz_hint, const Im2colGeometry& g,
                       double* out, cudaStream_t stream);
void launch_im2col_csr(const int32_t* row_ptr, const int32_t* col_idx, const float* values,
                       int64_t r0, int64_t r1, int64_t nnz_hint, const Im2colGeometry& g,
                       float* out, cudaStream_t stream);
void launch_im2col_csr(const int64_t* row_ptr, const int64_t* col_idx, const double* values,
                       int64_t r0, int64_t r1, int64_t nnz_hint, const Im2colGeometry& g,
                       double* out, cudaStream_t stream);
void launch_im2col_csr(const int64_t* row_ptr, const int64_t* col_idx, const float* values,
                       int64_t r0, int64_t r1, int64_t nnz_hint, const Im2colGeometry& g,
                       float* out, cudaStream_t stream);

// out (n, K*PQ) row-major = reorg of in (K, n*PQ) row-major: out[i, k*PQ + j] = in[k, i*PQ + j]
// + bias[k]. bias (K) may be null (no bias); in may be null (an all-zero product, e.g. an empty
// filter: out is the bias alone). One thread per output cell.
void launch_reorg_knpq(const double* in, const double* bias, int64_t n, int64_t k, int64_t pq,
                       double* out, cudaStream_t stream);
void launch_reorg_knpq(const float* in, const float* bias, int64_t n, int64_t k, int64_t pq,
                       float* out, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
