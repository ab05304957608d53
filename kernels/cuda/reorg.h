// Launchers of the reorganisation kernel family (host-clean): dense transpose (tiled through
// shared memory), rev (row reversal), rdiag (vector <-> diagonal) and rshape (row-major copy or the
// column-major order of byrow=FALSE). Semantics are kernels/cpu/reorg.h's on dense row-major
// buffers; the caller checks shapes. Pointers are device pointers; `stream` is a cudaStream_t.
// Outputs never alias inputs.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// in (rows, cols) -> out (cols, rows).
void launch_transpose(const double* in, double* out, int64_t rows, int64_t cols,
                      cudaStream_t stream);
void launch_transpose(const float* in, float* out, int64_t rows, int64_t cols, cudaStream_t stream);

// in (rows, cols) -> out (rows, cols) with the rows in reverse order.
void launch_reverse_rows(const double* in, double* out, int64_t rows, int64_t cols,
                         cudaStream_t stream);
void launch_reverse_rows(const float* in, float* out, int64_t rows, int64_t cols,
                         cudaStream_t stream);

// in (n, 1) -> out (n, n): the vector on the diagonal, zeros elsewhere (every cell is written).
void launch_diag_from_vector(const double* in, double* out, int64_t n, cudaStream_t stream);
void launch_diag_from_vector(const float* in, float* out, int64_t n, cudaStream_t stream);
// in (n, n) -> out (n, 1): the diagonal.
void launch_diag_to_vector(const double* in, double* out, int64_t n, cudaStream_t stream);
void launch_diag_to_vector(const float* in, float* out, int64_t n, cudaStream_t stream);

// in (rows, cols) -> out (out_rows, out_cols), out_rows*out_cols == rows*cols. byrow keeps the
// row-major cell order (a plain copy); otherwise the column-major order (DML byrow=FALSE).
void launch_reshape(const double* in, double* out, int64_t rows, int64_t cols, int64_t out_rows,
                    int64_t out_cols, bool byrow, cudaStream_t stream);
void launch_reshape(const float* in, float* out, int64_t rows, int64_t cols, int64_t out_rows,
                    int64_t out_cols, bool byrow, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
