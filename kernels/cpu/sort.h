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

// Quantile q of an ascending (m, 1) vector as SystemDS, which picks from its qsort table (all
// zeros in one row, every other value weight 1): pick_weighted_value on that table. SystemDS
// averages for median() and a scalar quantile, not for a vector of quantiles.
double pick_value(const MatrixBlock& sorted, double q, bool average);

// SystemDS's weighted qsort: in (m, 1) values, weights (m, 1) non-negative integers. Returns its
// (value, weight) table (k+1, 2) sorted by value: one row (0, total weight of the zeros) and one
// row per non-zero value with its weight (zero weights kept).
MatrixBlock sort_weighted(const MatrixBlock& in, const MatrixBlock& weights);

// Quantile q of a weighted table (sort_weighted) as SystemDS's pickWeightedValue: the value at
// cumulative weight ceil(q*W), averaged with the next value when `average` and W is even.
double pick_weighted_value(const MatrixBlock& table, double q, bool average);

// interQuartileMean of qsort's output, (m, 1) sorted values or a weighted (k, 2) table, as
// SystemDS's MatrixBlock.interQuartileMean: the weighted mean of the values at cumulative
// weight positions (W/4, 3W/4], counting the boundary values by their fractional parts.
double inter_quartile_mean(const MatrixBlock& sorted);

}  // namespace dmlrt::kernels::cpu
