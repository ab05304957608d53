// Launchers of the statistics kernel family (host-clean): the fused ternary aggregates tak+*
// (sum of a*b*c) and tack+* (its column sums), and the two-pass cov and cm (central moment).
// Semantics are the CPU backend's (kernels/cpu/stats.h): Kahan sums, products formed left to
// right in double. Deterministic: partitions and combine orders depend only on the shape, never
// on timing or the device; no floating-point atomics. States are doubles for float inputs too.
// Pointers are device pointers; `stream` is a cudaStream_t.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// One factor of tak+* / tack+*: the cells of a dense row-major matrix of the shared shape, or,
// when `data` is null, `value` in every cell (a scalar operand).
template <typename T>
struct ProductArg {
  const T* data = nullptr;
  double value = 1.0;
};

// Workspace bytes of launch_sum_product3 over n cells.
size_t sum_product3_workspace_bytes(int64_t n);
// out[0] = sum over the n cells of a*b*c (0 for n == 0). `out` is one device element.
void launch_sum_product3(ProductArg<double> a, ProductArg<double> b, ProductArg<double> c,
                         int64_t n, double* out, void* workspace, cudaStream_t stream);
void launch_sum_product3(ProductArg<float> a, ProductArg<float> b, ProductArg<float> c, int64_t n,
                         float* out, void* workspace, cudaStream_t stream);

// Workspace bytes of launch_col_sum_product3 for a (rows, cols) shape.
size_t col_sum_product3_workspace_bytes(int64_t rows, int64_t cols);
// out (1, cols) = the column sums of a*b*c over (rows, cols); zeros for rows == 0.
void launch_col_sum_product3(ProductArg<double> a, ProductArg<double> b, ProductArg<double> c,
                             int64_t rows, int64_t cols, double* out, void* workspace,
                             cudaStream_t stream);
void launch_col_sum_product3(ProductArg<float> a, ProductArg<float> b, ProductArg<float> c,
                             int64_t rows, int64_t cols, float* out, void* workspace,
                             cudaStream_t stream);

// Workspace bytes of launch_covariance and launch_central_moment over n cells.
size_t moments_workspace_bytes(int64_t n);
// out[0] = sample covariance of x, y (n cells each), weighted by w (null: all ones):
// sum w (x-mx)(y-my) / (sum w - 1) with the weighted means mx, my (pass 1: the sums of w, w x,
// w y; pass 2: the products about the means).
void launch_covariance(const double* x, const double* y, const double* w, int64_t n, double* out,
                       void* workspace, cudaStream_t stream);
void launch_covariance(const float* x, const float* y, const float* w, int64_t n, float* out,
                       void* workspace, cudaStream_t stream);
// out[0] = central moment of x (n cells) of order 2, 3 or 4 weighted by w (null: all ones):
// sum w (x-mean)^order / sum w; order 0 gives the weighted mean (0 for n == 0, as the CPU).
// The caller checks the order.
void launch_central_moment(const double* x, const double* w, int64_t n, int order, double* out,
                           void* workspace, cudaStream_t stream);
void launch_central_moment(const float* x, const float* w, int64_t n, int order, float* out,
                           void* workspace, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
