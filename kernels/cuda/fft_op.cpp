// cuFFT device ops (fft_op.h).
//
// Note [cuFFT plans]
// A plan is made per call (cufftMakePlanMany64, no auto-allocation: the work area comes from the
// Scratch, so the memory manager sees it) and destroyed at the end of the call; the execution
// it queued keeps running on the stream. Plans are cheap next to a transform of data-sized
// operands. Every transform is complex-to-complex in place on the interleaved buffer, also for
// real input: SystemDS returns the full spectrum, which a real-to-complex plan would leave half
// to reconstruct.
#include "kernels/cuda/fft_op.h"

#include <cufft.h>

#include <string>

#include "gpu_context/library_check.h"
#include "kernels/cuda/fft.h"

namespace dmlrt::kernels::cuda {
namespace {

// The owner of one cuFFT plan. Not gpu::UniqueHandle: a cufftHandle is an int for which 0 is a
// valid value, so "no plan" needs its own flag.
class Plan {
 public:
  Plan() { DMLRT_CHECK(cufftCreate(&h_)); }
  ~Plan() { cufftDestroy(h_); }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  cufftHandle get() const { return h_; }

 private:
  cufftHandle h_ = 0;
};

template <typename T>
constexpr cufftType kType = sizeof(T) == 8 ? CUFFT_Z2Z : CUFFT_C2C;

// Transforms `batch` contiguous sequences of shape dims[0..rank) in place on z.
template <typename T>
void execute(cudaStream_t stream, void* z, int rank, long long* dims, long long batch, bool inverse,
             Scratch& scratch) {
  Plan plan;
  DMLRT_CHECK(cufftSetAutoAllocation(plan.get(), 0));
  size_t work = 0;
  DMLRT_CHECK_CTX(cufftMakePlanMany64(plan.get(), rank, dims, nullptr, 1, 0, nullptr, 1, 0,
                                      kType<T>, batch, &work),
                  "rank " << rank << " n " << dims[0] << (rank == 2 ? "x" : "")
                          << (rank == 2 ? std::to_string(dims[1]) : "") << " batch " << batch);
  if (work > 0) DMLRT_CHECK(cufftSetWorkArea(plan.get(), scratch.allocate(work, "cufft work")));
  DMLRT_CHECK(cufftSetStream(plan.get(), stream));
  const int dir = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  if constexpr (sizeof(T) == 8) {
    auto* p = static_cast<cufftDoubleComplex*>(z);
    DMLRT_CHECK(cufftExecZ2Z(plan.get(), p, p, dir));
  } else {
    auto* p = static_cast<cufftComplex*>(z);
    DMLRT_CHECK(cufftExecC2C(plan.get(), p, p, dir));
  }
}

}  // namespace

template <typename T>
void fft(cudaStream_t stream, const T* re, const T* im, int64_t rows, int64_t cols, bool rows_only,
         bool inverse, T* out_re, T* out_im, Scratch& scratch) {
  const int64_t n = rows * cols;
  if (n == 0) return;
  void* z = scratch.allocate(static_cast<size_t>(n) * 2 * sizeof(T), "fft complex buffer");
  launch_fft_interleave(re, im, z, n, stream);
  long long dims[2] = {rows, cols};
  if (rows_only)
    execute<T>(stream, z, 1, dims + 1, rows, inverse, scratch);
  else
    execute<T>(stream, z, 2, dims, 1, inverse, scratch);
  const double len = static_cast<double>(rows_only ? cols : n);
  launch_fft_split(z, out_re, out_im, inverse ? 1.0 / len : 1.0, n, stream);
}

template <typename T>
void stft(cudaStream_t stream, const T* re, const T* im, int64_t rows, int64_t n, int64_t window,
          int64_t step, int64_t frames, T* out_re, T* out_im, Scratch& scratch) {
  const int64_t total = rows * frames * window;
  if (total == 0) return;
  void* z = scratch.allocate(static_cast<size_t>(total) * 2 * sizeof(T), "stft complex buffer");
  launch_stft_frames(re, im, z, rows, n, frames, window, step, stream);
  long long dims[1] = {window};
  execute<T>(stream, z, 1, dims, rows * frames, false, scratch);
  launch_fft_split(z, out_re, out_im, 1.0, total, stream);
}

template void fft<double>(cudaStream_t, const double*, const double*, int64_t, int64_t, bool, bool,
                          double*, double*, Scratch&);
template void fft<float>(cudaStream_t, const float*, const float*, int64_t, int64_t, bool, bool,
                         float*, float*, Scratch&);
template void stft<double>(cudaStream_t, const double*, const double*, int64_t, int64_t, int64_t,
                           int64_t, int64_t, double*, double*, Scratch&);
template void stft<float>(cudaStream_t, const float*, const float*, int64_t, int64_t, int64_t,
                          int64_t, int64_t, float*, float*, Scratch&);

}  // namespace dmlrt::kernels::cuda
