// Triangle kernel family: upper -> lower copy of a row-major symmetric result and lower.tri /
// upper.tri; see triangle.h.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/triangle.h"

namespace dmlrt::kernels::cuda {
namespace {

// Thread t of the grid-stride walk handles the strictly lower cells of the whole (n, n) matrix in
// row-major order; a cell (i, j) with j >= i is skipped. Walking all n^2 cells (not only the
// n(n-1)/2 lower ones) keeps the index arithmetic trivial; half the threads idle, which is cheap
// next to the syrk that precedes this.
template <typename T>
__global__ void copy_upper_to_lower_kernel(T* __restrict__ c, int64_t n) {
  const int64_t total = n * n;
  const int64_t start = detail::global_thread();
  if (start >= total) return;
  detail::RowColWalk w(start, detail::grid_stride(), n);
  for (int64_t i = start; i < total; i += detail::grid_stride(), w.advance())
    if (w.c < w.r) c[i] = c[w.c * n + w.r];
}

template <typename T>
void copy_upper_to_lower(T* c, int64_t n, cudaStream_t stream) {
  if (n <= 1) return;
  copy_upper_to_lower_kernel<T><<<detail::grid_for(n * n), detail::kThreads, 0, stream>>>(c, n);
  DMLRT_CHECK_CTX(cudaGetLastError(), "copy_upper_to_lower n=" << n);
}

// One thread per cell of the row-major (rows, cols) output, grid-stride.
template <typename T, typename Idx>
__global__ void extract_triangular_kernel(const T* __restrict__ in, T* __restrict__ out,
                                          int64_t rows, int64_t cols, TriangleSpec spec) {
  const int64_t total = rows * cols;
  const int64_t start = detail::global_thread();
  if (start >= total) return;
  const Idx* rp = static_cast<const Idx*>(spec.row_ptr);
  detail::RowColWalk w(start, detail::grid_stride(), cols);
  for (int64_t i = start; i < total; i += detail::grid_stride(), w.advance()) {
    const int64_t r = w.r, c = w.c;
    const bool keep = spec.lower ? (spec.diag ? c <= r : c < r) : (spec.diag ? c >= r : c > r);
    T v = T(0);
    if (keep) {
      if (spec.values)
        v = in[i];
      else if (spec.any_nonzero && (rp == nullptr || rp[r + 1] > rp[r]))
        v = T(1);
    }
    out[i] = v;
  }
}

template <typename T>
void extract_triangular(const T* in, T* out, int64_t rows, int64_t cols, const TriangleSpec& spec,
                        cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  const int grid = detail::grid_for(rows * cols);
  if (spec.row_ptr64)
    extract_triangular_kernel<T, int64_t>
        <<<grid, detail::kThreads, 0, stream>>>(in, out, rows, cols, spec);
  else
    extract_triangular_kernel<T, int32_t>
        <<<grid, detail::kThreads, 0, stream>>>(in, out, rows, cols, spec);
  DMLRT_CHECK_CTX(cudaGetLastError(), "extract_triangular " << rows << "x" << cols);
}

}  // namespace

void launch_extract_triangular(const double* in, double* out, int64_t rows, int64_t cols,
                               const TriangleSpec& spec, cudaStream_t stream) {
  extract_triangular(in, out, rows, cols, spec, stream);
}
void launch_extract_triangular(const float* in, float* out, int64_t rows, int64_t cols,
                               const TriangleSpec& spec, cudaStream_t stream) {
  extract_triangular(in, out, rows, cols, spec, stream);
}

void launch_copy_upper_to_lower(double* c, int64_t n, cudaStream_t stream) {
  copy_upper_to_lower(c, n, stream);
}
void launch_copy_upper_to_lower(float* c, int64_t n, cudaStream_t stream) {
  copy_upper_to_lower(c, n, stream);
}

}  // namespace dmlrt::kernels::cuda
