// CPU kernel of uaggouterchain, SystemDS's fused agg(outer(x, y, op)) (e.g. rowSums(outer(X, t(y),
// "<")), rowIndexMax(outer(X, y, "=="))), computed without holding the (m, n) outer block.
#pragma once

#include "kernels/cpu/aggregate.h"
#include "kernels/cpu/binary.h"
#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

enum class OuterAggDir { kAll, kRow, kCol };
enum class OuterAggKind { kAggregate, kIndexMax, kIndexMin };

// x (m, 1), y (1, n). kAll -> (1, 1), kRow -> (m, 1), kCol -> (1, n): agg of op(x_i, y_j). The
// outer block is built in row chunks with the cell-wise kernel and reduced with the unary
// aggregate kernels, so every value is what the unfused agg(outer(...)) gives (sums of a
// column or all cells add per-chunk Kahan sums when m*n exceeds one chunk).
MatrixBlock outer_aggregate(const MatrixBlock& x, const MatrixBlock& y, BinaryOp op,
                            OuterAggKind kind, OuterAggDir dir, AggOp agg);

}  // namespace dmlrt::kernels::cpu
