// Fill kernel family: constant matrices (rand with min == max, matrix(v, ...)) and initialisation.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/fill.h"

namespace dmlrt::kernels::cuda {
namespace {

template <typename T>
__global__ void fill_kernel(T* __restrict__ out, int64_t n, T value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = value;
}

template <typename T>
void launch(T* out, int64_t n, T value, cudaStream_t stream) {
  if (n == 0) return;
  constexpr int kThreads = 256;
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  const int grid = static_cast<int>(blocks < 65535 * 32 ? blocks : 65535 * 32);
  fill_kernel<T><<<grid, kThreads, 0, stream>>>(out, n, value);
  DMLRT_CHECK_CTX(cudaGetLastError(), "fill n=" << n);
}

}  // namespace

void launch_fill(double* out, int64_t n, double value, cudaStream_t stream) {
  launch(out, n, value, stream);
}
void launch_fill(float* out, int64_t n, float value, cudaStream_t stream) {
  launch(out, n, value, stream);
}

}  // namespace dmlrt::kernels::cuda
