// inv, cholesky, det and lu through LAPACK; see linalg.h.
#include "kernels/cpu/linalg.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/host_memory.h"

extern "C" {
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work,
             const int* lwork, int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s,
             double* u, const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork,
             int* iwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
}

namespace dmlrt::kernels::cpu {
namespace {

// commons-math3's thresholds, which SystemDS uses (LibCommonsMath).
constexpr double kLuSingularity = 1e-11;       // LUDecomposition's DEFAULT_TOO_SMALL
constexpr double kCholeskySymmetry = 1e-6;     // LibCommonsMath.RELATIVE_SYMMETRY_THRESHOLD
constexpr double kCholeskyPositivity = 1e-10;  // CholeskyDecomposition's default

// The shape rules all four share: square, at least one row (commons-math cannot hold a 0x0
// matrix: SystemDS fails with "matrix must have at least one row"), and LAPACK's int sizes.
int square_order(const MatrixBlock& a, const char* op) {
  const int64_t n = a.rows();
  DMLRT_REQUIRE(n == a.cols(), ShapeError,
                op << ": input must be a square matrix, got " << dims_string(n, a.cols()));
  DMLRT_REQUIRE(n > 0, ShapeError,
                op << ": input is " << dims_string(n, n)
                   << "; SystemDS needs a matrix with at least one row");
  DMLRT_REQUIRE(
      n <= std::numeric_limits<int>::max() && n * n <= std::numeric_limits<int64_t>::max() / 8,
      ShapeError, op << ": " << dims_string(n, n) << " exceeds LAPACK's 32-bit sizes");
  return static_cast<int>(n);
}

// A (n, n) as a column-major copy, i.e. A's transpose read row-major.
std::vector<double> column_major(const MatrixBlock& a) {
  const int64_t n = a.rows();
  std::vector<double> cm(static_cast<size_t>(n * n), 0.0);
  if (a.is_sparse()) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t p = a.row_ptr()[i]; p < a.row_ptr()[i + 1]; ++p)
        cm[static_cast<size_t>(a.col_idx()[p] * n + i)] = a.csr_values()[p];
  } else {
    const double* av = a.dense_data();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) cm[static_cast<size_t>(j * n + i)] = av[i * n + j];
  }
  return cm;
}

// Column-major (n, n) back into a row-major block in SystemDS's format.
MatrixBlock from_column_major(const std::vector<double>& cm, int64_t n) {
  MatrixBlock out = MatrixBlock::dense(n, n, 0.0);  // (n, n) row-major
  double* ov = out.dense_data();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) ov[i * n + j] = cm[static_cast<size_t>(j * n + i)];
  out.examine_format();
  return out;
}

// dgetrf in place on the column-major (n, n) `cm`; answers LAPACK's info (k > 0: U(k,k) == 0).
int lu_in_place(std::vector<double>& cm, std::vector<int>& ipiv, int n, const char* op) {
  ipiv.assign(static_cast<size_t>(n), 0);
  int info = 0;
  check_blas_headroom(std::string(op) +
                      " (LAPACK dgetrf)");  // See Note [OpenBLAS under a memory limit]
  dgetrf_(&n, &n, cm.data(), &n, ipiv.data(), &info);
  DMLRT_REQUIRE(info >= 0, Error, op << ": dgetrf rejected argument " << -info);
  return info;
}

// The first k (1-based) whose pivot |U(k,k)| is below commons-math's singularity threshold, or 0.
int small_pivot(const std::vector<double>& cm, int n) {
  for (int k = 0; k < n; ++k)
    if (!(std::abs(cm[static_cast<size_t>(k) * n + k]) >= kLuSingularity)) return k + 1;
  return 0;
}

// A (m, n) of any shape with at least one row and column, as a column-major copy.
std::vector<double> column_major_any(const MatrixBlock& a, const char* op) {
  const int64_t m = a.rows(), n = a.cols();
  DMLRT_REQUIRE(m > 0 && n > 0, ShapeError,
                op << ": input is " << dims_string(m, n)
                   << "; SystemDS needs a matrix with at least one row and column");
  DMLRT_REQUIRE(m <= std::numeric_limits<int>::max() && n <= std::numeric_limits<int>::max() &&
                    m * n <= std::numeric_limits<int64_t>::max() / 8,
                ShapeError, op << ": " << dims_string(m, n) << " exceeds LAPACK's 32-bit sizes");
  std::vector<double> cm(static_cast<size_t>(m * n), 0.0);
  const MatrixBlock d = a.to_dense();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) cm[static_cast<size_t>(j * m + i)] = d.dense_data()[i * n + j];
  return cm;
}

}  // namespace

