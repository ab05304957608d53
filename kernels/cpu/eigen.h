// CPU kernel of eigen(): the eigen decomposition of a symmetric matrix by cyclic Jacobi rotations
// (accurate to a few ulps of the norm, no LAPACK needed). Eigenvalues come out ascending, as
// SystemDS sorts them (LibCommonsMath.computeEigen, "compatible w/ LAPACK.DSYEVR").
#pragma once

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

struct EigenResult {
  MatrixBlock values;   // (n, 1) ascending
  MatrixBlock vectors;  // (n, n) row-major, column j the unit eigenvector of values[j]
};

// a (n, n) must be symmetric (|a_ij - a_ji| <= 1e-12 * max|a|): ShapeError when not square,
// NotSupported when not symmetric. The sign of each eigenvector is the solver's choice.
EigenResult eigen_symmetric(const MatrixBlock& a);

}  // namespace dmlrt::kernels::cpu
