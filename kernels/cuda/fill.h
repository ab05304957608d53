// Launchers of the fill kernel family (host-clean: no CUDA headers). Fills n elements of a device
// buffer with one value, on the given stream (a cudaStream_t passed as void*).
#pragma once

#include <cstdint>

namespace dmlrt::kernels::cuda {

void launch_fill(double* out, int64_t n, double value, void* stream);
void launch_fill(float* out, int64_t n, float value, void* stream);

}  // namespace dmlrt::kernels::cuda
