// CPU kernels of SystemDS's FFT builtins (LibMatrixFourier, LibMatrixSTFT) through FFTW 3: the 2-D
// DFT of a matrix (fft, ifft), the DFT of each row (fft_linearized, ifft_linearized) and the
// short-time transform of each row (stft). Complex matrices are two real ones, (real, imaginary).
// The size rules SystemDS applies (power-of-two dims, an all-zero input passes unchecked) are the
// instruction's (instructions/fft_instructions.cpp); these kernels take sizes that satisfy them.
#pragma once

#include <cstdint>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

struct ComplexBlocks {
  MatrixBlock re, im;  // dense, same dims
};

// True for 1, 2, 4, ... (SystemDS's isPowerOfTwo: 0 is not one).
bool is_power_of_two(int64_t n);

// re (m, n) and im (m, n) or null (all zero): the forward DFT, exp(-2*pi*i*jk/n), of the whole
// matrix (`rows_only` false: rows then columns, a 2-D DFT) or of each row; `inverse` takes
// exp(+2*pi*i*jk/n) and divides by the transform's length (m*n, or n per row), as SystemDS's ifft.
ComplexBlocks fft(const MatrixBlock& re, const MatrixBlock* im, bool rows_only, bool inverse);

// Frames per row of stft over n columns: (n - overlap + step - 1) / step with step = window -
// overlap > 0, truncated toward zero as Java's int division (negative when the row is shorter
// than the overlap; the caller rejects that).
int64_t stft_frames(int64_t n, int64_t window, int64_t overlap);

// The short-time DFT of each row of re (m, n) [+ i im]: frame f holds columns f*step ..
// f*step + window - 1 of the row, zero past its end, and its DFT is written to columns
// f*window .. (f+1)*window - 1 of the (m, frames*window) outputs. window is a power of two,
// overlap < window (a negative overlap skips columns between frames) and frames >= 0.
ComplexBlocks stft(const MatrixBlock& re, const MatrixBlock* im, int64_t window, int64_t overlap);

}  // namespace dmlrt::kernels::cpu
