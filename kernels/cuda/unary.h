// Launchers of the unary kernel family (host-clean): cell-wise builtins, log with a base, the
// row-wise softmax, the column-wise cumulative scans (ucumk+ ucum* ucummin ucummax ucumk+*) and the
// row-wise running sum (urowcumk+).
// Semantics are the CPU backend's (kernels/cpu/unary.h). Pointers are device pointers; `stream` is
// a cudaStream_t; nothing allocates, so scans take a caller-provided workspace.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu_context/cuda_types.h"
#include "kernels/cpu/unary.h"

namespace dmlrt::kernels::cuda {

// out[i] = op(in[i]) for n cells; `out` may alias `in`.
void launch_unary(cpu::UnaryOp op, const double* in, double* out, int64_t n, cudaStream_t stream);
void launch_unary(cpu::UnaryOp op, const float* in, float* out, int64_t n, cudaStream_t stream);

// log(x) / log(base), out (rows, cols) row-major. x is (rows, cols) or, when null, the scalar
// x_value; base is (base_rows, base_cols) with base_rows in {rows, 1} and base_cols in {cols, 1}
// (broadcast), or, when null, the scalar base_value.
void launch_log_base(const double* x, double x_value, const double* base, double base_value,
                     int64_t base_rows, int64_t base_cols, double* out, int64_t rows, int64_t cols,
                     cudaStream_t stream);
void launch_log_base(const float* x, double x_value, const float* base, double base_value,
                     int64_t base_rows, int64_t base_cols, float* out, int64_t rows, int64_t cols,
                     cudaStream_t stream);

// (rows, cols) -> (rows, cols): exp(x - rowMax) / rowSum(exp(x - rowMax)) per row (NaN in a row
// propagates through the max, as java_max does).
void launch_softmax(const double* in, double* out, int64_t rows, int64_t cols, cudaStream_t stream);
void launch_softmax(const float* in, float* out, int64_t rows, int64_t cols, cudaStream_t stream);

// Bytes of workspace launch_cumulative / launch_cumsumprod need for `rows` rows and `cols`
// scanned columns (cumsumprod: cols = 1) with elements of `elem_bytes` (8 or 4).
size_t cumulative_workspace_bytes(int64_t rows, int64_t cols, size_t elem_bytes);

// (rows, cols) -> (rows, cols): out[i][j] = op(out[i-1][j], in[i][j]) down each column, as a
// three-phase blocked scan (block aggregates, a scan over the blocks, then each block from its
// carry); kSum carries Kahan-compensated (sum, correction) pairs. `out` must not alias `in`.
void launch_cumulative(cpu::CumOp op, const double* in, double* out, int64_t rows, int64_t cols,
                       void* workspace, cudaStream_t stream);
void launch_cumulative(cpu::CumOp op, const float* in, float* out, int64_t rows, int64_t cols,
                       void* workspace, cudaStream_t stream);

// (rows, cols) -> (rows, cols): the running Kahan sum along each row (urowcumk+), in the CPU's
// order. `out` must not alias `in`.
void launch_row_cumsum(const double* in, double* out, int64_t rows, int64_t cols,
                       cudaStream_t stream);
void launch_row_cumsum(const float* in, float* out, int64_t rows, int64_t cols, cudaStream_t stream);

// (rows, 2) -> (rows, 1): out[i] = a[i] + b[i] * out[i-1], out[-1] = 0, for in = [a, b]
// (ucumk+*): the same blocked scan over affine maps, one code path for every row count (see
// reference/systemds-gpu.md §7.5 for the launch bug SystemDS has below 129 rows).
void launch_cumsumprod(const double* in, double* out, int64_t rows, void* workspace,
                       cudaStream_t stream);
void launch_cumsumprod(const float* in, float* out, int64_t rows, void* workspace,
                       cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
