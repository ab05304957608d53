// Reorganisation kernel family: tiled transpose, row reversal, diag and reshape; see reorg.h.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/reorg.h"

namespace dmlrt::kernels::cuda {
namespace {

constexpr int kTile = 32;
constexpr int kTileRows = 8;  // a 32x8 thread block moves one 32x32 tile
constexpr int64_t kMaxGridY = 65535;

// 32x32 tiles through shared memory (padded against bank conflicts), so reads of `in` and writes
// of `out` are both coalesced. Tiles are visited grid-stride in both dimensions.
template <typename T>
__global__ void transpose_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                                 int64_t cols) {
  __shared__ T tile[kTile][kTile + 1];
  const int64_t tiles_r = (rows + kTile - 1) / kTile, tiles_c = (cols + kTile - 1) / kTile;
  for (int64_t tr = blockIdx.y; tr < tiles_r; tr += gridDim.y) {
    for (int64_t tc = blockIdx.x; tc < tiles_c; tc += gridDim.x) {
      const int64_t r0 = tr * kTile, c0 = tc * kTile;
      for (int k = threadIdx.y; k < kTile; k += kTileRows) {
        const int64_t r = r0 + k, c = c0 + threadIdx.x;
        if (r < rows && c < cols) tile[k][threadIdx.x] = in[r * cols + c];
      }
      __syncthreads();
      // out (cols, rows): out row = input column c0 + k, out column = input row r0 + tx.
      for (int k = threadIdx.y; k < kTile; k += kTileRows) {
        const int64_t orow = c0 + k, ocol = r0 + threadIdx.x;
        if (orow < cols && ocol < rows) out[orow * rows + ocol] = tile[threadIdx.x][k];
      }
      __syncthreads();
    }
  }
}

template <typename T>
__global__ void reverse_rows_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                                    int64_t cols) {
  const int64_t n = rows * cols;
  const int64_t start = detail::global_thread(), stride = detail::grid_stride();
  if (start >= n) return;
  detail::RowColWalk w(start, stride, cols);
  for (int64_t i = start; i < n; i += stride, w.advance())
    out[i] = in[(rows - 1 - w.r) * cols + w.c];
}

template <typename T>
__global__ void diag_from_vector_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  const int64_t cells = n * n;
  const int64_t start = detail::global_thread(), stride = detail::grid_stride();
  if (start >= cells) return;
  detail::RowColWalk w(start, stride, n);
  for (int64_t i = start; i < cells; i += stride, w.advance()) out[i] = w.r == w.c ? in[w.r] : T(0);
}

template <typename T>
__global__ void diag_to_vector_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    out[i] = in[i * n + i];
}

template <typename T>
__global__ void copy_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride()) out[i] = in[i];
}

// Output cell (r, c) has column-major index c*out_rows + r, which is input cell
// (idx % rows, idx / rows) in column-major order.
template <typename T>
__global__ void reshape_colwise_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                                       int64_t cols, int64_t out_rows, int64_t out_cols) {
  const int64_t n = out_rows * out_cols;
  const int64_t start = detail::global_thread(), stride = detail::grid_stride();
  if (start >= n) return;
  detail::RowColWalk w(start, stride, out_cols);
  for (int64_t i = start; i < n; i += stride, w.advance()) {
    const int64_t idx = w.c * out_rows + w.r;
    out[i] = in[(idx % rows) * cols + idx / rows];
  }
}

template <typename T>
void transpose(const T* in, T* out, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows * cols == 0) return;
  const int64_t tiles_r = (rows + kTile - 1) / kTile, tiles_c = (cols + kTile - 1) / kTile;
  const dim3 grid(
      static_cast<unsigned>(tiles_c < detail::kMaxBlocks ? tiles_c : detail::kMaxBlocks),
      static_cast<unsigned>(tiles_r < kMaxGridY ? tiles_r : kMaxGridY));
  transpose_kernel<T><<<grid, dim3(kTile, kTileRows), 0, stream>>>(in, out, rows, cols);
  DMLRT_CHECK_CTX(cudaGetLastError(), "transpose " << rows << "x" << cols);
}

template <typename T>
void reverse_rows(const T* in, T* out, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows * cols == 0) return;
  reverse_rows_kernel<T>
      <<<detail::grid_for(rows * cols), detail::kThreads, 0, stream>>>(in, out, rows, cols);
  DMLRT_CHECK_CTX(cudaGetLastError(), "rev " << rows << "x" << cols);
}

template <typename T>
void diag_from_vector(const T* in, T* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  diag_from_vector_kernel<T><<<detail::grid_for(n * n), detail::kThreads, 0, stream>>>(in, out, n);
  DMLRT_CHECK_CTX(cudaGetLastError(), "diag vector->matrix n=" << n);
}

template <typename T>
void diag_to_vector(const T* in, T* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  diag_to_vector_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, stream>>>(in, out, n);
  DMLRT_CHECK_CTX(cudaGetLastError(), "diag matrix->vector n=" << n);
}

template <typename T>
void reshape(const T* in, T* out, int64_t rows, int64_t cols, int64_t out_rows, int64_t out_cols,
             bool byrow, cudaStream_t stream) {
  DMLRT_REQUIRE(
      rows * cols == out_rows * out_cols, RuntimeError,
      "reshape kernel: " << rows << "x" << cols << " into " << out_rows << "x" << out_cols);
  const int64_t n = rows * cols;
  if (n == 0) return;
  if (byrow)
    copy_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, stream>>>(in, out, n);
  else
    reshape_colwise_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, stream>>>(
        in, out, rows, cols, out_rows, out_cols);
  DMLRT_CHECK_CTX(cudaGetLastError(), "reshape " << rows << "x" << cols << " -> " << out_rows << "x"
                                                 << out_cols << " byrow=" << byrow);
}

}  // namespace

void launch_transpose(const double* in, double* out, int64_t rows, int64_t cols,
                      cudaStream_t stream) {
  transpose(in, out, rows, cols, stream);
}
void launch_transpose(const float* in, float* out, int64_t rows, int64_t cols,
                      cudaStream_t stream) {
  transpose(in, out, rows, cols, stream);
}
void launch_reverse_rows(const double* in, double* out, int64_t rows, int64_t cols,
                         cudaStream_t stream) {
  reverse_rows(in, out, rows, cols, stream);
}
void launch_reverse_rows(const float* in, float* out, int64_t rows, int64_t cols,
                         cudaStream_t stream) {
  reverse_rows(in, out, rows, cols, stream);
}
void launch_diag_from_vector(const double* in, double* out, int64_t n, cudaStream_t stream) {
  diag_from_vector(in, out, n, stream);
}
void launch_diag_from_vector(const float* in, float* out, int64_t n, cudaStream_t stream) {
  diag_from_vector(in, out, n, stream);
}
void launch_diag_to_vector(const double* in, double* out, int64_t n, cudaStream_t stream) {
  diag_to_vector(in, out, n, stream);
}
void launch_diag_to_vector(const float* in, float* out, int64_t n, cudaStream_t stream) {
  diag_to_vector(in, out, n, stream);
}
void launch_reshape(const double* in, double* out, int64_t rows, int64_t cols, int64_t out_rows,
                    int64_t out_cols, bool byrow, cudaStream_t stream) {
  reshape(in, out, rows, cols, out_rows, out_cols, byrow, stream);
}
void launch_reshape(const float* in, float* out, int64_t rows, int64_t cols, int64_t out_rows,
                    int64_t out_cols, bool byrow, cudaStream_t stream) {
  reshape(in, out, rows, cols, out_rows, out_cols, byrow, stream);
}

}  // namespace dmlrt::kernels::cuda
