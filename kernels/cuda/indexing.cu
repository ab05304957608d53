// Indexing kernel family: strided block copies (slice, left indexing, cbind/rbind) and block
// fills, each a grid-stride walk over the (rows, cols) of the block it writes; see indexing.h.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/indexing.h"
#include "kernels/cuda/kernel_utils.cuh"

namespace dmlrt::kernels::cuda {
namespace {

// dst[(dr0 + r) * dst_cols + dc0 + c] = src[(sr0 + r) * src_cols + sc0 + c] for the
// (rows, cols) block.
template <typename T>
__global__ void copy_block_kernel(const T* __restrict__ src, int64_t src_cols, int64_t sr0,
                                  int64_t sc0, T* __restrict__ dst, int64_t dst_cols, int64_t dr0,
                                  int64_t dc0, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  const int64_t start = detail::global_thread(), stride = detail::grid_stride();
  if (start >= n) return;
  detail::RowColWalk w(start, stride, cols);
  for (int64_t i = start; i < n; i += stride, w.advance())
    dst[(dr0 + w.r) * dst_cols + dc0 + w.c] = src[(sr0 + w.r) * src_cols + sc0 + w.c];
}

template <typename T>
__global__ void fill_block_kernel(T* __restrict__ dst, int64_t dst_cols, int64_t r0, int64_t c0,
                                  int64_t rows, int64_t cols, T value) {
  const int64_t n = rows * cols;
  const int64_t start = detail::global_thread(), stride = detail::grid_stride();
  if (start >= n) return;
  detail::RowColWalk w(start, stride, cols);
  for (int64_t i = start; i < n; i += stride, w.advance())
    dst[(r0 + w.r) * dst_cols + c0 + w.c] = value;
}

template <typename T>
void copy_block(const T* src, int64_t src_cols, int64_t sr0, int64_t sc0, T* dst, int64_t dst_cols,
                int64_t dr0, int64_t dc0, int64_t rows, int64_t cols, cudaStream_t stream,
                const char* what) {
  if (rows <= 0 || cols <= 0) return;
  copy_block_kernel<T><<<detail::grid_for(rows * cols), detail::kThreads, 0, stream>>>(
      src, src_cols, sr0, sc0, dst, dst_cols, dr0, dc0, rows, cols);
  DMLRT_CHECK_CTX(cudaGetLastError(), what << " block " << rows << "x" << cols << " from (" << sr0
                                           << "," << sc0 << ") to (" << dr0 << "," << dc0 << ")");
}

template <typename T>
void fill_block(T* dst, int64_t dst_cols, int64_t r0, int64_t r1, int64_t c0, int64_t c1, T value,
                cudaStream_t stream) {
  const int64_t rows = r1 - r0, cols = c1 - c0;
  if (rows <= 0 || cols <= 0) return;
  fill_block_kernel<T><<<detail::grid_for(rows * cols), detail::kThreads, 0, stream>>>(
      dst, dst_cols, r0, c0, rows, cols, value);
  DMLRT_CHECK_CTX(cudaGetLastError(),
                  "fill block [" << r0 << "," << r1 << ")x[" << c0 << "," << c1 << ")");
}

}  // namespace

void launch_slice(const double* in, int64_t cols, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                  double* out, cudaStream_t stream) {
  copy_block(in, cols, r0, c0, out, c1 - c0, 0, 0, r1 - r0, c1 - c0, stream, "slice");
}
void launch_slice(const float* in, int64_t cols, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                  float* out, cudaStream_t stream) {
  copy_block(in, cols, r0, c0, out, c1 - c0, 0, 0, r1 - r0, c1 - c0, stream, "slice");
}
void launch_copy_block(const double* src, int64_t src_rows, int64_t src_cols, double* dst,
                       int64_t dst_cols, int64_t r0, int64_t c0, cudaStream_t stream) {
  copy_block(src, src_cols, 0, 0, dst, dst_cols, r0, c0, src_rows, src_cols, stream, "copy");
}
void launch_copy_block(const float* src, int64_t src_rows, int64_t src_cols, float* dst,
                       int64_t dst_cols, int64_t r0, int64_t c0, cudaStream_t stream) {
  copy_block(src, src_cols, 0, 0, dst, dst_cols, r0, c0, src_rows, src_cols, stream, "copy");
}
void launch_fill_block(double* dst, int64_t dst_cols, int64_t r0, int64_t r1, int64_t c0,
                       int64_t c1, double value, cudaStream_t stream) {
  fill_block(dst, dst_cols, r0, r1, c0, c1, value, stream);
}
void launch_fill_block(float* dst, int64_t dst_cols, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                       float value, cudaStream_t stream) {
  fill_block(dst, dst_cols, r0, r1, c0, c1, value, stream);
}

}  // namespace dmlrt::kernels::cuda
