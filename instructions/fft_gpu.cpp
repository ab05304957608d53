// fft, ifft, fft_linearized, ifft_linearized and stft: the GPU run (fft_instructions.h) through
// cuFFT (kernels/cuda/fft_op.h), with the CPU run's size rules and messages (Note [FFT size
// rules]); the nonzeros of an input are counted (one synchronisation) only when its dims fail
// the rule, to tell SystemDS's all-zero shortcut from an error.
#include "gpu_context/error.h"
#include "instructions/fft_instructions.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/fft.h"
#include "kernels/cuda/fft_op.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {

void FftInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead re = gpu_read(ec, gpu, re_);
  DeviceRead im;
  if (!im_.name.empty()) im = gpu_read(ec, gpu, im_);
  const int64_t rows = re->rows(), cols = re->cols();
  int64_t window = 0, overlap = 0, frames = 0;
  bool transform = true;
  if (op_ == Op::kStft) {
    stft_args(ec, cols, &window, &overlap);
    frames = kernels::cpu::stft_frames(cols, window, overlap);
  } else {
    transform = transform_needed(rows, cols, [&] {
      return gpu.count_nnz(*re) + (im_.name.empty() ? 0 : gpu.count_nnz(*im));
    });
  }
  const int64_t out_cols = op_ == Op::kStft ? frames * window : cols;
  auto output = [&](const char* what) {
    return mem::DeviceMatrix::dense(gpu.memory(), rows, out_cols, gpu.dtype(), gpu.stream(), what,
                                    !transform);
  };
  mem::DeviceMatrix out_re = output("gpu_fft real part");
  mem::DeviceMatrix out_im = output("gpu_fft imaginary part");
  if (transform) {
    const mem::DeviceMatrix& r = re.dense(gpu);  // (rows, cols) row-major
    const mem::DeviceMatrix* i = im_.name.empty() ? nullptr : &im.dense(gpu);
    mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_" + opcode());
    mem::with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* iv = i != nullptr ? i->values_as<T>() : nullptr;
      if (op_ == Op::kStft)
        kernels::cuda::stft(gpu.stream(), r.values_as<T>(), iv, rows, cols, window,
                            window - overlap, frames, out_re.values_as<T>(), out_im.values_as<T>(),
                            scratch);
      else
        kernels::cuda::fft(gpu.stream(), r.values_as<T>(), iv, rows, cols, rows_only(), inverse(),
                           out_re.values_as<T>(), out_im.values_as<T>(), scratch);
    });
  }
  set_gpu_output(ec, gpu, out_re_, std::move(out_re));
  set_gpu_output(ec, gpu, out_im_, std::move(out_im));
}

}  // namespace dmlrt::inst
