// order(), qsort and qpick on host blocks.
#include "kernels/cpu/sort.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gpu_context/error.h"

namespace dmlrt::kernels::cpu {
namespace {

// Java's Double.compare: -0.0 < 0.0, NaN above everything (and equal to itself).
int java_compare(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  const bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  const bool as = std::signbit(a), bs = std::signbit(b);
  return as == bs ? 0 : (as ? -1 : 1);
}

}  // namespace

MatrixBlock order(const MatrixBlock& in, const std::vector<int64_t>& by, bool decreasing,
                  bool index_return) {
  const int64_t m = in.rows(), n = in.cols();
  DMLRT_REQUIRE(!by.empty(), RuntimeError, "rsort: no sort column given");
  for (int64_t c : by)
    DMLRT_REQUIRE(c >= 1 && c <= n, RuntimeError,
                  "rsort: sort column " << c << " is out of range [1, " << n << "] of a "
                                        << dims_string(m, n) << " input");
  const MatrixBlock d = in.is_sparse() ? in.to_dense() : in;
  const double* x = d.dense_data();  // (m, n) row-major
  std::vector<int64_t> perm(static_cast<size_t>(m));
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    for (int64_t c : by) {
      const int r = java_compare(x[a * n + c - 1], x[b * n + c - 1]);
      if (r != 0) return decreasing ? r > 0 : r < 0;
    }
    return false;
  });
  if (index_return) {
    std::vector<double> idx(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) idx[i] = static_cast<double>(perm[i] + 1);
    MatrixBlock out = MatrixBlock::dense(m, 1, std::move(idx));
    out.examine_format();
    return out;
  }
  std::vector<double> out(static_cast<size_t>(m * n));  // (m, n) row-major
  for (int64_t i = 0; i < m; ++i)
    std::copy(x + perm[static_cast<size_t>(i)] * n, x + (perm[static_cast<size_t>(i)] + 1) * n,
              out.begin() + i * n);
  MatrixBlock res = MatrixBlock::dense(m, n, std::move(out));
  res.examine_format();
  return res;
}

MatrixBlock sort_values(const MatrixBlock& in) {
  DMLRT_REQUIRE(in.cols() == 1, ShapeError,
                "qsort: invalid input dimensions (" << in.rows() << "x" << in.cols()
                                                    << ") to sort operation, expected a column "
                                                       "vector");
  std::vector<double> v = in.is_sparse() ? in.to_dense().dense_values() : in.dense_values();
  std::stable_sort(v.begin(), v.end(), [](double a, double b) { return java_compare(a, b) < 0; });
  MatrixBlock out = MatrixBlock::dense(in.rows(), 1, std::move(v));
  out.examine_format();
  return out;
}

double pick_value(const MatrixBlock& sorted, double q) {
  const int64_t m = sorted.rows();
  DMLRT_REQUIRE(sorted.cols() == 1, ShapeError,
                "qpick: expects a sorted column vector, got " << sorted.shape_string());
  DMLRT_REQUIRE(m > 0, RuntimeError, "qpick: quantile of an empty vector");
  DMLRT_REQUIRE(q >= 0.0 && q <= 1.0, RuntimeError,
                "qpick: quantile must be in [0, 1], got " << q);
  const bool average = m % 2 == 0;
  const int64_t pos = static_cast<int64_t>(std::ceil(q * static_cast<double>(m)));
  const int64_t ix = std::min(std::max<int64_t>(pos - 1, 0), m - 1);
  if (average && pos > 0 && pos < m) return (sorted.get(ix, 0) + sorted.get(ix + 1, 0)) / 2.0;
  return sorted.get(ix, 0);
}

}  // namespace dmlrt::kernels::cpu
