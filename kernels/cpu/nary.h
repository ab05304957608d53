// N-ary cell-wise ops on host blocks (SystemDS's BuiltinNary n+ n* nmin nmax, which its compiler
// emits for chains such as A + B + C, s * t * 3 or min(A, B, C)): every matrix shares one shape.
#pragma once

#include <vector>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

enum class NaryOp { kPlus, kMult, kMin, kMax };

// The identity the fold starts from (0, 1, +Inf, -Inf).
double nary_init(NaryOp op);
double nary_apply(NaryOp op, double acc, double x);

// SystemDS's MatrixBlock.naryOperations order: the scalars are folded into the start value
// first, then the matrices are applied in plan order, cell by cell. Every matrix must be
// (rows, cols) of the first one; `mats` is not empty. The result is examine_format()-ed.
MatrixBlock nary(NaryOp op, const std::vector<const MatrixBlock*>& mats,
                 const std::vector<double>& scalars);

}  // namespace dmlrt::kernels::cpu
