// sqrtMatrixJava on host blocks (sqrt_matrix.h), on the symmetric eigen solver of eigen.h (dsyevd).
#include "kernels/cpu/sqrt_matrix.h"

#include <cfloat>
#include <cmath>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/cpu/eigen.h"

namespace dmlrt::kernels::cpu {

MatrixBlock sqrt_matrix(const MatrixBlock& in) {
  const MatrixBlock a = in.is_sparse() ? in.to_dense() : in;
  const int64_t n = a.rows();
  const double* p = a.dense_data();
  // MatrixUtils.isSymmetric(matrix, 10 * rows * cols * Precision.EPSILON), a relative test.
  const double tol = 10.0 * static_cast<double>(n) * static_cast<double>(n) * (DBL_EPSILON / 2);
  std::vector<double> sym(n * n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const double x = p[i * n + j], y = p[j * n + i];
      DMLRT_REQUIRE(std::fabs(x - y) <= std::fmax(std::fabs(x), std::fabs(y)) * tol, RuntimeError,
                    "sqrtMatrixJava: the matrix is not symmetric (cells ("
                        << i + 1 << "," << j + 1 << ") and (" << j + 1 << "," << i + 1
                        << ") differ); commons-math's getSquareRoot, which SystemDS calls, "
                           "supports symmetric matrices only");
      sym[i * n + j] = 0.5 * (x + y);
    }
  }
  const EigenResult e = eigen_symmetric(MatrixBlock::dense(n, n, std::move(sym)));
  std::vector<double> s(n);
  for (int64_t k = 0; k < n; ++k) {
    const double lambda = e.values.get(k, 0);
    DMLRT_REQUIRE(lambda > 0.0, RuntimeError,
                  "sqrtMatrixJava: the matrix has the eigenvalue "
                      << lambda
                      << " <= 0; commons-math's getSquareRoot, which SystemDS calls, "
                         "supports positive definite matrices only");
    s[k] = std::sqrt(lambda);
  }
  // (n, n) row-major: out_ij = sum_k V_ik s_k V_jk.
  const MatrixBlock v = e.vectors.is_sparse() ? e.vectors.to_dense() : e.vectors;
  const double* vp = v.dense_data();
  std::vector<double> out(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int64_t k = 0; k < n; ++k) acc += vp[i * n + k] * s[k] * vp[j * n + k];
      out[i * n + j] = acc;
    }
  return MatrixBlock::dense(n, n, std::move(out));
}

}  // namespace dmlrt::kernels::cpu
