// Launchers of the indexing kernel family (host-clean): right indexing (a dense slice), left
// indexing (write a block or a scalar into a dense matrix in place) and the block copies behind
// cbind / rbind. Ranges are 0-based and half-open (kernels/cpu/indexing.h); the caller checks
// bounds. Pointers are device pointers; `stream` is a cudaStream_t.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// in (rows, cols) -> out (r1-r0, c1-c0): rows [r0, r1) x columns [c0, c1).
void launch_slice(const double* in, int64_t cols, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                  double* out, cudaStream_t stream);
void launch_slice(const float* in, int64_t cols, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                  float* out, cudaStream_t stream);

// dst (?, dst_cols) row-major: the (src_rows, src_cols) block at (r0, c0) := src. Left indexing
// with a matrix (after copying the target, since `dst` is written in place) and each operand of
// cbind / rbind (cbind: c0 = sum of the previous widths; rbind: r0 = sum of previous heights).
void launch_copy_block(const double* src, int64_t src_rows, int64_t src_cols, double* dst,
                       int64_t dst_cols, int64_t r0, int64_t c0, cudaStream_t stream);
void launch_copy_block(const float* src, int64_t src_rows, int64_t src_cols, float* dst,
                       int64_t dst_cols, int64_t r0, int64_t c0, cudaStream_t stream);

// dst (?, dst_cols) row-major: rows [r0, r1) x columns [c0, c1) := value, in place.
void launch_fill_block(double* dst, int64_t dst_cols, int64_t r0, int64_t r1, int64_t c0,
                       int64_t c1, double value, cudaStream_t stream);
void launch_fill_block(float* dst, int64_t dst_cols, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                       float value, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
