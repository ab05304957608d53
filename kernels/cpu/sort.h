// CPU kernels of sorting and order statistics: order() (SystemDS's rsort: stable sort of rows by
// one or more columns, or the permutation as 1-based indices), and the sort + pick pair behind
// median() and quantile() (qsort, qpick).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// in (m, n) sorted by the 1-based columns `by` (lexicographically), ascending or decreasing;
// ties keep their input order in both directions (as SystemDS). Returns the sorted rows (m, n),
// or with index_return the (m, 1) 1-based source row of each output row. NaN sorts last in
// ascending order (Java's Double.compare).
MatrixBlock order(const MatrixBlock& in, const std::vector<int64_t>& by, bool decreasing,
                  bool index_return);

// (m, 1) -> (m, 1) ascending (SystemDS's qsort without weights).
MatrixBlock sort_values(const MatrixBlock& in);

// Quantile q of an ascending (m, 1) vector as SystemDS's MatrixBlock.pickValue(q, average=true):
// pos = ceil(q*m), v[pos-1] (clamped into [0, m-1]); for even m and 0 < pos < m the average of
// v[pos-1] and v[pos]. median is pick_value(sorted, 0.5).
double pick_value(const MatrixBlock& sorted, double q);

}  // namespace dmlrt::kernels::cpu
