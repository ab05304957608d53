// Launcher of sample's device kernel (host-clean): sample(range, size, TRUE, seed) with the draws
// of kernels/cpu/random.cpp's sample_column, cell for cell. Sampling without replacement is a
// sequential shuffle and has no device form (SampleInstruction keeps it on the CPU).
// Pointers are device pointers; `stream` is a cudaStream_t.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// out (size, 1) dense: cell i = 1 + floor(u_i * range) (clamped to range), u_i the first double of
// the Philox stream of index i under `seed` (Note [Philox cell streams]). range >= 1 when
// size > 0. Float outputs are those integers rounded to float.
void launch_sample_with_replacement(int64_t range, int64_t size, uint64_t seed, double* out,
                                    cudaStream_t stream);
void launch_sample_with_replacement(int64_t range, int64_t size, uint64_t seed, float* out,
                                    cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
