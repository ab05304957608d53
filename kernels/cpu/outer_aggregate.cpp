// uaggouterchain on host blocks (outer_aggregate.h).
#include "kernels/cpu/outer_aggregate.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dmlrt::kernels::cpu {
namespace {

constexpr int64_t kChunkCells = int64_t{1} << 22;  // 32 MiB of doubles per outer chunk

// Rows [r0, r1) of the column x.
MatrixBlock rows_of(const MatrixBlock& x, int64_t r0, int64_t r1) {
  std::vector<double> v(r1 - r0);
  for (int64_t r = r0; r < r1; ++r) v[r - r0] = x.get(r, 0);
  return MatrixBlock::dense(r1 - r0, 1, std::move(v));
}

// Combines per-chunk partial results of a column or full aggregate.
double combine(AggOp agg, double acc, double part) {
  switch (agg) {
    case AggOp::kMax:
      return std::isnan(acc) || std::isnan(part) ? NAN : std::max(acc, part);
    case AggOp::kMin:
      return std::isnan(acc) || std::isnan(part) ? NAN : std::min(acc, part);
    default:
      return acc + part;  // kSum
  }
}

}  // namespace

MatrixBlock outer_aggregate(const MatrixBlock& x, const MatrixBlock& y, BinaryOp op,
                            OuterAggKind kind, OuterAggDir dir, AggOp agg) {
  const int64_t m = x.rows(), n = y.cols();
  const int64_t step = std::max<int64_t>(1, kChunkCells / std::max<int64_t>(1, n));
  if (m <= step || m == 0) {  // one chunk: exactly the unfused computation
    const MatrixBlock o = binary_matrix_matrix(op, x, y);
    if (kind == OuterAggKind::kIndexMax) return row_index_max(o);
    if (kind == OuterAggKind::kIndexMin) return row_index_min(o);
    if (dir == OuterAggDir::kRow) return aggregate_rows(o, agg);
    if (dir == OuterAggDir::kCol) return aggregate_cols(o, agg);
    return MatrixBlock::dense(1, 1, aggregate_all(o, agg));
  }
  std::vector<double> rows;  // kRow and index ops: (m, 1)
  std::vector<double> acc;   // kCol: (1, n); kAll: one value
  for (int64_t r0 = 0; r0 < m; r0 += step) {
    const int64_t r1 = std::min(m, r0 + step);
    const MatrixBlock o = binary_matrix_matrix(op, rows_of(x, r0, r1), y);
    MatrixBlock part;
    if (kind == OuterAggKind::kIndexMax)
      part = row_index_max(o);
    else if (kind == OuterAggKind::kIndexMin)
      part = row_index_min(o);
    else if (dir == OuterAggDir::kRow)
      part = aggregate_rows(o, agg);
    else if (dir == OuterAggDir::kCol)
      part = aggregate_cols(o, agg);
    else
      part = MatrixBlock::dense(1, 1, aggregate_all(o, agg));
    if (kind != OuterAggKind::kAggregate || dir == OuterAggDir::kRow) {
      for (int64_t r = 0; r < part.rows(); ++r) rows.push_back(part.get(r, 0));
    } else if (acc.empty()) {
      for (int64_t c = 0; c < part.cols(); ++c) acc.push_back(part.get(0, c));
    } else {
      for (int64_t c = 0; c < part.cols(); ++c) acc[c] = combine(agg, acc[c], part.get(0, c));
    }
  }
  if (kind != OuterAggKind::kAggregate || dir == OuterAggDir::kRow)
    return MatrixBlock::dense(m, 1, std::move(rows));
  const int64_t cols = static_cast<int64_t>(acc.size());
  MatrixBlock out = MatrixBlock::dense(1, cols, std::move(acc));
  out.examine_format();
  return out;
}

}  // namespace dmlrt::kernels::cpu
