// sample with replacement on the device (sample.h): each cell owns its Philox stream, so the cells
// are independent and the values are the CPU's.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/sample.h"
#include "kernels/philox.h"
#include "kernels/scalar_ops.h"

namespace dmlrt::kernels::cuda {
namespace {

// The CPU's `below(i, range) + 1` (kernels/cpu/random.cpp): 53 random bits times range, truncated;
// the product is rounded once (mul_rn, never fused), as on the host.
template <typename T>
__global__ void sample_kernel(T* __restrict__ out, int64_t size, int64_t range, uint64_t seed) {
  for (int64_t i = detail::global_thread(); i < size; i += detail::grid_stride()) {
    PhiloxCellStream s(seed, static_cast<uint64_t>(i));
    const auto v = static_cast<int64_t>(ops::mul_rn(s.next_double(), static_cast<double>(range)));
    out[i] = static_cast<T>(static_cast<double>((v < range ? v : range - 1) + 1));
  }
}

template <typename T>
void sample(int64_t range, int64_t size, uint64_t seed, T* out, cudaStream_t stream) {
  if (size <= 0) return;
  DMLRT_REQUIRE(range >= 1, RuntimeError,
                "sample: invalid population size " << range << " for a sample of " << size);
  sample_kernel<T><<<detail::grid_for(size), detail::kThreads, 0, stream>>>(out, size, range, seed);
  DMLRT_CHECK_CTX(cudaGetLastError(), "sample range=" << range << " size=" << size);
}

}  // namespace

void launch_sample_with_replacement(int64_t range, int64_t size, uint64_t seed, double* out,
                                    cudaStream_t stream) {
  sample(range, size, seed, out, stream);
}
void launch_sample_with_replacement(int64_t range, int64_t size, uint64_t seed, float* out,
                                    cudaStream_t stream) {
  sample(range, size, seed, out, stream);
}

}  // namespace dmlrt::kernels::cuda
