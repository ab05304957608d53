// Eigen kernel family: the symmetry/finiteness test of eigen's input and the eigenvectors'
// row-major layout with the CPU kernel's signs; see eigen.h.
#include <cstdint>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/eigen.h"
#include "kernels/cuda/kernel_utils.cuh"

namespace dmlrt::kernels::cuda {
namespace {

// Every cell checks itself for NaN/Inf; a cell (i, j) with i < j compares itself with its mirror
// as the CPU does: |aij - aji| > rel * max(|aij|, |aji|) is asymmetric (so a NaN pair is not).
template <typename T>
__global__ void eigen_check_kernel(const T* __restrict__ a, int64_t n, double rel,
                                   unsigned int* __restrict__ flags) {
  const int64_t total = n * n;
  const int64_t start = detail::global_thread();
  if (start >= total) return;
  detail::RowColWalk w(start, detail::grid_stride(), n);
  for (int64_t c = start; c < total; c += detail::grid_stride(), w.advance()) {
    const double aij = static_cast<double>(a[c]);
    if (!isfinite(aij)) flags[1] = 1u;
    if (w.c <= w.r) continue;
    const double aji = static_cast<double>(a[w.c * n + w.r]);
    if (fabs(aij - aji) > rel * fmax(fabs(aij), fabs(aji))) flags[0] = 1u;
  }
}

template <typename T>
void eigen_check(const T* a, int64_t n, double rel, unsigned int* flags, cudaStream_t stream) {
  if (n == 0) return;
  eigen_check_kernel<T><<<detail::grid_for(n * n), detail::kThreads, 0, stream>>>(a, n, rel, flags);
  DMLRT_CHECK_CTX(cudaGetLastError(), "eigen_check n=" << n);
}

// The entry of largest magnitude so far and its row (the smaller row on exact ties).
struct Largest {
  double mag;
  int64_t row;
};
struct LargerOf {
  __device__ Largest operator()(Largest x, Largest y) const {
    return (y.mag > x.mag || (y.mag == x.mag && y.row < x.row)) ? y : x;
  }
};

// One block per eigenvector j (column j of cm, contiguous): find its largest entry, then write
// the column into row-major out with the sign that makes that entry positive.
template <typename T>
__global__ void eigen_vectors_kernel(const T* __restrict__ cm, int64_t n, T* __restrict__ out) {
  __shared__ Largest shared[32];
  __shared__ T sign;
  for (int64_t j = blockIdx.x; j < n; j += gridDim.x) {
    const T* col = cm + j * n;
    Largest s{-1.0, INT64_MAX};
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
      s = LargerOf()(s, Largest{fabs(static_cast<double>(col[i])), i});
    s = detail::block_reduce(s, LargerOf(), Largest{-1.0, INT64_MAX}, shared);
    if (threadIdx.x == 0) sign = col[s.row] < T(0) ? T(-1) : T(1);
    __syncthreads();
    const T f = sign;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) out[i * n + j] = f * col[i];
    __syncthreads();  // `sign` is rewritten for the next column
  }
}

template <typename T>
void eigen_vectors(const T* cm, int64_t n, T* out, cudaStream_t stream) {
  if (n == 0) return;
  const int blocks = static_cast<int>(n < detail::kMaxBlocks ? n : detail::kMaxBlocks);
  eigen_vectors_kernel<T><<<blocks, detail::kThreads, 0, stream>>>(cm, n, out);
  DMLRT_CHECK_CTX(cudaGetLastError(), "eigen_vectors n=" << n);
}

}  // namespace

void launch_eigen_check(const double* a, int64_t n, double rel, unsigned int* flags,
                        cudaStream_t stream) {
  eigen_check(a, n, rel, flags, stream);
}
void launch_eigen_check(const float* a, int64_t n, double rel, unsigned int* flags,
                        cudaStream_t stream) {
  eigen_check(a, n, rel, flags, stream);
}
void launch_eigen_vectors(const double* cm, int64_t n, double* out, cudaStream_t stream) {
  eigen_vectors(cm, n, out, stream);
}
void launch_eigen_vectors(const float* cm, int64_t n, float* out, cudaStream_t stream) {
  eigen_vectors(cm, n, out, stream);
}

}  // namespace dmlrt::kernels::cuda
