// cuBLAS wrappers; see blas.h and Note [Row-major through column-major cuBLAS] there.
#include "kernels/cuda/blas.h"

#include <cublas_v2.h>

#include <limits>
#include <type_traits>

#include "gpu_context/library_check.h"

namespace dmlrt::kernels::cuda {
namespace {

cublasOperation_t op_of(bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }

// Overloads so that the templates below pick the D or S routine.
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                    int64_t n, int64_t k, const double* alpha, const double* a, int64_t lda,
                    const double* b, int64_t ldb, const double* beta, double* c, int64_t ldc) {
  return cublasDgemm_64(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                    int64_t n, int64_t k, const float* alpha, const float* a, int64_t lda,
                    const float* b, int64_t ldb, const float* beta, float* c, int64_t ldc) {
  return cublasSgemm_64(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t t, int64_t m, int64_t n,
                    const double* alpha, const double* a, int64_t lda, const double* x,
                    const double* beta, double* y) {
  return cublasDgemv_64(h, t, m, n, alpha, a, lda, x, 1, beta, y, 1);
}
cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t t, int64_t m, int64_t n, const float* alpha,
                    const float* a, int64_t lda, const float* x, const float* beta, float* y) {
  return cublasSgemv_64(h, t, m, n, alpha, a, lda, x, 1, beta, y, 1);
}
cublasStatus_t dot(cublasHandle_t h, int64_t n, const double* x, const double* y, double* r) {
  return cublasDdot_64(h, n, x, 1, y, 1, r);
}
cublasStatus_t dot(cublasHandle_t h, int64_t n, const float* x, const float* y, float* r) {
  return cublasSdot_64(h, n, x, 1, y, 1, r);
}
cublasStatus_t geam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                    int64_t n, const double* alpha, const double* a, int64_t lda,
                    const double* beta, const double* b, int64_t ldb, double* c, int64_t ldc) {
  return cublasDgeam_64(h, ta, tb, m, n, alpha, a, lda, beta, b, ldb, c, ldc);
}
cublasStatus_t geam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                    int64_t n, const float* alpha, const float* a, int64_t lda, const float* beta,
                    const float* b, int64_t ldb, float* c, int64_t ldc) {
  return cublasSgeam_64(h, ta, tb, m, n, alpha, a, lda, beta, b, ldb, c, ldc);
}

cublasStatus_t syrk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t t, int64_t n,
                    int64_t k, const double* alpha, const double* a, int64_t lda,
                    const double* beta, double* c, int64_t ldc) {
  return cublasDsyrk_64(h, uplo, t, n, k, alpha, a, lda, beta, c, ldc);
}
cublasStatus_t syrk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t t, int64_t n,
                    int64_t k, const float* alpha, const float* a, int64_t lda, const float* beta,
                    float* c, int64_t ldc) {
  return cublasSsyrk_64(h, uplo, t, n, k, alpha, a, lda, beta, c, ldc);
}

template <typename T>
void gemm_rm(cublasHandle_t hv, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a,
             const T* b, T* c) {
  if (m == 0 || n == 0) return;
  const T one = 1, zero = 0;
  const int64_t lda = ta ? m : k;  // stored column count of A
  const int64_t ldb = tb ? k : n;
  // C^T (n, m) = op(B)^T op(A)^T, column-major.
  DMLRT_CHECK_CTX(
      gemm(hv, op_of(tb), op_of(ta), n, m, k, &one, b, ldb, a, lda, &zero, c, n),
      "gemm m=" << m << " n=" << n << " k=" << k << " transA=" << ta << " transB=" << tb);
}

template <typename T>
void gemm_rm_ld(cublasHandle_t hv, bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha,
                const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  // C^T (n, m) = op(B)^T op(A)^T, column-major; a row stride is a column-major leading dimension.
  DMLRT_CHECK_CTX(gemm(hv, op_of(tb), op_of(ta), n, m, k, &alpha, b, ldb, a, lda, &beta, c, ldc),
                  "gemm m=" << m << " n=" << n << " k=" << k << " transA=" << ta << " transB=" << tb
                            << " lda=" << lda << " ldb=" << ldb << " ldc=" << ldc
                            << " beta=" << beta);
}

template <typename T>
void gemv_rm(cublasHandle_t hv, bool trans, int64_t rows, int64_t cols, const T* m, const T* x,
             T* y) {
  if (rows == 0 || cols == 0) return;
  const T one = 1, zero = 0;
  // Column-major, M is (cols, rows) with ld = cols: M x is OP_T of it, M^T x is OP_N.
  DMLRT_CHECK_CTX(
      gemv(hv, trans ? CUBLAS_OP_N : CUBLAS_OP_T, cols, rows, &one, m, cols, x, &zero, y),
      "gemv rows=" << rows << " cols=" << cols << " trans=" << trans);
}

