// CPU kernels of table() (SystemDS's ctable and ctableexpand): contingency tables from two
// vectors of 1-based category ids with weights, and the expand form table(seq(1, m), v, w) that
// one-hot encodes v. Semantics are SystemDS's CTable function object (checked against 3.4).
#pragma once

#include <cstdint>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// One input of ctable: a matrix, or a scalar used for every cell.
struct CtableArg {
  const MatrixBlock* matrix = nullptr;
  double scalar = 0.0;
};

// out[a_i, b_i] += w_i over the cells i of the matrix inputs (all of one shape). Cells with NaN
// in a, b or w are skipped; with ignore_zeros, cells where a and b are both 0 too. Other ids < 1
// throw RuntimeError. dim1/dim2 < 0: the output has max(a) rows / max(b) columns; otherwise
// cells outside dim1 x dim2 are dropped.
MatrixBlock ctable(const CtableArg& a, const CtableArg& b, const CtableArg& w, int64_t dim1,
                   int64_t dim2, bool ignore_zeros);

// table(seq(1, m), v, w) with v (m, 1): out[i, v_i] = w (seq_left) or out[v_i, i] = w. The seq
// side has m cells; the other dimension is `dim` (< 0: max(v)), cells beyond it dropped. NaN v
// is skipped, v < 1 throws RuntimeError.
MatrixBlock ctable_expand(const MatrixBlock& v, const CtableArg& w, int64_t dim, bool seq_left);

}  // namespace dmlrt::kernels::cpu
