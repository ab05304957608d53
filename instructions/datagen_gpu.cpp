// Data generation instructions: the GPU runs (datagen_instructions.h). kernels/cuda/datagen
// reproduces the CPU's cells exactly.
#include "instructions/datagen_instructions.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/datagen.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

// Every cell is written (zeros where the sparsity draw leaves it empty): a sparse rand is dense on
// the device, and takes the host format SystemDS would pick when it is copied back. A rand with
// nothing to draw is an empty CSR.
void RandInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const kernels::cpu::RandSpec spec = run_spec(ec);
  const bool zeros =
      spec.rows == 0 || spec.cols == 0 || spec.sparsity == 0.0 ||
      (spec.pdf == kernels::cpu::RandPdf::kUniform && spec.min == 0.0 && spec.max == 0.0);
  if (zeros) {  // nothing drawn: an empty CSR, which holds no device memory (as the CPU's)
    set_gpu_output(ec, gpu, out_.name,
                   mem::DeviceMatrix::csr(gpu.memory(), spec.rows, spec.cols, 0, gpu.dtype(),
                                          mem::IndexWidth::k32, gpu.stream(), "gpu_rand output"));
    return;
  }
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), spec.rows, spec.cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_rand output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::cuda::launch_rand(spec, out.values_as<T>(), gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

// (n, 1); launch_seq reproduces seq_column's repeated-addition rounding exactly.
void SeqInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const Args a = args(ec);
  const int64_t n = kernels::cpu::seq_length(a.from, a.to, a.incr);
  mem::DeviceMatrix out =
      mem::DeviceMatrix::dense(gpu.memory(), n, 1, gpu.dtype(), gpu.stream(), "gpu_seq output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::cuda::launch_seq(a.from, a.incr, n, out.values_as<T>(), gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
