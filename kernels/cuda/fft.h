// Launchers of the FFT kernel family (host-clean): moving a complex matrix between dmlrt's two
// real matrices (real, imaginary) and the interleaved layout cuFFT transforms, and stft's
// framing. `z` points to (re, im) pairs of T (cufftDoubleComplex / cufftComplex); pointers are
// device pointers, `stream` a cudaStream_t. See kernels/cuda/fft_op.h for the transforms.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// z[k] = (re[k], im ? im[k] : 0) for k < n.
void launch_fft_interleave(const double* re, const double* im, void* z, int64_t n,
                           cudaStream_t stream);
void launch_fft_interleave(const float* re, const float* im, void* z, int64_t n,
                           cudaStream_t stream);

// re[k] = scale * z[k].re, im[k] = scale * z[k].im for k < n.
void launch_fft_split(const void* z, double* re, double* im, double scale, int64_t n,
                      cudaStream_t stream);
void launch_fft_split(const void* z, float* re, float* im, double scale, int64_t n,
                      cudaStream_t stream);

// stft's frames of re [+ i im] (rows, n): z (rows, frames * window) with z[r, f*window + j] =
// x[r, f*step + j] where f*step + j < n, else 0 (kernels/cpu/fft.h, stft).
void launch_stft_frames(const double* re, const double* im, void* z, int64_t rows, int64_t n,
                        int64_t frames, int64_t window, int64_t step, cudaStream_t stream);
void launch_stft_frames(const float* re, const float* im, void* z, int64_t rows, int64_t n,
                        int64_t frames, int64_t window, int64_t step, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
