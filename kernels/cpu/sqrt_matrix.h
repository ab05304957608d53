// CPU kernel of sqrtMatrixJava (opcode sqrt_matrix_java, sqrtMatrix(A, "COMMON")): the principal
// square root of a symmetric positive definite matrix, as commons-math's
// EigenDecomposition.getSquareRoot computes it for SystemDS: V diag(sqrt(lambda)) V^T.
#pragma once

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// a (n, n). RuntimeError when a is not symmetric by commons-math's test (|a_ij - a_ji| <=
// 10 n^2 eps max(|a_ij|, |a_ji|)) or has an eigenvalue <= 0, where SystemDS fails with
// commons-math's "unsupported operation". The caller has checked that a is square.
MatrixBlock sqrt_matrix(const MatrixBlock& a);

}  // namespace dmlrt::kernels::cpu
