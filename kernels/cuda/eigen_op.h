// The device op of eigen: cuSOLVER's syevd (FP64 and FP32) on a symmetric input, with the CPU
// kernel's order and eigenvector signs (Note [eigen conventions] in kernels/cpu/eigen.h). The
// input is a dense row-major device matrix, the outputs dense device buffers the caller
// allocated; workspace comes from the caller's Scratch (Note [Device scratch]).
#pragma once

#include <cstdint>

#include "kernels/cuda/linalg_op.h"
#include "kernels/cuda/scratch.h"

namespace dmlrt::kernels::cuda {

// What eigen_symmetric found. When the input is not symmetric by commons-math's rule or holds
// NaN/Inf, nothing else ran and the outputs are unspecified: the caller runs the CPU kernel, which
// decomposes a general matrix or raises the error. info is syevd's (k > 0: not converged).
struct EigenReport {
  bool symmetric = true;
  bool finite = true;
  int info = 0;
};

// values (n) ascending and vectors (n, n) row-major, column j the unit eigenvector of values[j],
// of a (n, n) row-major, n >= 1, from a's upper triangle (the CPU kernel's). Two
// synchronisations: after the input test and after syevd (devInfo). T is double or float.
template <typename T>
EigenReport eigen_symmetric(const SolverHandles& h, int64_t n, const T* a, T* values, T* vectors,
                            Scratch& scratch);

}  // namespace dmlrt::kernels::cuda
