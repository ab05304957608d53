// CPU kernels of the unary aggregates: sum, sum of squares, product, mean, max, min, variance over
// the whole matrix, per row or per column, and rowIndexMax / rowIndexMin. Semantics are SystemDS's
// CP backend (see Note [Aggregates of empty inputs] in aggregate.cpp and java_math.h).
#pragma once

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// kSum: Kahan sum (see Note [Kahan summation]); kSumSq: Kahan sum of x^2; kVar: sample variance
// (divides by n-1; one value gives 0, none gives NaN); kMax/kMin propagate NaN as Java's Math.max.
enum class AggOp { kSum, kSumSq, kProd, kMean, kMax, kMin, kVar };

// All cells of (m, n) -> one value.
double aggregate_all(const MatrixBlock& in, AggOp op);
// (m, n) -> (m, 1), one value per row.
MatrixBlock aggregate_rows(const MatrixBlock& in, AggOp op);
// (m, n) -> (1, n), one value per column.
MatrixBlock aggregate_cols(const MatrixBlock& in, AggOp op);

// (n, n) -> the Kahan sum of its diagonal (trace). The caller has checked that it is square.
double trace(const MatrixBlock& in);

// (m, n) -> (m, 1) of 1-based column indices of each row's max (min): the LAST position that holds
// the max, NaN ignored, implicit zeros of sparse rows included; an all-NaN row gives 1 and a
// 0-column input gives 0 (what SystemDS returns).
MatrixBlock row_index_max(const MatrixBlock& in);
MatrixBlock row_index_min(const MatrixBlock& in);

}  // namespace dmlrt::kernels::cpu