MatrixBlock inverse(const MatrixBlock& a) {
  const int n = square_order(a, "inverse");
  std::vector<double> cm = column_major(a);  // (n, n) column-major
  std::vector<int> ipiv;
  const int info = lu_in_place(cm, ipiv, n, "inverse");
  DMLRT_REQUIRE(info == 0, RuntimeError,
                "inverse: matrix is singular: U(" << info << "," << info
                                                  << ") of the LU factorisation of the "
                                                  << dims_string(n, n) << " input is exactly zero");
  int lwork = -1, winfo = 0;
  double wq = 0;
  dgetri_(&n, cm.data(), &n, ipiv.data(), &wq, &lwork, &winfo);  // workspace query
  lwork = std::max(n, static_cast<int>(wq));
  std::vector<double> work(static_cast<size_t>(lwork));
  dgetri_(&n, cm.data(), &n, ipiv.data(), work.data(), &lwork, &winfo);
  DMLRT_REQUIRE(winfo == 0, Error, "inverse: dgetri answered info " << winfo);
  return from_column_major(cm, n);
}

MatrixBlock cholesky(const MatrixBlock& a) {
  const int n = square_order(a, "cholesky");
  const MatrixBlock d = a.to_dense();
  const double* av = d.dense_data();  // (n, n) row-major
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      const double aij = av[i * n + j], aji = av[j * n + i];
      DMLRT_REQUIRE(
          !(std::abs(aij - aji) > kCholeskySymmetry * std::max(std::abs(aij), std::abs(aji))),
          RuntimeError,
          "cholesky: matrix is not symmetric: entries ("
              << i << "," << j << ")=" << aij << " and (" << j << "," << i << ")=" << aji
              << " differ by more than the relative threshold 1e-6");
    }
  // Row-major A read column-major is A^T, whose lower triangle is A's upper one: the triangle
  // commons-math factorises. dpotrf leaves L in that lower triangle, column-major.
  std::vector<double> buf(d.dense_values());
  const char uplo = 'L';
  int info = 0;
  check_blas_headroom("cholesky (LAPACK dpotrf)");  // See Note [OpenBLAS under a memory limit]
  dpotrf_(&uplo, &n, buf.data(), &n, &info);
  DMLRT_REQUIRE(info >= 0, Error, "cholesky: dpotrf rejected argument " << -info);
  // dpotrf stops at a pivot <= 0; commons-math already at one <= 1e-10.
  int bad = info;
  for (int k = 0; bad == 0 && k < n; ++k) {
    const double l = buf[static_cast<size_t>(k) * n + k];
    if (l * l <= kCholeskyPositivity) bad = k + 1;
  }
  DMLRT_REQUIRE(bad == 0, RuntimeError,
                "cholesky: matrix is not positive definite: pivot "
                    << bad - 1 << " of the " << dims_string(n, n) << " input is not above 1e-10");
  MatrixBlock l = MatrixBlock::dense(n, n, 0.0);  // (n, n) row-major, lower triangular
  double* lv = l.dense_data();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) lv[i * n + j] = buf[static_cast<size_t>(j * n + i)];
  l.examine_format();
  return l;
}

double det(const MatrixBlock& a) {
  const int n = square_order(a, "det");
  std::vector<double> cm = column_major(a);  // (n, n) column-major
  std::vector<int> ipiv;
  if (lu_in_place(cm, ipiv, n, "det") > 0 || small_pivot(cm, n) > 0) return 0.0;
  // commons-math's order: the sign first, then U's diagonal from the top.
  bool odd = false;
  for (int k = 0; k < n; ++k) odd ^= ipiv[static_cast<size_t>(k)] != k + 1;
  double r = odd ? -1.0 : 1.0;
  for (int k = 0; k < n; ++k) r *= cm[static_cast<size_t>(k) * n + k];
  return r;
}

LuFactors lu(const MatrixBlock& a) {
  const int n = square_order(a, "lu");
  std::vector<double> cm = column_major(a);  // (n, n) column-major
  std::vector<int> ipiv;
  lu_in_place(cm, ipiv, n, "lu");
  const int k0 = small_pivot(cm, n);
  DMLRT_REQUIRE(k0 == 0, RuntimeError,
                "lu: matrix is singular: |U(" << k0 << "," << k0 << ")| of the "
                                              << dims_string(n, n) << " input is below 1e-11");
  // ipiv lists row swaps in order; applied to the identity order they give perm, with
  // (P A)(i, :) = A(perm[i], :).
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = i;
  for (int k = 0; k < n; ++k)
    std::swap(perm[static_cast<size_t>(k)], perm[static_cast<size_t>(ipiv[k] - 1)]);
  LuFactors r{MatrixBlock::dense(n, n, 0.0), MatrixBlock::dense(n, n, 0.0),
              MatrixBlock::dense(n, n, 0.0)};  // each (n, n) row-major
  double* pv = r.p.dense_data();
  double* lv = r.l.dense_data();
  double* uv = r.u.dense_data();
  for (int64_t i = 0; i < n; ++i) {
    pv[i * n + perm[static_cast<size_t>(i)]] = 1.0;
    lv[i * n + i] = 1.0;
    for (int64_t j = 0; j < n; ++j) {
      const double v = cm[static_cast<size_t>(j * n + i)];
      if (j < i)
        lv[i * n + j] = v;
      else
        uv[i * n + j] = v;
    }
  }
  r.p.examine_format();
  r.l.examine_format();
  r.u.examine_format();
  return r;
}

