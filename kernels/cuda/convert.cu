// Convert kernel family: dtype conversions and nonzero counts; see convert.h.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/convert.h"

namespace dmlrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65535 * 32 ? blocks : 65535 * 32);
}

template <typename In, typename Out>
__global__ void convert_kernel(const In* __restrict__ in, Out* __restrict__ out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = static_cast<Out>(in[i]);
}

template <typename T>
__global__ void count_nonzero_kernel(const T* __restrict__ in, int64_t n,
                                     unsigned long long* __restrict__ count) {
  __shared__ unsigned long long partial[kThreads];
  unsigned long long c = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    c += in[i] != T(0) ? 1ull : 0ull;  // NaN != 0 is true: NaN counts, as on the host
  partial[threadIdx.x] = c;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0 && partial[0] != 0) atomicAdd(count, partial[0]);
}

template <typename In, typename Out>
void convert(const In* in, Out* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  convert_kernel<In, Out><<<grid_for(n), kThreads, 0, stream>>>(in, out, n);
  DMLRT_CHECK_CTX(cudaGetLastError(), "convert n=" << n);
}

template <typename T>
void count(const T* in, int64_t n, unsigned long long* out, cudaStream_t stream) {
  if (n == 0) return;
  const int grid = grid_for(n) < 1024 ? grid_for(n) : 1024;
  count_nonzero_kernel<T><<<grid, kThreads, 0, stream>>>(in, n, out);
  DMLRT_CHECK_CTX(cudaGetLastError(), "count_nonzero n=" << n);
}

}  // namespace

void launch_double_to_float(const double* in, float* out, int64_t n, cudaStream_t stream) {
  convert(in, out, n, stream);
}
void launch_float_to_double(const float* in, double* out, int64_t n, cudaStream_t stream) {
  convert(in, out, n, stream);
}
void launch_count_nonzero(const double* in, int64_t n, unsigned long long* c, cudaStream_t stream) {
  count(in, n, c, stream);
}
void launch_count_nonzero(const float* in, int64_t n, unsigned long long* c, cudaStream_t stream) {
  count(in, n, c, stream);
}

}  // namespace dmlrt::kernels::cuda
