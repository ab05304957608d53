// pmm as a gather (permute.h): each output row finds the input row that lands on it (the largest
// such index, by an integer atomicMax: deterministic), then every output cell copies or zeroes.
#include <climits>
#include <cmath>

#include "gpu_context/cuda_check.h"
#include "gpu_context/error.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/permute.h"

namespace dmlrt::kernels::cuda {
namespace {

// winner[r] = the largest i with p[i] = r + 1 (-1: none); *bad = the smallest invalid i.
template <typename T>
__global__ void pmm_targets_kernel(const T* p, int64_t n, int64_t rlen, int* winner, int* bad) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride()) {
    const double t = static_cast<double>(p[i]);
    if (t == 0.0) continue;
    if (!(t >= 1.0 && t <= static_cast<double>(rlen) && t == floor(t))) {
      atomicMin(bad, static_cast<int>(i));
      continue;
    }
    atomicMax(&winner[static_cast<int64_t>(t) - 1], static_cast<int>(i));
  }
}

template <typename T>
__global__ void pmm_gather_kernel(const T* x, const int* winner, int64_t rlen, int64_t c, T* out) {
  for (int64_t k = detail::global_thread(); k < rlen * c; k += detail::grid_stride()) {
    const int64_t r = k / c, j = k - r * c;
    const int w = winner[r];
    out[k] = w >= 0 ? x[static_cast<int64_t>(w) * c + j] : T(0);
  }
}

template <typename T>
int64_t pmm(const T* p, const T* x, int64_t n, int64_t c, int64_t rlen, T* out, void* workspace,
            cudaStream_t stream) {
  DMLRT_REQUIRE(n < INT_MAX, NotSupported,
                "pmm on the GPU: " << n << " input rows exceed the int32 row index");
  int* bad = static_cast<int*>(workspace);
  int* winner = bad + 1;
  const int none = INT_MAX;
  DMLRT_CHECK(cudaMemcpyAsync(bad, &none, sizeof none, cudaMemcpyHostToDevice, stream));
  if (rlen > 0)
    DMLRT_CHECK(cudaMemsetAsync(winner, 0xFF, static_cast<size_t>(rlen) * sizeof(int), stream));
  if (n > 0) {
    pmm_targets_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, stream>>>(p, n, rlen, winner,
                                                                                bad);
    DMLRT_CHECK_CTX(cudaGetLastError(), "pmm targets of " << n << " rows");
  }
  int first_bad = none;
  DMLRT_CHECK(cudaMemcpyAsync(&first_bad, bad, sizeof first_bad, cudaMemcpyDeviceToHost, stream));
  DMLRT_CHECK_CTX(cudaStreamSynchronize(stream), "pmm validity flag");
  if (first_bad != none) return first_bad;
  if (rlen * c > 0) {
    pmm_gather_kernel<T><<<detail::grid_for(rlen * c), detail::kThreads, 0, stream>>>(
        x, winner, rlen, c, out);
    DMLRT_CHECK_CTX(cudaGetLastError(), "pmm gather into " << rlen << "x" << c);
  }
  return -1;
}

}  // namespace

size_t pmm_workspace_bytes(int64_t rlen) { return static_cast<size_t>(rlen + 1) * sizeof(int); }

int64_t launch_pmm(const double* p, const double* x, int64_t n, int64_t c, int64_t rlen,
                   double* out, void* workspace, cudaStream_t stream) {
  return pmm(p, x, n, c, rlen, out, workspace, stream);
}
int64_t launch_pmm(const float* p, const float* x, int64_t n, int64_t c, int64_t rlen, float* out,
                   void* workspace, cudaStream_t stream) {
  return pmm(p, x, n, c, rlen, out, workspace, stream);
}

}  // namespace dmlrt::kernels::cuda
