// sample(range, size, TRUE, seed): the GPU run (datagen_instructions.h). kernels/cuda/sample draws
// the CPU's cells from the same Philox streams, so for one resolved seed both runs give the same
// column. Without replacement there is no GPU run (has_gpu_impl).
#include "instructions/datagen_instructions.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/sample.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

void SampleInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const int64_t size = checked_size(ec);
  const uint64_t seed = run_seed(ec);
  mem::DeviceMatrix out =  // (size, 1)
      mem::DeviceMatrix::dense(gpu.memory(), size, 1, gpu.dtype(), gpu.stream(),
                               "gpu_sample output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::cuda::launch_sample_with_replacement(range_, size, seed, out.values_as<T>(),
                                                  gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
