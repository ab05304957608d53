// Launchers of the convert kernel family (host-clean): the double <-> float conversions of
// -precision single (host data is always double, DESIGN.md §6) and nonzero counting of dense device
// data (nnz recomputed on demand). Raw device pointers; the stream is a cudaStream_t as void*.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

void launch_double_to_float(const double* in, float* out, int64_t n, cudaStream_t stream);
void launch_float_to_double(const float* in, double* out, int64_t n, cudaStream_t stream);
// Adds the number of nonzeros (NaN counts as nonzero) of in[0..n) to *count (device memory; the
// caller zeroes it first).
void launch_count_nonzero(const double* in, int64_t n, unsigned long long* count,
                          cudaStream_t stream);
void launch_count_nonzero(const float* in, int64_t n, unsigned long long* count,
                          cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
