// CPU kernel of pmm, the permutation matrix multiply (SystemDS's LibMatrixMult.matrixMultPermute).
#pragma once

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// p (n, 1) of target rows (1-based; 0 drops the row), x (n, c) -> (rlen, c) with row p[i] - 1
// holding x's row i. The caller checks the shapes; RuntimeError for a target outside [0, rlen].
MatrixBlock permutation_mm(const MatrixBlock& p, const MatrixBlock& x, int64_t rlen);

// The RuntimeError of an entry `t` of p (0-based row `row`) outside [0, rlen] or not whole; the GPU
// run raises the same.
[[noreturn]] void pmm_bad_entry(int64_t row, double t, int64_t rlen);

}  // namespace dmlrt::kernels::cpu
