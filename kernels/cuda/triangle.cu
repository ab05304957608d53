// Triangle kernel family: upper -> lower copy of a row-major symmetric result; see triangle.h.
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

}  // namespace

void launch_copy_upper_to_lower(double* c, int64_t n, cudaStream_t stream) {
  copy_upper_to_lower(c, n, stream);
}
void launch_copy_upper_to_lower(float* c, int64_t n, cudaStream_t stream) {
  copy_upper_to_lower(c, n, stream);
}

}  // namespace dmlrt::kernels::cuda
