// replace, contains, rexpand and grouped aggregates on host blocks.
#include "kernels/cpu/parameterized.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/host_memory.h"
#include "kernels/cpu/java_format.h"
#include "kernels/cpu/java_math.h"

namespace dmlrt::kernels::cpu {
namespace {

bool matches(double v, double pattern) {
  return std::isnan(pattern) ? std::isnan(v) : v == pattern;
}

// (rows, cols) row-major copy of any block.
std::vector<double> dense_copy(const MatrixBlock& b) {
  if (!b.is_sparse()) return b.dense_values();
  return b.to_dense().dense_values();
}

}  // namespace

int64_t java_to_long(double v) {
  // UtilFunctions.toLong is signum(v) * floor(|v| + DOUBLE_EPS): truncation toward zero; the
  // epsilon lifts values within 2^-53 below an integer, which exist only below 1 (1 - 2^-54 -> 1).
  constexpr double kDoubleEps = 1.1102230246251565e-16;  // 2^-53
  if (std::isnan(v)) return 0;
  const double f = std::floor(std::fabs(v) + kDoubleEps);
  const double r = v < 0 ? -f : f;
  if (r >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (r <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(r);
}

MatrixBlock replace(const MatrixBlock& in, double pattern, double replacement) {
  const int64_t m = in.rows(), n = in.cols();
  if (in.is_sparse() && pattern != 0.0) {
    // Zeros stay zeros; only stored values can match.
    std::vector<double> values = in.csr_values();
    for (double& v : values)
      if (matches(v, pattern)) v = replacement;
    MatrixBlock out = MatrixBlock::csr(m, n, in.row_ptr(), in.col_idx(), std::move(values));
    out = out.to_sparse();  // a replacement by 0 drops the cell
    out.examine_format();
    return out;
  }
  std::vector<double> v = dense_copy(in);  // (m, n) row-major
  for (double& x : v)
    if (matches(x, pattern)) x = replacement;
  MatrixBlock out = MatrixBlock::dense(m, n, std::move(v));
  out.examine_format();
  return out;
}

bool contains(const MatrixBlock& in, double pattern) {
  if (in.is_empty()) return false;
  if (in.is_sparse()) {
    if (pattern == 0.0 && in.nnz() < in.size()) return true;
    for (double v : in.csr_values())
      if (matches(v, pattern)) return true;
    return false;
  }
  for (double v : in.dense_values())
    if (matches(v, pattern)) return true;
  return false;
}

MatrixBlock rexpand(const MatrixBlock& in, double max, bool rows_dir, bool cast, bool ignore) {
  DMLRT_REQUIRE(in.cols() == 1 || in.rows() == 0, ShapeError,
                "rexpand: the target must be a column vector, got " << in.shape_string());
  const int64_t m = in.rows();
  const int64_t lmax = java_to_long(max);
  DMLRT_REQUIRE(lmax >= 0, RuntimeError, "rexpand: max must be >= 0, got " << max);
  // SystemDS checks nnz < rows before looking at values (LibMatrixReorg.rexpand).
  DMLRT_REQUIRE(ignore || in.nnz() >= m, RuntimeError,
                "rexpand: invalid input w/ zeros for rexpand ignore=false (rlen="
                    << m << ", nnz=" << in.nnz() << ")");
  std::vector<int64_t> target(static_cast<size_t>(m), -1);  // 0-based cell index, -1 = none
  for (int64_t i = 0; i < m; ++i) {
    const double v = in.get(i, 0);
    const double c = cast ? static_cast<double>(java_to_long(v)) : std::trunc(v);
    if (std::isnan(v) || c <= 0) {
      DMLRT_REQUIRE(ignore, RuntimeError,
                    "rexpand: invalid input value " << v << " (<= 0) at row " << (i + 1)
                                                    << " with ignore=false");
      continue;
    }
    if (c > static_cast<double>(lmax)) continue;  // outside the output: dropped, as SystemDS
    target[static_cast<size_t>(i)] = static_cast<int64_t>(c) - 1;
  }
  // max comes from the plan: the (lmax, m) form holds a list head and a row offset per row.
  if (rows_dir)
    check_host_alloc("rexpand (max=" + std::to_string(lmax) + ")", lmax + 1, 1,
                     sizeof(std::vector<int32_t>) + sizeof(int64_t));
  else
    DMLRT_REQUIRE(lmax <= INT32_MAX, ShapeError,
                  "rexpand: a " << dims_string(m, lmax)
                                << " result exceeds the supported 2^31-1 columns");
  MatrixBlock out;
  if (!rows_dir) {  // (m, lmax): one cell per row
    std::vector<int64_t> row_ptr(static_cast<size_t>(m + 1), 0);
    std::vector<int32_t> col_idx;
    for (int64_t i = 0; i < m; ++i) {
      if (target[static_cast<size_t>(i)] >= 0)
        col_idx.push_back(static_cast<int32_t>(target[static_cast<size_t>(i)]));
      row_ptr[static_cast<size_t>(i + 1)] = static_cast<int64_t>(col_idx.size());
    }
    std::vector<double> values(col_idx.size(), 1.0);
    out = MatrixBlock::csr(m, lmax, std::move(row_ptr), std::move(col_idx), std::move(values));
  } else {  // (lmax, m): cell (v_i, i)
    std::vector<std::vector<int32_t>> rows(static_cast<size_t>(lmax));
    for (int64_t i = 0; i < m; ++i)
      if (target[static_cast<size_t>(i)] >= 0)
        rows[static_cast<size_t>(target[static_cast<size_t>(i)])].push_back(
            static_cast<int32_t>(i));
    std::vector<int64_t> row_ptr(static_cast<size_t>(lmax + 1), 0);
    std::vector<int32_t> col_idx;
    for (int64_t r = 0; r < lmax; ++r) {
      col_idx.insert(col_idx.end(), rows[static_cast<size_t>(r)].begin(),
                     rows[static_cast<size_t>(r)].end());
      row_ptr[static_cast<size_t>(r + 1)] = static_cast<int64_t>(col_idx.size());
    }
    std::vector<double> values(col_idx.size(), 1.0);
    out = MatrixBlock::csr(lmax, m, std::move(row_ptr), std::move(col_idx), std::move(values));
  }
  out.examine_format();
  return out;
}

bool group_agg_fn_from_name(const std::string& name, GroupAggFn* fn) {
  if (name == "sum") *fn = GroupAggFn::kSum;
  else if (name == "count") *fn = GroupAggFn::kCount;
  else if (name == "mean") *fn = GroupAggFn::kMean;
  else if (name == "variance") *fn = GroupAggFn::kVariance;
  else if (name == "centralmoment") *fn = GroupAggFn::kCentralMoment;
  else if (name == "min") *fn = GroupAggFn::kMin;
  else if (name == "max") *fn = GroupAggFn::kMax;
  else return false;
  return true;
}

MatrixBlock grouped_aggregate(const MatrixBlock& target, const MatrixBlock& groups,
                              const MatrixBlock* weights, GroupAggFn fn, int order,
                              int64_t ngroups) {
  const int64_t m = target.rows(), n = target.cols();
  DMLRT_REQUIRE(groups.cols() == 1 && groups.rows() == m, ShapeError,
                "groupedagg: groups must be a column vector with one row per target row, got "
                "target " << dims_string(m, n) << " and groups "
                          << dims_string(groups.rows(), groups.cols()));
  DMLRT_REQUIRE(weights == nullptr || (weights->rows() == m && weights->cols() == n), ShapeError,
                "groupedagg: weights must have the shape of the target " << dims_string(m, n)
                    << ", got " << dims_string(weights->rows(), weights->cols()));
  DMLRT_REQUIRE(fn != GroupAggFn::kCentralMoment || (order >= 2 && order <= 4), RuntimeError,
                "groupedagg: centralmoment order must be 2, 3 or 4, got " << order);
  std::vector<int64_t> gid(static_cast<size_t>(m));
  int64_t max_g = 0;
  for (int64_t i = 0; i < m; ++i) {
    const double g = groups.get(i, 0);
    // Java's (int) cast, which saturates.
    const int64_t ig = std::isnan(g)                 ? 0
                       : g >= 2147483647.0           ? int64_t{2147483647}
                       : g <= -2147483648.0          ? int64_t{-2147483648LL}
                                                     : static_cast<int64_t>(g);
    DMLRT_REQUIRE(ig >= 1, RuntimeError,
                  "groupedagg: invalid value (" << g << ") encountered in 'groups' at row "
                                                << (i + 1) << " (group ids start at 1)");
    gid[static_cast<size_t>(i)] = ig;
    max_g = std::max(max_g, ig);
  }
  const int64_t k = ngroups < 0 ? max_g : ngroups;
  // k comes from the data or the plan (ngroups): its (k, n) sums, weights and result are checked
  // first. Per cell: Kahan sum (16) + weight sum (8) + result (8), plus mean (8) and central sums
  // (16) for variance and central moments.
  const bool two_pass = fn == GroupAggFn::kVariance || fn == GroupAggFn::kCentralMoment;
  check_host_alloc("groupedagg with " + std::to_string(k) + " groups", k, n,
                   two_pass ? 56 : 32);
  const std::vector<double> x = dense_copy(target);  // (m, n) row-major
  const std::vector<double> w = weights ? dense_copy(*weights) : std::vector<double>();
  auto wt = [&](size_t idx) { return weights ? w[idx] : 1.0; };
  // Pass 1: weight sums and Kahan sums of w*x per (group, column); min and max need neither.
  const bool extreme = fn == GroupAggFn::kMin || fn == GroupAggFn::kMax;
  std::vector<KahanSum> sum(extreme ? 0 : static_cast<size_t>(k * n));
  std::vector<double> wsum(extreme ? 0 : static_cast<size_t>(k * n), 0.0);
  for (int64_t i = 0; i < m && !extreme; ++i) {
    const int64_t g = gid[static_cast<size_t>(i)];
    if (g > k) continue;
    for (int64_t j = 0; j < n; ++j) {
      const size_t src = static_cast<size_t>(i * n + j);
      const size_t dst = static_cast<size_t>((g - 1) * n + j);
      sum[dst].add(wt(src) * x[src]);
      wsum[dst] += wt(src);
    }
  }
  // An empty group (a group id up to ngroups that no row has) gives 0 for every fn but
  // centralmoment, which gives NaN (SystemDS's CM objects of weight 0).
  std::vector<double> out(static_cast<size_t>(k * n), 0.0);  // (k, n) row-major
  if (extreme) {
    // Java's Math.min/max per (group, column): NaN wins; weights do not take part.
    const bool is_min = fn == GroupAggFn::kMin;
    std::vector<char> seen(out.size(), 0);
    for (int64_t i = 0; i < m; ++i) {
      const int64_t g = gid[static_cast<size_t>(i)];
      if (g > k) continue;
      for (int64_t j = 0; j < n; ++j) {
        const size_t dst = static_cast<size_t>((g - 1) * n + j);
        const double v = x[static_cast<size_t>(i * n + j)];
        out[dst] = !seen[dst] ? v : is_min ? java_min(out[dst], v) : java_max(out[dst], v);
        seen[dst] = 1;
      }
    }
  } else if (fn == GroupAggFn::kSum || fn == GroupAggFn::kCount || fn == GroupAggFn::kMean) {
    for (size_t c = 0; c < out.size(); ++c) {
      if (fn == GroupAggFn::kSum) out[c] = sum[c].sum;
      else if (fn == GroupAggFn::kCount) out[c] = wsum[c];
      else out[c] = wsum[c] == 0.0 ? 0.0 : sum[c].sum / wsum[c];
    }
  } else {
    // Pass 2: central sums around the group means (two-pass for accuracy).
    std::vector<double> mean(out.size());
    for (size_t c = 0; c < out.size(); ++c) mean[c] = sum[c].sum / wsum[c];
    const int p = fn == GroupAggFn::kVariance ? 2 : order;
    std::vector<KahanSum> csum(out.size());
    for (int64_t i = 0; i < m; ++i) {
      const int64_t g = gid[static_cast<size_t>(i)];
      if (g > k) continue;
      for (int64_t j = 0; j < n; ++j) {
        const size_t src = static_cast<size_t>(i * n + j);
        const size_t dst = static_cast<size_t>((g - 1) * n + j);
        csum[dst].add(wt(src) * std::pow(x[src] - mean[dst], p));
      }
    }
    for (size_t c = 0; c < out.size(); ++c) {
      if (fn == GroupAggFn::kVariance)
        out[c] = wsum[c] <= 1.0 ? 0.0 : csum[c].sum / (wsum[c] - 1.0);
      else
        out[c] = wsum[c] == 0.0 ? std::numeric_limits<double>::quiet_NaN() : csum[c].sum / wsum[c];
    }
  }
  MatrixBlock res = MatrixBlock::dense(k, n, std::move(out));
  res.examine_format();
  return res;
}

std::string to_string(const MatrixBlock& in, int64_t rows, int64_t cols, int decimal, bool sparse,
                      const std::string& sep, const std::string& linesep) {
  DMLRT_REQUIRE(decimal >= 0 && decimal <= 340, RuntimeError,
                "toString: decimal must be in [0, 340], got " << decimal);
  const int64_t m = (rows >= 0 && rows < in.rows()) ? rows : in.rows();
  const int64_t n = (cols >= 0 && cols < in.cols()) ? cols : in.cols();
  std::string out;
  if (sparse) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double v = in.get(i, j);
        if (v == 0.0) continue;
        out += std::to_string(i + 1) + sep + std::to_string(j + 1) + sep +
               java_fixed_decimal(v, decimal) +
               linesep;
      }
    return out;
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const double v = in.get(i, j);
      out += java_fixed_decimal(v == 0.0 ? 0.0 : v, decimal);  // -0 prints as 0
      out += j + 1 < n ? sep : linesep;
    }
  }
  return out;
}

