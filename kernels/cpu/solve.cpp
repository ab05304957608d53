// solve(A, B) through LAPACK's dgesv; see solve.h.
#include "kernels/cpu/solve.h"

#include <limits>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/host_memory.h"

extern "C" void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv,
                       double* b, const int* ldb, int* info);

namespace dmlrt::kernels::cpu {

MatrixBlock solve(const MatrixBlock& a, const MatrixBlock& b) {
  const int64_t n = a.rows();
  DMLRT_REQUIRE(a.rows() == a.cols(), ShapeError,
                "solve: A must be square, got " << dims_string(a.rows(), a.cols()));
  DMLRT_REQUIRE(b.rows() == n, ShapeError,
                "solve: A is " << dims_string(a.rows(), a.cols()) << " but b is "
                               << dims_string(b.rows(), b.cols()) << " (row counts differ)");
  const int64_t k = b.cols();
  DMLRT_REQUIRE(n <= std::numeric_limits<int>::max() && k <= std::numeric_limits<int>::max() &&
                    n * n <= std::numeric_limits<int64_t>::max() / 8,
                ShapeError, "solve: " << dims_string(n, n) << " exceeds LAPACK's 32-bit sizes");
  if (n == 0 || k == 0) return MatrixBlock::dense(n, k, 0.0);

  // LAPACK is column-major: the column-major copy of A is A's transpose read row-major, so copy
  // both operands transposed and transpose the solution back.
  std::vector<double> acm(static_cast<size_t>(n * n), 0.0);  // (n, n) column-major
  std::vector<double> bcm(static_cast<size_t>(n * k), 0.0);  // (n, k) column-major
  if (a.is_sparse()) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t p = a.row_ptr()[i]; p < a.row_ptr()[i + 1]; ++p)
        acm[static_cast<size_t>(a.col_idx()[p] * n + i)] = a.csr_values()[p];
  } else {
    const double* av = a.dense_data();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) acm[static_cast<size_t>(j * n + i)] = av[i * n + j];
  }
  const MatrixBlock bd = b.to_dense();
  const double* bv = bd.dense_data();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) bcm[static_cast<size_t>(j * n + i)] = bv[i * k + j];

  const int ni = static_cast<int>(n), ki = static_cast<int>(k);
  std::vector<int> ipiv(static_cast<size_t>(n));
  int info = 0;
  check_blas_headroom("solve (LAPACK dgesv)");  // See Note [OpenBLAS under a memory limit]
  dgesv_(&ni, &ki, acm.data(), &ni, ipiv.data(), bcm.data(), &ni, &info);
  DMLRT_REQUIRE(info <= 0, RuntimeError,
                "solve: matrix is singular: U(" << info << "," << info
                                                << ") of the LU factorisation of the "
                                                << dims_string(n, n) << " A is exactly zero");
  DMLRT_REQUIRE(info == 0, Error, "solve: dgesv rejected argument " << -info);

  MatrixBlock x = MatrixBlock::dense(n, k, 0.0);  // (n, k) row-major
  double* xv = x.dense_data();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) xv[i * k + j] = bcm[static_cast<size_t>(j * n + i)];
  x.examine_format();
  return x;
}

}  // namespace dmlrt::kernels::cpu
