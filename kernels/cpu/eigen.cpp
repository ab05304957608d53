// eigen() through LAPACK: dsyevd (symmetric) and dgeev (general, real eigenvalues); see eigen.h.
#include "kernels/cpu/eigen.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/host_memory.h"

extern "C" {
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
             double* work, const int* lwork, int* iwork, const int* liwork, int* info);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda,
            double* wr, double* wi, double* vl, const int* ldvl, double* vr, const int* ldvr,
            double* work, const int* lwork, int* info);
}

namespace dmlrt::kernels::cpu {
namespace {

// Square and within LAPACK's 32-bit sizes (kEigenMaxOrder), checked before anything is
// densified.
int checked_order(const MatrixBlock& a) {
  const int64_t n = a.rows();
  DMLRT_REQUIRE(n == a.cols(), ShapeError,
                "eigen: input must be a square matrix, got " << dims_string(n, a.cols()));
  DMLRT_REQUIRE(n <= kEigenMaxOrder, ShapeError,
                "eigen: " << dims_string(n, n) << " exceeds LAPACK's 32-bit sizes");
  return static_cast<int>(n);
}

// The input as a dense (n, n) row-major copy, every cell finite.
std::vector<double> finite_copy(const MatrixBlock& a, int64_t n) {
  std::vector<double> v = a.is_sparse() ? a.to_dense().dense_values() : a.dense_values();
  for (size_t k = 0; k < v.size(); ++k)
    DMLRT_REQUIRE(std::isfinite(v[k]), RuntimeError,
                  "eigen: cell (" << static_cast<int64_t>(k) / n + 1 << ","
                                  << static_cast<int64_t>(k) % n + 1 << ") of the "
                                  << dims_string(n, n) << " input is " << v[k]
                                  << "; the eigen decomposition needs finite values (SystemDS "
                                     "fails to converge)");
  return v;
}

// commons-math's MatrixUtils.isSymmetric (Note [eigen conventions]); NaN pairs pass, as there.
bool is_symmetric(const std::vector<double>& a, int64_t n) {
  const double tol = eigen_symmetry_tolerance(n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      const double aij = a[i * n + j], aji = a[j * n + i];
      if (std::fabs(aij - aji) > tol * std::max(std::fabs(aij), std::fabs(aji))) return false;
    }
  return true;
}

// The result from ascending `values` and the column-major (n, n) `cm` whose column order[j] is
// the eigenvector of values[j]: row-major, each column's sign per Note [eigen conventions].
EigenResult assemble(std::vector<double> values, const std::vector<double>& cm,
                     const std::vector<int64_t>& order, int64_t n) {
  EigenResult r{MatrixBlock::dense(n, 1, std::move(values)), MatrixBlock::dense(n, n, 0.0)};
  double* out = r.vectors.dense_data();  // (n, n) row-major
  for (int64_t j = 0; j < n; ++j) {
    const double* col = cm.data() + order[static_cast<size_t>(j)] * n;
    int64_t big = 0;
    for (int64_t i = 1; i < n; ++i)
      if (std::fabs(col[i]) > std::fabs(col[big])) big = i;
    const double s = col[big] < 0 ? -1.0 : 1.0;
    for (int64_t i = 0; i < n; ++i) out[i * n + j] = s * col[i];
  }
  r.values.examine_format();
  r.vectors.examine_format();
  return r;
}

// dsyevd on `a` (n, n) row-major, symmetric: read column-major it is A^T = A, whose lower
// triangle is A's upper one (the GPU run reads the same triangle). Overwrites `a`.
EigenResult symmetric(std::vector<double>& a, int n) {
  std::vector<double> w(static_cast<size_t>(n));
  const char jobz = 'V', uplo = 'L';
  int lwork = -1, liwork = -1, info = 0, iwq = 0;
  double wq = 0;
  check_blas_headroom("eigen (LAPACK dsyevd)");  // See Note [OpenBLAS under a memory limit]
  dsyevd_(&jobz, &uplo, &n, a.data(), &n, w.data(), &wq, &lwork, &iwq, &liwork, &info);
  lwork = std::max(1, static_cast<int>(wq));
  liwork = std::max(1, iwq);
  std::vector<double> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  dsyevd_(&jobz, &uplo, &n, a.data(), &n, w.data(), work.data(), &lwork, iwork.data(), &liwork,
          &info);
  DMLRT_REQUIRE(info >= 0, Error, "eigen: dsyevd rejected argument " << -info);
  DMLRT_REQUIRE(
      info == 0, RuntimeError,
      "eigen: the eigenvalues of the " << dims_string(n, n) << " input did not converge (dsyevd)");
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);  // dsyevd's values are ascending already
  return assemble(std::move(w), a, order, n);
}

// dgeev on `a` (n, n) row-major: read column-major it is A^T, whose left eigenvectors are A's
// right ones (u^T A^T = l u^T is A u = l u for a real l), so no transpose is needed.
EigenResult general(std::vector<double>& a, int n) {
  std::vector<double> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n));
  std::vector<double> vl(static_cast<size_t>(n) * n);  // (n, n) column-major, unit columns
  const char jobvl = 'V', jobvr = 'N';
  int lwork = -1, info = 0, one = 1;
  double wq = 0, none = 0;
  check_blas_headroom("eigen (LAPACK dgeev)");  // See Note [OpenBLAS under a memory limit]
  dgeev_(&jobvl, &jobvr, &n, a.data(), &n, wr.data(), wi.data(), vl.data(), &n, &none, &one, &wq,
         &lwork, &info);
  lwork = std::max(4 * n, static_cast<int>(wq));
  std::vector<double> work(static_cast<size_t>(lwork));
  dgeev_(&jobvl, &jobvr, &n, a.data(), &n, wr.data(), wi.data(), vl.data(), &n, &none, &one,
         work.data(), &lwork, &info);
  DMLRT_REQUIRE(info >= 0, Error, "eigen: dgeev rejected argument " << -info);
  DMLRT_REQUIRE(
      info == 0, RuntimeError,
      "eigen: the eigenvalues of the " << dims_string(n, n) << " input did not converge (dgeev)");
  for (int k = 0; k < n; ++k)
    DMLRT_REQUIRE(wi[static_cast<size_t>(k)] == 0.0, RuntimeError,
                  "eigen: the " << dims_string(n, n)
                                << " input is not symmetric and has complex eigenvalues ("
                                << wr[static_cast<size_t>(k)] << " +/- "
                                << std::fabs(wi[static_cast<size_t>(k)])
                                << "i); eigen returns real decompositions only (SystemDS "
                                   "returns the real parts, with columns that are no "
                                   "eigenvectors)");
  // Ascending, stable on ties (SystemDS's selection sort may swap tied columns; any order of a
  // repeated eigenvalue's vectors is as valid).
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    return wr[static_cast<size_t>(x)] < wr[static_cast<size_t>(y)];
  });
  std::vector<double> values(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) values[static_cast<size_t>(k)] = wr[order[static_cast<size_t>(k)]];
  return assemble(std::move(values), vl, order, n);
}

EigenResult empty_result() {
  return EigenResult{MatrixBlock::dense(0, 1), MatrixBlock::dense(0, 0)};
}

}  // namespace

EigenResult eigen(const MatrixBlock& in) {
  const int n = checked_order(in);
  if (n == 0) return empty_result();
  std::vector<double> a = finite_copy(in, n);  // (n, n) row-major
  return is_symmetric(a, n) ? symmetric(a, n) : general(a, n);
}

EigenResult eigen_symmetric(const MatrixBlock& in) {
  const int n = checked_order(in);
  if (n == 0) return empty_result();
  std::vector<double> a = finite_copy(in, n);  // (n, n) row-major
  return symmetric(a, n);
}

}  // namespace dmlrt::kernels::cpu
