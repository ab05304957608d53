// Contingency tables (ctable, ctableexpand) on host blocks.
#include "kernels/cpu/ctable.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/host_memory.h"
#include "kernels/cpu/parameterized.h"

namespace dmlrt::kernels::cpu {
namespace {

double cell(const CtableArg& x, int64_t r, int64_t c) {
  if (!x.matrix) return x.scalar;
  // A column vector paired with a row-vector shape (see ctable()): cell (0, c) is its row c.
  if (r == 0 && x.matrix->cols() == 1 && c > 0) return x.matrix->get(c, 0);
  return x.matrix->get(r, c);
}

// Builds a CSR block from (row, col) -> value, dropping zeros.
MatrixBlock from_map(int64_t rows, int64_t cols, const std::map<std::pair<int64_t, int64_t>, double>& cells) {
  // rows and cols come from the data or the plan's dims: the row index is checked before it is
  // taken, and the result cannot have more columns than CSR indexes.
  check_host_alloc("ctable output " + dims_string(rows, cols) + " (row index)", rows + 1, 1,
                   sizeof(int64_t));
  DMLRT_REQUIRE(cols <= INT32_MAX, ShapeError,
                "ctable: a " << dims_string(rows, cols)
                             << " result exceeds the supported 2^31-1 columns");
  std::vector<int64_t> row_ptr(static_cast<size_t>(rows + 1), 0);
  std::vector<int32_t> col_idx;
  std::vector<double> values;
  for (const auto& [rc, v] : cells) {
    if (v == 0.0) continue;
    row_ptr[static_cast<size_t>(rc.first + 1)]++;
    col_idx.push_back(static_cast<int32_t>(rc.second));
    values.push_back(v);
  }
  for (int64_t r = 0; r < rows; ++r) row_ptr[static_cast<size_t>(r + 1)] += row_ptr[static_cast<size_t>(r)];
  MatrixBlock out = MatrixBlock::csr(rows, cols, std::move(row_ptr), std::move(col_idx), std::move(values));
  out.examine_format();
  return out;
}

}  // namespace

MatrixBlock ctable(const CtableArg& a, const CtableArg& b, const CtableArg& w, int64_t dim1,
                   int64_t dim2, bool ignore_zeros) {
  const MatrixBlock* shape = a.matrix ? a.matrix : (b.matrix ? b.matrix : w.matrix);
  DMLRT_REQUIRE(shape != nullptr, RuntimeError, "ctable: at least one input must be a matrix");
  const int64_t m = shape->rows(), n = shape->cols();
  // Note: SystemDS reads the other inputs at the shape's (i, j) by dense linear position, so a
  // (n, 1) column vector also pairs with a (1, n) row-vector shape (km's table(Is, seq(1, n))).
  for (const CtableArg* x : {&a, &b, &w})
    DMLRT_REQUIRE(!x->matrix || (x->matrix->rows() == m && x->matrix->cols() == n) ||
                      (m == 1 && x->matrix->cols() == 1 && x->matrix->rows() == n),
                  ShapeError,
                  "ctable: inputs must have the same dimensions, got "
                      << dims_string(m, n) << " and "
                      << dims_string(x->matrix->rows(), x->matrix->cols()));
  // Ordered map: cells are accumulated in input order per cell, as SystemDS's sequential loop.
  std::map<std::pair<int64_t, int64_t>, double> cells;
  int64_t max_r = 0, max_c = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const double v1 = cell(a, i, j), v2 = cell(b, i, j), wv = cell(w, i, j);
      if (std::isnan(v1) || std::isnan(v2) || std::isnan(wv)) continue;
      const int64_t r = java_to_long(v1), c = java_to_long(v2);
      if (ignore_zeros && r == 0 && c == 0) continue;
      DMLRT_REQUIRE(r > 0 && c > 0, RuntimeError,
                    "ctable: erroneous input while computing the contingency table (one of the "
                    "value <= zero): " << v1 << " " << v2);
      if ((dim1 >= 0 && r > dim1) || (dim2 >= 0 && c > dim2)) continue;
      cells[{r - 1, c - 1}] += wv;
      max_r = std::max(max_r, r);
      max_c = std::max(max_c, c);
    }
  }
  return from_map(dim1 >= 0 ? dim1 : max_r, dim2 >= 0 ? dim2 : max_c, cells);
}

MatrixBlock ctable_expand(const MatrixBlock& v, const CtableArg& w, int64_t dim, bool seq_left) {
  DMLRT_REQUIRE(v.cols() == 1 || v.rows() == 0, ShapeError,
                "ctableexpand: the input must be a column vector, got " << v.shape_string());
  DMLRT_REQUIRE(!w.matrix || (w.matrix->rows() == v.rows() && w.matrix->cols() == 1), ShapeError,
                "ctableexpand: weights must match the input " << dims_string(v.rows(), 1));
  const int64_t m = v.rows();
  std::map<std::pair<int64_t, int64_t>, double> cells;
  int64_t max_c = 0;
  for (int64_t i = 0; i < m; ++i) {
    const double x = v.get(i, 0), wv = cell(w, i, 0);
    if (std::isnan(x) || std::isnan(wv)) continue;
    const int64_t c = java_to_long(x);
    DMLRT_REQUIRE(c > 0, RuntimeError,
                  "ctableexpand: erroneous input while computing the contingency table (value "
                  "<= zero): " << x);
    if (dim >= 0 && c > dim) continue;
    max_c = std::max(max_c, c);
    if (seq_left) cells[{i, c - 1}] = wv;
    else cells[{c - 1, i}] = wv;
  }
  const int64_t other = dim >= 0 ? dim : max_c;
  return seq_left ? from_map(m, other, cells) : from_map(other, m, cells);
}

}  // namespace dmlrt::kernels::cpu