QrFactors qr(const MatrixBlock& a) {
  const int64_t m = a.rows(), n = a.cols();
  std::vector<double> cm = column_major_any(a, "qr");  // (m, n) column-major
  const int mi = static_cast<int>(m), ni = static_cast<int>(n);
  const int64_t k = std::min(m, n);
  std::vector<double> tau(static_cast<size_t>(k));
  int lwork = -1, info = 0;
  double wq = 0;
  check_blas_headroom("qr (LAPACK dgeqrf)");  // See Note [OpenBLAS under a memory limit]
  dgeqrf_(&mi, &ni, cm.data(), &mi, tau.data(), &wq, &lwork, &info);  // workspace query
  lwork = std::max(ni, static_cast<int>(wq));
  std::vector<double> work(static_cast<size_t>(lwork));
  dgeqrf_(&mi, &ni, cm.data(), &mi, tau.data(), work.data(), &lwork, &info);
  DMLRT_REQUIRE(info == 0, Error, "qr: dgeqrf rejected argument " << -info);

  QrFactors f{MatrixBlock::dense(m, n, 0.0), MatrixBlock::dense(m, n, 0.0)};  // (m, n) row-major
  double* hv = f.h.dense_data();
  double* rv = f.r.dense_data();
  for (int64_t j = 0; j < k; ++j) {
    const double t = tau[static_cast<size_t>(j)];
    double sign = 1.0;  // -1 where commons-math reflects and LAPACK does not
    if (t == 0.0) {
      const double rjj = cm[static_cast<size_t>(j * m + j)];
      for (int64_t i = j; i < m; ++i)
        hv[i * n + j] =
            rjj == 0.0 ? std::numeric_limits<double>::quiet_NaN() : (i == j ? 2.0 : 0.0);
      sign = rjj == 0.0 ? 1.0 : -1.0;
    } else {
      hv[j * n + j] = t;
      for (int64_t i = j + 1; i < m; ++i) hv[i * n + j] = t * cm[static_cast<size_t>(j * m + i)];
    }
    for (int64_t c = j; c < n; ++c) rv[j * n + c] = sign * cm[static_cast<size_t>(c * m + j)];
  }
  f.h.examine_format();
  f.r.examine_format();
  return f;
}

SvdFactors svd(const MatrixBlock& a) {
  const int64_t m = a.rows(), n = a.cols(), p = std::min(a.rows(), a.cols());
  std::vector<double> cm = column_major_any(a, "svd");  // (m, n) column-major
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), pi = static_cast<int>(p);
  std::vector<double> s(static_cast<size_t>(p));
  std::vector<double> u(static_cast<size_t>(m * p));   // (m, p) column-major
  std::vector<double> vt(static_cast<size_t>(p * n));  // (p, n) column-major
  std::vector<int> iwork(static_cast<size_t>(8 * p));
  const char jobz = 'S';
  int lwork = -1, info = 0;
  double wq = 0;
  check_blas_headroom("svd (LAPACK dgesdd)");  // See Note [OpenBLAS under a memory limit]
  dgesdd_(&jobz, &mi, &ni, cm.data(), &mi, s.data(), u.data(), &mi, vt.data(), &pi, &wq, &lwork,
          iwork.data(), &info);  // workspace query
  lwork = std::max(1, static_cast<int>(wq));
  std::vector<double> work(static_cast<size_t>(lwork));
  dgesdd_(&jobz, &mi, &ni, cm.data(), &mi, s.data(), u.data(), &mi, vt.data(), &pi, work.data(),
          &lwork, iwork.data(), &info);
  DMLRT_REQUIRE(info <= 0, RuntimeError,
                "svd: the singular values of the " << dims_string(m, n)
                                                   << " input did not converge (dgesdd)");
  DMLRT_REQUIRE(info == 0, Error, "svd: dgesdd rejected argument " << -info);
  SvdFactors f{MatrixBlock::dense(m, p, 0.0), MatrixBlock::dense(p, p, 0.0),
               MatrixBlock::dense(n, p, 0.0)};  // row-major
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < p; ++j) f.u.dense_data()[i * p + j] = u[static_cast<size_t>(j * m + i)];
  for (int64_t j = 0; j < p; ++j) f.sigma.dense_data()[j * p + j] = s[static_cast<size_t>(j)];
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < p; ++j)
      f.v.dense_data()[i * p + j] = vt[static_cast<size_t>(i * p + j)];
  f.u.examine_format();
  f.sigma.examine_format();
  f.v.examine_format();
  return f;
}

}  // namespace dmlrt::kernels::cpu
