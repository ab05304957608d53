// Linear solve on the CPU: X = A^-1 B for square A by LU with partial pivoting (LAPACK dgesv from
// OpenBLAS). Sparse inputs are densified: the LU factors of a sparse A are dense in general.
#pragma once

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// A (n, n), B (n, k) -> X (n, k) with A X = B. Throws ShapeError for a non-square A or a B whose
// row count differs from n, and RuntimeError when A is singular (an exactly zero pivot).
MatrixBlock solve(const MatrixBlock& a, const MatrixBlock& b);

}  // namespace dmlrt::kernels::cpu
