// Launchers of the eigen kernel family (host-clean): the input test before cuSOLVER's syevd and
// the eigenvectors' layout and signs after it (kernels/cuda/eigen_op.cpp), per Note [eigen
// conventions] in kernels/cpu/eigen.h. Pointers are device pointers; nothing synchronises.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// On a (n, n) row-major: flags[0] becomes 1 when a pair a(i,j), a(j,i) differs by more than
// `rel` times the larger magnitude (commons-math's rule, the CPU kernel's; NaN pairs pass),
// flags[1] becomes 1 when a cell is NaN or infinite. Neither is cleared: the caller zeroes both.
void launch_eigen_check(const double* a, int64_t n, double rel, unsigned int* flags,
                        cudaStream_t stream);
void launch_eigen_check(const float* a, int64_t n, double rel, unsigned int* flags,
                        cudaStream_t stream);

// out (n, n) row-major = cm (n, n) column-major (syevd's eigenvectors, column j for value j) with
// each column negated whose entry of largest magnitude (the first such on exact ties) is
// negative. out must not alias cm.
void launch_eigen_vectors(const double* cm, int64_t n, double* out, cudaStream_t stream);
void launch_eigen_vectors(const float* cm, int64_t n, float* out, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
