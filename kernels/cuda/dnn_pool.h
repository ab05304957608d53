// Launchers of the DNN pooling and per-channel kernel family (host-clean): max/avg pooling and
// their backward passes (relu_maxpooling too), relu_backward, bias_add / bias_multiply,
// channel_sums and the Nesterov update. Semantics, ties and NaN handling are exactly the CPU
// references' (kernels/cpu/dnn_pool.h); see Note [GPU pooling kernels] in dnn_pool.cu. Images are
// dense row-major NCHW, sh.n is the number of images of one launch (a batch chunk); pointers are
// device pointers, `stream` a cudaStream_t; nothing allocates, so callers pass workspaces.
// Defined for T = double and float (explicit instantiations in dnn_pool.cu).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu_context/cuda_types.h"
#include "kernels/cpu/dnn_pool.h"

namespace dmlrt::kernels::cuda {

// x (n, c*h*w) -> out (n, c*p*q): the max of each window (padding = -Inf, the first NaN wins);
// with `relu` the max of max(x, 0).
template <typename T>
void launch_max_pool(const T* x, T* out, const cpu::PoolShape& sh, bool relu, cudaStream_t stream);

// x (n, c*h*w) -> out (n, c*p*q): window sums (padding = 0) divided by r*s.
template <typename T>
void launch_avg_pool(const T* x, T* out, const cpu::PoolShape& sh, cudaStream_t stream);

// Workspace bytes launch_max_pool_backward needs for sh (0 when the windows do not overlap).
size_t max_pool_backward_workspace_bytes(const cpu::PoolShape& sh);

// x (n, c*h*w), dout (n, c*p*q) -> out (n, c*h*w): each dout value goes to the first maximal
// cell of its window (row-major scan, strict '>'); a cell picked by several windows gets their
// sum, added in window order as the CPU does. Every output cell is written.
template <typename T>
void launch_max_pool_backward(const T* x, const T* dout, T* out, const cpu::PoolShape& sh,
                              bool relu, void* workspace, cudaStream_t stream);

// dout (n, c*p*q) -> out (n, c*h*w): dout / (r*s) summed over the windows covering each cell.
template <typename T>
void launch_avg_pool_backward(const T* dout, T* out, const cpu::PoolShape& sh, cudaStream_t stream);

// out[i] = x[i] > 0 ? dout[i] : 0 for n cells.
template <typename T>
void launch_relu_backward(const T* x, const T* dout, T* out, int64_t n, cudaStream_t stream);

// x (rows, cols), bias (k, 1), k divides cols: out = x + / * bias[col / (cols / k)].
template <typename T>
void launch_bias_add(const T* x, const T* bias, T* out, int64_t rows, int64_t cols, int64_t k,
                     cudaStream_t stream);
// The same add, then max(out, 0) as Java's Math.max (NaN stays NaN): conv2d_bias_add's epilogue
// under the fused ReLU, one pass over x.
template <typename T>
void launch_bias_add_relu(const T* x, const T* bias, T* out, int64_t rows, int64_t cols, int64_t k,
                          cudaStream_t stream);
template <typename T>
void launch_bias_multiply(const T* x, const T* bias, T* out, int64_t rows, int64_t cols, int64_t k,
                          cudaStream_t stream);

// Workspace bytes launch_channel_sums needs for x (rows, c*hw).
size_t channel_sums_workspace_bytes(int64_t rows, int64_t c, int64_t hw);
// x (rows, c*hw) -> out (c, 1): the sum of channel ch over all rows and its hw columns (double
// accumulation, a fixed two-pass order: deterministic).
template <typename T>
void launch_channel_sums(const T* x, T* out, int64_t rows, int64_t c, int64_t hw, void* workspace,
                         cudaStream_t stream);

// out = x - mu*v_prev + (1+mu)*v for n cells, computed in double.
template <typename T>
void launch_update_nesterov_x(const T* x, const T* v, const T* v_prev, double mu, T* out, int64_t n,
                              cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
