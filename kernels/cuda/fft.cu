// FFT kernel family: interleaving, splitting and stft framing around cuFFT; see fft.h.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/fft.h"
#include "kernels/cuda/kernel_utils.cuh"

namespace dmlrt::kernels::cuda {
namespace {

// The interleaved complex type of T (layout-compatible with cufftDoubleComplex / cufftComplex).
template <typename T>
struct Complex2;
template <>
struct Complex2<double> {
  using type = double2;
};
template <>
struct Complex2<float> {
  using type = float2;
};
template <typename T>
using C2 = typename Complex2<T>::type;

template <typename T>
__global__ void fft_interleave_kernel(const T* __restrict__ re, const T* __restrict__ im,
                                      C2<T>* __restrict__ z, int64_t n) {
  for (int64_t k = detail::global_thread(); k < n; k += detail::grid_stride())
    z[k] = {re[k], im != nullptr ? im[k] : T(0)};
}

template <typename T>
__global__ void fft_split_kernel(const C2<T>* __restrict__ z, T* __restrict__ re,
                                 T* __restrict__ im, T scale, int64_t n) {
  for (int64_t k = detail::global_thread(); k < n; k += detail::grid_stride()) {
    const C2<T> v = z[k];
    re[k] = v.x * scale;
    im[k] = v.y * scale;
  }
}

// One thread per output cell of z (rows, frames * window).
template <typename T>
__global__ void stft_frames_kernel(const T* __restrict__ re, const T* __restrict__ im,
                                   C2<T>* __restrict__ z, int64_t rows, int64_t n, int64_t frames,
                                   int64_t window, int64_t step) {
  const int64_t width = frames * window;
  const int64_t total = rows * width;
  for (int64_t k = detail::global_thread(); k < total; k += detail::grid_stride()) {
    const int64_t r = k / width, c = k - r * width;
    const int64_t f = c / window, j = c - f * window;
    const int64_t src = f * step + j;
    C2<T> v = {T(0), T(0)};
    if (src < n) v = {re[r * n + src], im != nullptr ? im[r * n + src] : T(0)};
    z[k] = v;
  }
}

template <typename T>
void interleave(const T* re, const T* im, void* z, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  fft_interleave_kernel<T>
      <<<detail::grid_for(n), detail::kThreads, 0, stream>>>(re, im, static_cast<C2<T>*>(z), n);
  DMLRT_CHECK_CTX(cudaGetLastError(), "fft_interleave n=" << n);
}

template <typename T>
void split(const void* z, T* re, T* im, double scale, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  fft_split_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, stream>>>(
      static_cast<const C2<T>*>(z), re, im, static_cast<T>(scale), n);
  DMLRT_CHECK_CTX(cudaGetLastError(), "fft_split n=" << n);
}

template <typename T>
void frames(const T* re, const T* im, void* z, int64_t rows, int64_t n, int64_t nframes,
            int64_t window, int64_t step, cudaStream_t stream) {
  const int64_t total = rows * nframes * window;
  if (total == 0) return;
  stft_frames_kernel<T><<<detail::grid_for(total), detail::kThreads, 0, stream>>>(
      re, im, static_cast<C2<T>*>(z), rows, n, nframes, window, step);
  DMLRT_CHECK_CTX(cudaGetLastError(),
                  "stft_frames " << rows << "x" << n << " window=" << window << " step=" << step);
}

}  // namespace

void launch_fft_interleave(const double* re, const double* im, void* z, int64_t n,
                           cudaStream_t stream) {
  interleave(re, im, z, n, stream);
}
void launch_fft_interleave(const float* re, const float* im, void* z, int64_t n,
                           cudaStream_t stream) {
  interleave(re, im, z, n, stream);
}
void launch_fft_split(const void* z, double* re, double* im, double scale, int64_t n,
                      cudaStream_t stream) {
  split(z, re, im, scale, n, stream);
}
void launch_fft_split(const void* z, float* re, float* im, double scale, int64_t n,
                      cudaStream_t stream) {
  split(z, re, im, scale, n, stream);
}
void launch_stft_frames(const double* re, const double* im, void* z, int64_t rows, int64_t n,
                        int64_t frames_, int64_t window, int64_t step, cudaStream_t stream) {
  frames(re, im, z, rows, n, frames_, window, step, stream);
}
void launch_stft_frames(const float* re, const float* im, void* z, int64_t rows, int64_t n,
                        int64_t frames_, int64_t window, int64_t step, cudaStream_t stream) {
  frames(re, im, z, rows, n, frames_, window, step, stream);
}

}  // namespace dmlrt::kernels::cuda