// Note [Triangle masks of empty rows]
// Verified with SystemDS 3.4: lower.tri/upper.tri with values=FALSE put ones in the triangle of
// every row of a dense input, but only of the rows that hold a nonzero of a sparse (CSR) one, and
// an input without nonzeros gives an all-zero result in either format. dmlrt's blocks are sparse
// exactly when SystemDS's are (Note [Sparse output format]), so following the input's format here
// reproduces SystemDS's outputs; this is the one op whose values depend on the format.
MatrixBlock extract_triangular(const MatrixBlock& in, bool lower, bool diag, bool values) {
  const int64_t rows = in.rows(), cols = in.cols();
  if (in.nnz() == 0) return MatrixBlock::empty_sparse(rows, cols);
  // Row i keeps columns [lo, hi).
  auto lo = [&](int64_t i) { return lower ? 0 : std::min(diag ? i : i + 1, cols); };
  auto hi = [&](int64_t i) { return lower ? std::min(diag ? i + 1 : i, cols) : cols; };
  if (!in.is_sparse()) {
    MatrixBlock out = MatrixBlock::dense(rows, cols);
    const double* a = in.dense_data();  // (rows, cols) row-major
    double* o = out.dense_data();
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = lo(i); j < hi(i); ++j) o[i * cols + j] = values ? a[i * cols + j] : 1.0;
    out.examine_format();
    return out;
  }
  const auto& rp = in.row_ptr();
  const auto& ci = in.col_idx();
  const auto& v = in.csr_values();
  std::vector<int64_t> row_ptr(static_cast<size_t>(rows) + 1, 0);
  std::vector<int32_t> col_idx;
  std::vector<double> vals;
  for (int64_t i = 0; i < rows; ++i) {
    if (rp[i + 1] > rp[i]) {
      const int64_t l = lo(i), h = hi(i);
      if (values) {
        for (int64_t p = rp[i]; p < rp[i + 1]; ++p)
          if (ci[p] >= l && ci[p] < h) {
            col_idx.push_back(ci[p]);
            vals.push_back(v[p]);
          }
      } else {
        for (int64_t j = l; j < h; ++j) {
          col_idx.push_back(static_cast<int32_t>(j));
          vals.push_back(1.0);
        }
      }
    }
    row_ptr[i + 1] = static_cast<int64_t>(col_idx.size());
  }
  MatrixBlock out =
      MatrixBlock::csr(rows, cols, std::move(row_ptr), std::move(col_idx), std::move(vals));
  out.examine_format();
  return out;
}

