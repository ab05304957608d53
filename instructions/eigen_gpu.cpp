// eigen(A): the GPU run (eigen_instruction.h): cuSOLVER's syevd for a symmetric input
// (kernels/cuda/eigen_op.h); any other input (not symmetric by commons-math's rule, NaN/Inf) runs
// the CPU kernel instead, which decomposes it with dgeev or raises its error, so a plan gets the
// same results and messages on either backend.
#include "gpu_context/error.h"
#include "instructions/eigen_instruction.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/eigen_op.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {
namespace {

mem::DeviceMatrix output(mem::GpuSession& gpu, int64_t rows, int64_t cols, const char* what) {
  return mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(), gpu.stream(), what);
}

}  // namespace

void EigenInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  // Scoped so that the input's pin and the scratch are released before a CPU fallback.
  const bool done = [&] {
    DeviceRead in = gpu_read(ec, gpu, in_);
    const int64_t n = in->rows();                                        // check(): square
    mem::DeviceMatrix values = output(gpu, n, 1, "gpu_eigen values");    // (n, 1)
    mem::DeviceMatrix vectors = output(gpu, n, n, "gpu_eigen vectors");  // (n, n) row-major
    if (n > 0) {
      const mem::DeviceMatrix& a = in.dense(gpu);  // (n, n) row-major
      const kernels::cuda::SolverHandles h{gpu.context().cublas(), gpu.context().cusolver(),
                                           gpu.stream()};
      mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_eigen");
      kernels::cuda::EigenReport r;
      mem::with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        r = kernels::cuda::eigen_symmetric(h, n, a.values_as<T>(), values.values_as<T>(),
                                           vectors.values_as<T>(), scratch);
      });
      if (!r.symmetric || !r.finite) return false;
      DMLRT_REQUIRE(r.info == 0, RuntimeError,
                    "eigen: the eigenvalues of the " << kernels::dims_string(n, n)
                                                     << " input did not converge (syevd)");
    }
    set_gpu_output(ec, gpu, values_, std::move(values));
    set_gpu_output(ec, gpu, vectors_, std::move(vectors));
    return true;
  }();
  if (!done) run_cpu(ec);
}

}  // namespace dmlrt::inst
