// Thin cuBLAS wrappers for row-major matrices (host-clean: the handle is a cublasHandle_t passed as
// void*; pointers are device pointers; work goes to the stream the handle is bound to).
//
// Note [Row-major through column-major cuBLAS]
// cuBLAS is column-major. A row-major (r, c) matrix with leading dimension c is, read column-major,
// its transpose: a (c, r) matrix with ld = c. So C = op(A) op(B), all row-major, is computed as
// C^T = op(B)^T op(A)^T column-major: gemm(opB, opA, n, m, k, B, ldb, A, lda, C, n), where lda and
// ldb are the stored column counts and opX is T exactly when X is used transposed. This file is the
// only place that knows the trick; every other GPU op calls these helpers.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// C (m, n) = op(A) (m, k) x op(B) (k, n), row-major; A is stored (m, k), or (k, m) when trans_a;
// B (k, n), or (n, k) when trans_b. Uses the 64-bit cuBLAS API (no int dimension limit).
void gemm_row_major(cublasHandle_t cublas, bool trans_a, bool trans_b, int64_t m, int64_t n,
                    int64_t k, const double* a, const double* b, double* c);
void gemm_row_major(cublasHandle_t cublas, bool trans_a, bool trans_b, int64_t m, int64_t n,
                    int64_t k, const float* a, const float* b, float* c);
// The general form on views into larger row-major matrices (a column block, one time step):
// C (m, n) = alpha op(A) op(B) + beta C, where lda, ldb and ldc are the stored column counts
// (row strides) of A, B and C. With beta != 0, C is read (accumulation); with k == 0, C = beta C.
void gemm_row_major(cublasHandle_t cublas, bool trans_a, bool trans_b, int64_t m, int64_t n,
                    int64_t k, double alpha, const double* a, int64_t lda, const double* b,
                    int64_t ldb, double beta, double* c, int64_t ldc);
void gemm_row_major(cublasHandle_t cublas, bool trans_a, bool trans_b, int64_t m, int64_t n,
                    int64_t k, float alpha, const float* a, int64_t lda, const float* b,
                    int64_t ldb, float beta, float* c, int64_t ldc);

// y = M x (trans false, y has rows entries) or y = M^T x (trans true, y has cols entries), with M
// (rows, cols) row-major.
void gemv_row_major(cublasHandle_t cublas, bool trans, int64_t rows, int64_t cols, const double* m,
                    const double* x, double* y);
void gemv_row_major(cublasHandle_t cublas, bool trans, int64_t rows, int64_t cols, const float* m,
                    const float* x, float* y);

// *result (device memory) = x . y over n elements, without a host round trip.
void dot_device(cublasHandle_t cublas, int64_t n, const double* x, const double* y, double* result);
void dot_device(cublasHandle_t cublas, int64_t n, const float* x, const float* y, float* result);

// The upper triangle (diagonal included) of the symmetric c (n, n) row-major = t(X) X (left: X is
// (rows, cols), n = cols) or X t(X) (right: n = rows), X row-major: cuBLAS syrk in FP64, the full
// product by gemm in FP32 (faster on the H200; see Note [tsmm: syrk or gemm] in blas.cpp). The
// strictly lower triangle is unspecified (FP64: not written; FP32: gemm's, not necessarily the
// exact mirror): complete it with triangle.h's launch_copy_upper_to_lower. With a zero inner
// dimension nothing is written (the caller zero-fills c).
void syrk_upper_row_major(cublasHandle_t cublas, bool left, int64_t rows, int64_t cols,
                          const double* x, double* c);
void syrk_upper_row_major(cublasHandle_t cublas, bool left, int64_t rows, int64_t cols,
                          const float* x, float* c);

// out (cols, rows) row-major = transpose of in (rows, cols) row-major (cublas geam); out must not
// alias in.
void transpose_row_major(cublasHandle_t cublas, int64_t rows, int64_t cols, const double* in,
                         double* out);
void transpose_row_major(cublasHandle_t cublas, int64_t rows, int64_t cols, const float* in,
                         float* out);

}  // namespace dmlrt::kernels::cuda
