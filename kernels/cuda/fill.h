// Launchers of the fill kernel family (host-clean: no CUDA headers). Fills n elements of a device
// buffer with one value, on the given stream (a cudaStream_t passed as void*).
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

void launch_fill(double* out, int64_t n, double value, cudaStream_t stream);
void launch_fill(float* out, int64_t n, float value, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
