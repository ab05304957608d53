// Launchers of the reduction kernel family (host-clean): full, row and column aggregates (sum,
// sum of squares, product, mean, max, min, sample variance) and rowIndexMax/Min (the nonzero count
// is kernels/cuda/convert.h's). Semantics are the CPU backend's (kernels/cpu/aggregate.h): Kahan
// sums, Java max/min (NaN propagates), sample variance by Welford per thread and Chan's merge.
// Deterministic: partitions and combine orders depend only on the shape (and the element width),
// never on timing, the device or the input's address; no floating-point atomics. States are doubles
// for float inputs too. Pointers are device pointers; `stream` is a cudaStream_t.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu_context/cuda_types.h"
#include "kernels/cpu/aggregate.h"

namespace dmlrt::kernels::cuda {

// Workspace bytes of launch_reduce_all over n cells.
size_t reduce_all_workspace_bytes(int64_t n);
// out[0] = op over all n cells (n == 0 gives sum 0, sumsq 0, prod 1, mean NaN, max -Inf, min
// +Inf, var NaN, as the CPU). `out` is one device element; the caller copies it back.
void launch_reduce_all(cpu::AggOp op, const double* in, int64_t n, double* out, void* workspace,
                       cudaStream_t stream);
void launch_reduce_all(cpu::AggOp op, const float* in, int64_t n, float* out, void* workspace,
                       cudaStream_t stream);

// (rows, cols) -> out (rows, 1): op per row. A 0-column input gives zeros (the CPU's rule).
void launch_reduce_rows(cpu::AggOp op, const double* in, int64_t rows, int64_t cols, double* out,
                        cudaStream_t stream);
void launch_reduce_rows(cpu::AggOp op, const float* in, int64_t rows, int64_t cols, float* out,
                        cudaStream_t stream);

// Workspace bytes of launch_reduce_cols for a (rows, cols) input.
size_t reduce_cols_workspace_bytes(int64_t rows, int64_t cols);
// (rows, cols) -> out (1, cols): op per column. A 0-row input gives zeros (the CPU's rule).
void launch_reduce_cols(cpu::AggOp op, const double* in, int64_t rows, int64_t cols, double* out,
                        void* workspace, cudaStream_t stream);
void launch_reduce_cols(cpu::AggOp op, const float* in, int64_t rows, int64_t cols, float* out,
                        void* workspace, cudaStream_t stream);

// (rows, cols) -> out (rows, 1) of 1-based column indices of each row's max (is_max) or min: the
// last position holding it, NaN ignored, 1 for an all-NaN row, 0 for a 0-column input.
void launch_row_index(bool is_max, const double* in, int64_t rows, int64_t cols, double* out,
                      cudaStream_t stream);
void launch_row_index(bool is_max, const float* in, int64_t rows, int64_t cols, float* out,
                      cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