MatrixBlock remove_empty(const MatrixBlock& in, bool rows, bool empty_return,
                         const MatrixBlock* select) {
  const int64_t m = in.rows(), n = in.cols();
  const int64_t len = rows ? m : n;  // rows (columns) the flags cover
  const int64_t in_nnz = in.nnz();
  const int64_t min_len = empty_return ? 1 : 0;
  if (select == nullptr && in_nnz == 0)
    return rows ? MatrixBlock::empty_sparse(min_len, n) : MatrixBlock::empty_sparse(m, min_len);
  std::vector<char> keep(static_cast<size_t>(len), 0);
  if (select != nullptr) {
    DMLRT_REQUIRE(select->size() == len, ShapeError,
                  "rmempty: select must have one cell per target "
                      << (rows ? "row" : "column") << " (" << len << "), got "
                      << select->shape_string() << " for target " << in.shape_string());
    const int64_t sel_nnz = select->nnz();
    if (sel_nnz == len) return in;  // keeps everything: SystemDS passes the target through
    const int64_t sc = select->cols();
    if (select->is_sparse()) {
      const auto& rp = select->row_ptr();
      const auto& ci = select->col_idx();
      const auto& sv = select->csr_values();
      for (int64_t r = 0; r < select->rows(); ++r)
        for (int64_t p = rp[r]; p < rp[r + 1]; ++p)
          if (sv[p] != 0.0) keep[static_cast<size_t>(r * sc + ci[p])] = 1;
    } else {
      const auto& sv = select->dense_values();
      for (int64_t i = 0; i < len; ++i) keep[static_cast<size_t>(i)] = sv[i] != 0.0;
    }
  } else if (in.is_sparse()) {
    const auto& rp = in.row_ptr();
    const auto& ci = in.col_idx();
    const auto& v = in.csr_values();
    for (int64_t r = 0; r < m; ++r)
      for (int64_t p = rp[r]; p < rp[r + 1]; ++p)
        if (v[p] != 0.0) keep[static_cast<size_t>(rows ? r : ci[p])] = 1;
  } else {
    const double* a = in.dense_data();
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < n; ++c)
        if (a[r * n + c] != 0.0) keep[static_cast<size_t>(rows ? r : c)] = 1;
  }
  // New index of every kept row/column; -1 for dropped ones.
  std::vector<int64_t> to(static_cast<size_t>(len), -1);
  int64_t k = 0;
  for (int64_t i = 0; i < len; ++i)
    if (keep[static_cast<size_t>(i)]) to[static_cast<size_t>(i)] = k++;
  const int64_t out_len = std::max(k, min_len);
  const int64_t om = rows ? out_len : m, on = rows ? n : out_len;
  if (in_nnz == 0) return MatrixBlock::empty_sparse(om, on);
  MatrixBlock out;
  if (in.is_sparse()) {
    const auto& rp = in.row_ptr();
    const auto& ci = in.col_idx();
    const auto& v = in.csr_values();
    std::vector<int64_t> orp(static_cast<size_t>(om + 1), 0);
    std::vector<int32_t> oci;
    std::vector<double> ov;
    int64_t orow = 0;
    for (int64_t r = 0; r < m; ++r) {
      if (rows && to[static_cast<size_t>(r)] < 0) continue;
      for (int64_t p = rp[r]; p < rp[r + 1]; ++p) {
        const int64_t c = rows ? ci[p] : to[static_cast<size_t>(ci[p])];
        if (c < 0 || v[p] == 0.0) continue;
        oci.push_back(static_cast<int32_t>(c));
        ov.push_back(v[p]);
      }
      orp[static_cast<size_t>(++orow)] = static_cast<int64_t>(ov.size());
    }
    // rows: an empty_return row past the kept ones stays empty
    for (int64_t r = orow + 1; r <= om; ++r) orp[static_cast<size_t>(r)] = orp[orow];
    out = MatrixBlock::csr(om, on, std::move(orp), std::move(oci), std::move(ov));
  } else {
    check_host_alloc("rmempty", om, on, sizeof(double));
    std::vector<double> ov(static_cast<size_t>(om * on), 0.0);  // (om, on) row-major
    const double* a = in.dense_data();
    for (int64_t r = 0; r < m; ++r) {
      if (rows) {
        const int64_t t = to[static_cast<size_t>(r)];
        if (t >= 0) std::copy(a + r * n, a + (r + 1) * n, ov.begin() + t * n);
      } else {
        for (int64_t c = 0; c < n; ++c) {
          const int64_t t = to[static_cast<size_t>(c)];
          if (t >= 0) ov[static_cast<size_t>(r * on + t)] = a[r * n + c];
        }
      }
    }
    out = MatrixBlock::dense(om, on, std::move(ov));
  }
  out.examine_format();
  return out;
}

}  // namespace dmlrt::kernels::cpu
