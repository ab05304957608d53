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

double pick_value(const MatrixBlock& sorted, double q, bool average) {
  const int64_t m = sorted.rows();
  DMLRT_REQUIRE(sorted.cols() == 1, ShapeError,
                "qpick: expects a sorted column vector, got " << sorted.shape_string());
  DMLRT_REQUIRE(m > 0, RuntimeError, "qpick: quantile of an empty vector");
  // SystemDS picks from its qsort table, where all zeros share one row: rebuild that table.
  double zeros = 0;
  for (int64_t i = 0; i < m; ++i) zeros += sorted.get(i, 0) == 0 ? 1 : 0;
  std::vector<double> t;
  t.reserve(static_cast<size_t>(2 * m + 2));
  bool zero_row = false;
  for (int64_t i = 0; i < m; ++i) {
    const double v = sorted.get(i, 0);
    if (v == 0) continue;
    if (!zero_row && !(v < 0)) {
      t.insert(t.end(), {0.0, zeros});
      zero_row = true;
    }
    t.insert(t.end(), {v, 1.0});
  }
  if (!zero_row) t.insert(t.end(), {0.0, zeros});
  const int64_t k = static_cast<int64_t>(t.size() / 2);
  const MatrixBlock table = MatrixBlock::dense(k, 2, std::move(t));
  return pick_weighted_value(table, q, average);
}

namespace {

// Total weight of a (k, 2) table; SystemDS requires integer weights.
double weight_sum(const MatrixBlock& t, const char* op) {
  double sum = 0;
  for (int64_t i = 0; i < t.rows(); ++i) {
    const double w = t.get(i, 1);
    sum += w;
    DMLRT_REQUIRE(!(std::floor(w) < w), RuntimeError,
                  op << ": weights must be integers, got " << w << " in row " << i + 1);
  }
  return sum;
}

}  // namespace

MatrixBlock sort_weighted(const MatrixBlock& in, const MatrixBlock& weights) {
  DMLRT_REQUIRE(in.cols() == 1, ShapeError,
                "qsort: invalid input dimensions (" << in.rows() << "x" << in.cols()
                                                    << ") to sort operation, expected a column "
                                                       "vector");
  DMLRT_REQUIRE(weights.cols() == 1 && weights.rows() == in.rows(), ShapeError,
                "qsort: invalid weight dimensions ("
                    << weights.rows() << "x" << weights.cols() << ") for "
                    << dims_string(in.rows(), in.cols()) << " values, expected " << in.rows()
                    << "x1");
  // Zeros collapse into one row of their summed weight, as SystemDS's sortOperations.
  std::vector<std::pair<double, double>> rows{{0.0, 0.0}};
  for (int64_t i = 0; i < in.rows(); ++i) {
    const double v = in.get(i, 0), w = weights.get(i, 0);
    if (v != 0)
      rows.emplace_back(v, w);
    else
      rows[0].second += w;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return java_compare(a.first, b.first) < 0; });
  std::vector<double> out;
  out.reserve(rows.size() * 2);
  for (const auto& [v, w] : rows) {
    out.push_back(v);
    out.push_back(w);
  }
  MatrixBlock res = MatrixBlock::dense(static_cast<int64_t>(rows.size()), 2, std::move(out));
  res.examine_format();
  return res;
}

double pick_weighted_value(const MatrixBlock& t, double q, bool average) {
  DMLRT_REQUIRE(t.cols() == 2, ShapeError,
                "qpick: expects a sorted (value, weight) table, got " << t.shape_string());
  DMLRT_REQUIRE(q >= 0.0 && q <= 1.0, RuntimeError, "qpick: quantile must be in [0, 1], got " << q);
  const int64_t n = t.rows();
  const double sum_wt = weight_sum(t, "qpick");
  DMLRT_REQUIRE(sum_wt >= 1, RuntimeError,
                "qpick: quantile of a table with total weight " << sum_wt);
  average = average && std::fmod(sum_wt, 2.0) == 0;
  // SystemDS counts in int and compares pos with the table's row count (not the weight).
  const int64_t pos = static_cast<int64_t>(std::ceil(q * sum_wt));
  int64_t cum = 0, i = -1;
  do {
    ++i;
    cum = static_cast<int64_t>(static_cast<double>(cum) + t.get(i, 1));
  } while (cum < pos && i < n - 1);
  if (t.get(i, 1) != 0) {
    if (average && pos < n - 1) {
      if (pos < cum) return t.get(i, 0);
      if (t.get(i + 1, 1) != 0) return (t.get(i, 0) + t.get(i + 1, 0)) / 2.0;
      return (t.get(i, 0) + t.get(std::min(i + 2, n - 1), 0)) / 2.0;
    }
    return t.get(i, 0);
  }
  return i + 1 < n ? t.get(i + 1, 0) : t.get(std::max<int64_t>(i - 1, 0), 0);
}

double inter_quartile_mean(const MatrixBlock& sorted) {
  DMLRT_REQUIRE(sorted.cols() == 1 || sorted.cols() == 2, ShapeError,
                "qpick IQM: expects sorted values (m x 1) or a (value, weight) table (k x 2), got "
                    << sorted.shape_string());
  const int64_t n = sorted.rows();
  const bool weighted = sorted.cols() == 2;
  auto val = [&](int64_t i) { return sorted.get(i, 0); };
  auto wt = [&](int64_t i) { return weighted ? sorted.get(i, 1) : 1.0; };
  const double sum_wt = weighted ? weight_sum(sorted, "qpick IQM") : static_cast<double>(n);
  DMLRT_REQUIRE(n > 0, RuntimeError, "qpick IQM: interquartile mean of an empty vector");
  DMLRT_REQUIRE(sum_wt >= 1, RuntimeError,
                "qpick IQM: interquartile mean of a table with total weight " << sum_wt);
  const double q25d = 0.25 * sum_wt, q75d = 0.75 * sum_wt;
  const double q25i = std::ceil(q25d), q75i = std::ceil(q75d);
  // Skip to the row holding position ceil(W/4); its part above W/4 counts.
  double cum = 0;
  int64_t i = -1;
  while (cum < q25i && i < n - 1) cum += wt(++i);
  const double q25_part = cum - q25d, q25_val = val(i);
  // Add whole rows up to the one holding ceil(3W/4), then take back its part above 3W/4.
  double sum = 0;
  while (cum < q75i && i < n - 1) {
    ++i;
    cum += wt(i);
    sum += val(i) * wt(i);
  }
  const double q75_part = cum - q75d, q75_val = val(i);
  return (sum + q25_part * q25_val - q75_part * q75_val) / (sum_wt * 0.5);
}

}  // namespace dmlrt::kernels::cpu
