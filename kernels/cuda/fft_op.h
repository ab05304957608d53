// The device ops of fft, ifft, fft_linearized, ifft_linearized and stft: cuFFT's complex-to-
// complex transforms (Z2Z in FP64, C2C in FP32) with the CPU kernel's results
// (kernels/cpu/fft.h). Inputs and outputs are dense row-major device matrices (im may be null:
// zero); the interleaved complex buffer and cuFFT's work area come from the caller's Scratch
// (Note [Device scratch]). Nothing synchronises. Sizes are the instruction's to check.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"
#include "kernels/cuda/scratch.h"

namespace dmlrt::kernels::cuda {

// x = re [+ i im] (rows, cols): the DFT of the whole matrix (`rows_only` false, a 2-D
// transform) or of each row, exp(-2*pi*i*jk/n); `inverse` takes exp(+...) and divides by the
// transform's length. out_re, out_im (rows, cols). T is double or float.
template <typename T>
void fft(cudaStream_t stream, const T* re, const T* im, int64_t rows, int64_t cols, bool rows_only,
         bool inverse, T* out_re, T* out_im, Scratch& scratch);

// stft of re [+ i im] (rows, n): `frames` frames of `window` columns every `step` columns per
// row, each transformed; out_re, out_im (rows, frames * window).
template <typename T>
void stft(cudaStream_t stream, const T* re, const T* im, int64_t rows, int64_t n, int64_t window,
          int64_t step, int64_t frames, T* out_re, T* out_im, Scratch& scratch);

}  // namespace dmlrt::kernels::cuda
