// CPU kernel of eigen(): the eigen decomposition through LAPACK (OpenBLAS): dsyevd for a symmetric
// input, dgeev for a non-symmetric one with real eigenvalues, in SystemDS's output layout and
// order (LibCommonsMath.computeEigen). Note [eigen conventions] is shared with the GPU run.
#pragma once

#include <cstdint>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// Note [eigen conventions]
// SystemDS runs commons-math's EigenDecomposition, which takes its symmetric path (Householder
// tridiagonalisation + QL) when every pair passes |a_ij - a_ji| <= 10 n^2 2^-53 max(|a_ij|,
// |a_ji|) (MatrixUtils.isSymmetric; eigen_symmetry_tolerance below) and its general one (Schur
// form) otherwise, then sorts the eigenvalues ascending, moving the eigenvector columns along ("to
// be compatible w/ LAPACK.DSYEVR"). dmlrt takes the same test and order on both backends:
//   symmetric   dsyevd (the GPU: cuSOLVER syevd) on A's upper triangle: orthonormal eigenvectors;
//   otherwise   dgeev: unit-length eigenvectors. commons-math leaves its general eigenvectors
//               unnormalised (Schur back-substitution), so SystemDS's columns are multiples of
//               dmlrt's (docs/deviations.md). Complex eigenvalues are an error: SystemDS returns
//               their real parts with columns that are no eigenvectors of A.
// Signs: an eigenvector is defined up to its sign, and which one a solver returns is an accident
// of its algorithm (commons-math's too). dmlrt negates each column whose entry of largest
// magnitude (the first such on exact ties) is negative, on both backends, so that the CPU and GPU
// runs agree column for column wherever the eigenvalues are distinct. NaN or infinite input is an
// error, as in SystemDS (commons-math fails to converge).

// commons-math's relative symmetry threshold for an (n, n) matrix, 10 n^2 Precision.EPSILON
// (2^-53); the GPU run applies it to FP32 data as well (Note [GPU eigen] in
// kernels/cuda/eigen_op.cpp).
constexpr double eigen_symmetry_tolerance(int64_t n) {
  return 10.0 * static_cast<double>(n) * static_cast<double>(n) * 1.1102230246251565e-16;
}

// The largest n whose dsyevd workspace, 1 + 6n + 2n^2 doubles, LAPACK's 32-bit sizes can count.
constexpr int64_t kEigenMaxOrder = 32766;

struct EigenResult {
  MatrixBlock values;   // (n, 1) ascending
  MatrixBlock vectors;  // (n, n) row-major, column j the eigenvector of values[j]
};

// eigen(A) for a (n, n), dense or CSR, per Note [eigen conventions]. ShapeError when a is not
// square or n > kEigenMaxOrder; RuntimeError for NaN/infinite cells or complex
// eigenvalues. A 0x0 input gives 0x1 values and 0x0 vectors.
EigenResult eigen(const MatrixBlock& a);

// The symmetric path alone (dsyevd on a's upper triangle, the same ordering and signs), for
// callers whose input is symmetric by construction (sqrtMatrixJava).
EigenResult eigen_symmetric(const MatrixBlock& a);

}  // namespace dmlrt::kernels::cpu
