// The device op of sqrt_matrix_java (sqrtMatrix(A, "COMMON")): V diag(sqrt(lambda)) V^T from the
// cuSOLVER symmetric eigen op (eigen_op.h), one cell-wise column scaling and one cuBLAS gemm; the
// CPU kernel's checks (kernels/cpu/sqrt_matrix.h) are answered in a report for the caller to raise.
// The input is a dense row-major device matrix, the output a dense device buffer the caller
// allocated; every intermediate comes from the caller's Scratch (Note [Device scratch]).
#pragma once

#include <cstdint>

#include "kernels/cuda/linalg_op.h"
#include "kernels/cuda/scratch.h"

namespace dmlrt::kernels::cuda {

// What sqrt_matrix found. When the input is not symmetric by commons-math's rule or holds NaN/Inf,
// or syevd did not converge (info > 0), nothing after the eigen op ran; with an eigenvalue <= 0
// (or NaN) neither did the product. In each case `out` is unspecified.
struct SqrtMatrixReport {
  bool symmetric = true;
  bool finite = true;
  int info = 0;
  int64_t nonpositive = -1;  // index of the first eigenvalue (ascending) that is not > 0, or -1
  double eigenvalue = 0.0;   // that eigenvalue
};

// out (n, n) row-major = V diag(sqrt(lambda)) V^T for a (n, n) row-major, n >= 1, decomposed from
// its upper triangle (the CPU decomposes the symmetrised 0.5 (a + a^T): the same matrix when a is
// exactly symmetric, else within the symmetry tolerance). Three synchronisations: the eigen op's
// two and the read-back of the n eigenvalues for the positivity test. T is double or float.
template <typename T>
SqrtMatrixReport sqrt_matrix(const SolverHandles& h, int64_t n, const T* a, T* out,
                             Scratch& scratch);

}  // namespace dmlrt::kernels::cuda
