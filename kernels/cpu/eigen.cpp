// Symmetric eigen decomposition by cyclic Jacobi rotations.
#include "kernels/cpu/eigen.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "gpu_context/error.h"

namespace dmlrt::kernels::cpu {

EigenResult eigen_symmetric(const MatrixBlock& in) {
  DMLRT_REQUIRE(in.rows() == in.cols(), ShapeError,
                "eigen: input must be a square matrix, got " << dims_string(in.rows(), in.cols()));
  const int64_t n = in.rows();
  std::vector<double> a = in.is_sparse() ? in.to_dense().dense_values() : in.dense_values();
  double amax = 0.0;
  for (double v : a) amax = std::max(amax, std::fabs(v));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      DMLRT_REQUIRE(std::fabs(a[i * n + j] - a[j * n + i]) <= 1e-12 * amax, NotSupported,
                    "eigen: only symmetric matrices are supported; cell (" << i + 1 << ","
                        << j + 1 << ") is " << a[i * n + j] << " but (" << j + 1 << "," << i + 1
                        << ") is " << a[j * n + i]);
  std::vector<double> v(static_cast<size_t>(n * n), 0.0);  // (n, n) row-major, columns = vectors
  for (int64_t i = 0; i < n; ++i) v[i * n + i] = 1.0;
  auto at = [&](int64_t i, int64_t j) -> double& { return a[i * n + j]; };
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0.0, diag = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      diag += at(i, i) * at(i, i);
      for (int64_t j = i + 1; j < n; ++j) off += at(i, j) * at(i, j);
    }
    if (off == 0.0 || off <= 1e-32 * diag) break;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double apq = at(p, q);
        if (apq == 0.0) continue;
        // Rotation that zeroes a_pq (Golub & Van Loan, Algorithm 8.5.1 / symmetric Schur).
        const double theta = (at(q, q) - at(p, p)) / (2.0 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // A = A J (columns p, q)
          const double akp = at(k, p), akq = at(k, q);
          at(k, p) = c * akp - s * akq;
          at(k, q) = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; ++k) {  // A = J^T A (rows p, q)
          const double apk = at(p, k), aqk = at(q, k);
          at(p, k) = c * apk - s * aqk;
          at(q, k) = s * apk + c * aqk;
        }
        at(p, q) = at(q, p) = 0.0;
        for (int64_t k = 0; k < n; ++k) {  // V = V J
          const double vkp = v[k * n + p], vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t x, int64_t y) { return at(x, x) < at(y, y); });
  std::vector<double> vals(static_cast<size_t>(n)), vecs(static_cast<size_t>(n * n));
  for (int64_t j = 0; j < n; ++j) {
    const int64_t src = idx[static_cast<size_t>(j)];
    vals[static_cast<size_t>(j)] = at(src, src);
    for (int64_t k = 0; k < n; ++k) vecs[k * n + j] = v[k * n + src];
  }
  EigenResult r{MatrixBlock::dense(n, 1, std::move(vals)), MatrixBlock::dense(n, n, std::move(vecs))};
  r.values.examine_format();
  r.vectors.examine_format();
  return r;
}

}  // namespace dmlrt::kernels::cpu