template <typename T>
void dot_dev(cublasHandle_t hv, int64_t n, const T* x, const T* y, T* r) {
  cublasHandle_t h = hv;
  cublasPointerMode_t old = CUBLAS_POINTER_MODE_HOST;
  DMLRT_CHECK(cublasGetPointerMode(h, &old));
  DMLRT_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
  const cublasStatus_t st = dot(h, n, x, y, r);
  cublasSetPointerMode(h, old);
  DMLRT_CHECK_CTX(st, "dot n=" << n);
}

// Note [tsmm: syrk or gemm]
// t(X) X needs the whole symmetric (n, n) matrix. syrk computes one triangle (half the flops) and
// the caller mirrors it; gemm computes both. On the H200 (X 65536 x 1024, one call each, bench
// `tsmm_left_65536x1024`): cublasDsyrk 2.25 ms beats Dgemm, but cublasSsyrk takes 3.35 ms against
// Sgemm's 2.61 ms: Ssyrk runs at ~40 % of Sgemm's flop rate, so the full product is faster even at
// twice the flops. FP32 therefore uses gemm. The gemm's two triangles need not agree bit for bit
// (tiles may sum in different orders), so the caller's upper -> lower copy still runs and the
// result stays exactly symmetric; it costs one pass over n^2 / 2 cells (~4 MB for n = 1024).
template <typename T>
void syrk_rm(cublasHandle_t hv, bool left, int64_t rows, int64_t cols, const T* x, T* c) {
  const int64_t n = left ? cols : rows, k = left ? rows : cols;
  if (n == 0 || k == 0) return;
  if constexpr (std::is_same_v<T, float>) {
    // left: (cols, cols) = t(X) X; right: (rows, rows) = X t(X).
    gemm_rm(hv, left, !left, n, n, k, x, x, c);
    return;
  }
  const T one = 1, zero = 0;
  // Column-major, X is Xc = t(X) (cols, rows) with ld = cols. left: t(X) X = Xc Xc^T (OP_N);
  // right: X t(X) = Xc^T Xc (OP_T). The row-major upper triangle of the symmetric C is the
  // column-major lower one.
  DMLRT_CHECK_CTX(syrk(hv, CUBLAS_FILL_MODE_LOWER, left ? CUBLAS_OP_N : CUBLAS_OP_T, n, k, &one, x,
                       cols, &zero, c, n),
                  "syrk " << (left ? "t(X) X" : "X t(X)") << " X " << rows << "x" << cols);
}

template <typename T>
void transpose_rm(cublasHandle_t hv, int64_t rows, int64_t cols, const T* in, T* out) {
  if (rows == 0 || cols == 0) return;
  const T one = 1, zero = 0;
  // Column-major: in is (cols, rows) ld = cols; out (rows, cols) ld = rows = in^T. The B operand
  // is out itself with beta 0 (cuBLAS's documented in-place form), so no third buffer is needed.
  DMLRT_CHECK_CTX(
      geam(hv, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, in, cols, &zero, out, rows, out, rows),
      "transpose " << rows << "x" << cols);
}

}  // namespace

void gemm_row_major(cublasHandle_t h, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                    const double* a, const double* b, double* c) {
  gemm_rm(h, ta, tb, m, n, k, a, b, c);
}
void gemm_row_major(cublasHandle_t h, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                    const float* a, const float* b, float* c) {
  gemm_rm(h, ta, tb, m, n, k, a, b, c);
}
void gemm_row_major(cublasHandle_t h, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                    double alpha, const double* a, int64_t lda, const double* b, int64_t ldb,
                    double beta, double* c, int64_t ldc) {
  gemm_rm_ld(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void gemm_row_major(cublasHandle_t h, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                    float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                    float beta, float* c, int64_t ldc) {
  gemm_rm_ld(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void gemv_row_major(cublasHandle_t h, bool trans, int64_t rows, int64_t cols, const double* m,
                    const double* x, double* y) {
  gemv_rm(h, trans, rows, cols, m, x, y);
}
void gemv_row_major(cublasHandle_t h, bool trans, int64_t rows, int64_t cols, const float* m,
                    const float* x, float* y) {
  gemv_rm(h, trans, rows, cols, m, x, y);
}
void dot_device(cublasHandle_t h, int64_t n, const double* x, const double* y, double* r) {
  dot_dev(h, n, x, y, r);
}
void dot_device(cublasHandle_t h, int64_t n, const float* x, const float* y, float* r) {
  dot_dev(h, n, x, y, r);
}
void syrk_upper_row_major(cublasHandle_t h, bool left, int64_t rows, int64_t cols, const double* x,
                          double* c) {
  syrk_rm(h, left, rows, cols, x, c);
}
void syrk_upper_row_major(cublasHandle_t h, bool left, int64_t rows, int64_t cols, const float* x,
                          float* c) {
  syrk_rm(h, left, rows, cols, x, c);
}
void transpose_row_major(cublasHandle_t h, int64_t rows, int64_t cols, const double* in,
                         double* out) {
  transpose_rm(h, rows, cols, in, out);
}
void transpose_row_major(cublasHandle_t h, int64_t rows, int64_t cols, const float* in,
                         float* out) {
  transpose_rm(h, rows, cols, in, out);
}

}  // namespace dmlrt::kernels::cuda
