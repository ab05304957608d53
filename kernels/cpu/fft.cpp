// FFTW-backed CPU kernels of fft, ifft, fft_linearized, ifft_linearized and stft (fft.h).
//
// Note [FFTW plans]
// Each call plans its transform with FFTW_ESTIMATE (no timing runs: the plan is made in
// microseconds and never touches the data) on the buffer it then executes in place. FFTW's
// planner is not thread-safe, and dmlrt runs scripts on several threads (the embedded API), so
// planning and destroying hold one process-wide mutex; fftw_execute itself is thread-safe.
// The buffers are std::complex<double>, which FFTW documents as layout-compatible with
// fftw_complex. SystemDS's own radix-2 FFT sums in another order: results agree to rounding
// (a few ulps of the largest magnitude), not bit for bit.
#include "kernels/cpu/fft.h"

#include <fftw3.h>

#include <complex>
#include <mutex>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/host_memory.h"

namespace dmlrt::kernels::cpu {
namespace {

using Complex = std::complex<double>;

std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

// Transforms `data` in place: `rank` 1 (a batch of `batch` rows of n) or 2 (one m x n matrix,
// batch 1), forward (FFTW_FORWARD, exp(-i...)) or backward, unscaled.
void execute_dft(std::vector<Complex>& data, int rank, int64_t m, int64_t n, int64_t batch,
                 int sign) {
  if (data.empty()) return;
  auto* buf = reinterpret_cast<fftw_complex*>(data.data());
  fftw_iodim64 dims[2];
  fftw_iodim64 loop;
  if (rank == 2) {
    dims[0] = {m, n, n};  // rows: stride n
    dims[1] = {n, 1, 1};
    loop = {1, 0, 0};
  } else {
    dims[0] = {n, 1, 1};
    loop = {batch, n, n};
  }
  fftw_plan plan;
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    plan = fftw_plan_guru64_dft(rank, dims, 1, &loop, buf, buf, sign, FFTW_ESTIMATE);
  }
  DMLRT_REQUIRE(plan != nullptr, RuntimeError,
                "fft: FFTW could not plan a transform of " << m << "x" << n);
  fftw_execute(plan);
  std::lock_guard<std::mutex> lock(planner_mutex());
  fftw_destroy_plan(plan);
}

// re [+ i im] as one interleaved buffer (m*n values, row-major).
std::vector<Complex> interleave(const MatrixBlock& re, const MatrixBlock* im) {
  check_host_alloc("fft", re.rows(), re.cols(), 4 * static_cast<int64_t>(sizeof(double)));
  std::vector<Complex> c(static_cast<size_t>(re.size()));
  const MatrixBlock rd = re.is_sparse() ? re.to_dense() : MatrixBlock();
  const double* r = (re.is_sparse() ? rd : re).dense_data();
  for (size_t k = 0; k < c.size(); ++k) c[k] = {r[k], 0.0};
  if (im != nullptr) {
    const MatrixBlock id = im->is_sparse() ? im->to_dense() : MatrixBlock();
    const double* i = (im->is_sparse() ? id : *im).dense_data();
    for (size_t k = 0; k < c.size(); ++k) c[k].imag(i[k]);
  }
  return c;
}

ComplexBlocks split(const std::vector<Complex>& c, int64_t rows, int64_t cols, double scale) {
  ComplexBlocks out{MatrixBlock::dense(rows, cols), MatrixBlock::dense(rows, cols)};
  double* re = out.re.dense_data();
  double* im = out.im.dense_data();
  for (size_t k = 0; k < c.size(); ++k) {
    re[k] = c[k].real() * scale;
    im[k] = c[k].imag() * scale;
  }
  out.re.examine_format();
  out.im.examine_format();
  return out;
}

}  // namespace

bool is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

ComplexBlocks fft(const MatrixBlock& re, const MatrixBlock* im, bool rows_only, bool inverse) {
  const int64_t m = re.rows(), n = re.cols();
  std::vector<Complex> c = interleave(re, im);
  execute_dft(c, rows_only ? 1 : 2, m, n, m, inverse ? FFTW_BACKWARD : FFTW_FORWARD);
  const double len = static_cast<double>(rows_only ? n : m * n);
  return split(c, m, n, inverse && len > 0 ? 1.0 / len : 1.0);
}

int64_t stft_frames(int64_t n, int64_t window, int64_t overlap) {
  const int64_t step = window - overlap;
  return (n - overlap + step - 1) / step;  // C++ and Java both truncate toward zero
}

ComplexBlocks stft(const MatrixBlock& re, const MatrixBlock* im, int64_t window, int64_t overlap) {
  const int64_t m = re.rows(), n = re.cols();
  const int64_t step = window - overlap;
  const int64_t frames = stft_frames(n, window, overlap);
  const int64_t width = frames * window;  // output columns
  check_host_alloc("stft", m, width, 4 * static_cast<int64_t>(sizeof(double)));
  const std::vector<Complex> in = interleave(re, im);
  std::vector<Complex> c(static_cast<size_t>(m * width));
  for (int64_t r = 0; r < m; ++r)
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t j = 0; j < window && f * step + j < n; ++j)
        c[r * width + f * window + j] = in[r * n + f * step + j];
  execute_dft(c, 1, 1, window, m * frames, FFTW_FORWARD);
  return split(c, m, width, 1.0);
}

}  // namespace dmlrt::kernels::cpu
