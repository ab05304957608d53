// Launchers of the triangle kernel family (host-clean): completing a symmetric matrix of which a
// library call (cuBLAS syrk) wrote one triangle. Pointers are device pointers; `stream` is a
// cudaStream_t.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// c (n, n) row-major: c[i][j] = c[j][i] for every j < i (the upper triangle, diagonal included, is
// copied onto the strictly lower one, which is only written).
void launch_copy_upper_to_lower(double* c, int64_t n, cudaStream_t stream);
void launch_copy_upper_to_lower(float* c, int64_t n, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
