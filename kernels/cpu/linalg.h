// Dense linear algebra on the CPU through LAPACK (OpenBLAS exports it): inv, cholesky, det, lu,
// qr and svd, with SystemDS's semantics (LibCommonsMath, commons-math3): inputs hold at least one
// row (and column), all but qr and svd are square; sparse inputs are densified, since the factors
// are dense in general.
#pragma once

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// inv(A) by LU with partial pivoting (dgetrf + dgetri). SystemDS inverts through a QR solver;
// both fail on an exactly zero factor, but a matrix singular only up to rounding may invert in
// one and not the other (as for solve). RuntimeError when A is singular.
MatrixBlock inverse(const MatrixBlock& a);

// The lower-triangular L with A = L L^T (dpotrf), from A's upper triangle as commons-math
// reads it. RuntimeError when A is not symmetric (an entry pair differs by more than 1e-6
// relative, SystemDS's threshold) or not positive definite (a pivot L(i,i)^2 <= 1e-10).
MatrixBlock cholesky(const MatrixBlock& a);

// det(A) from the LU factors (dgetrf): the product of U's diagonal times the permutation's sign;
// 0 when a pivot is below commons-math's singularity threshold 1e-11 in magnitude.
double det(const MatrixBlock& a);

// P A = L U with P a permutation, L unit lower triangular, U upper triangular (dgetrf).
// RuntimeError when A is singular (a pivot below 1e-11 in magnitude), where SystemDS fails
// without a message.
struct LuFactors {
  MatrixBlock p, l, u;
};
LuFactors lu(const MatrixBlock& a);

// A (m, n) = Q R by Householder reflections (dgeqrf), in commons-math's form, which SystemDS
// returns: H (m, n) holds the reflectors, column j = tau_j v_j with v_j(j) = 1 (lower
// trapezoidal), and R (m, n) is upper trapezoidal with R(j,j) = -sign(x_j) |x_j| for the column x_j
// being reflected. Where LAPACK skips a reflection (nothing below the diagonal) commons-math still
// reflects: R's row j is negated and H(j,j) = 2; a zero column gives commons-math's 0/-0 = NaN in
// H. One case stays apart: a column whose diagonal entry is exactly 0 (and not all of it) is
// reflected onto +|x| by commons-math and onto -|x| by LAPACK, a different, equally valid Q R.
// Any shape with at least one row and column.
struct QrFactors {
  MatrixBlock h, r;
};
QrFactors qr(const MatrixBlock& a);

// A (m, n) = U diag(s) V^T (dgesdd), p = min(m, n): U (m, p), Sigma (p, p) diagonal with the
// singular values in decreasing order, V (n, p); SystemDS binds them in that order. A singular
// vector pair is defined up to a common sign, and LAPACK's choice need not be commons-math's:
// U diag(s) V^T, the singular values and |U|, |V| for distinct values agree, single columns of
// U and V may come out negated. Any shape with at least one row and column.
struct SvdFactors {
  MatrixBlock u, sigma, v;
};
SvdFactors svd(const MatrixBlock& a);

}  // namespace dmlrt::kernels::cpu
