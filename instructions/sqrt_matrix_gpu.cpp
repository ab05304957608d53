// sqrt_matrix_java: the GPU run (sqrt_matrix_instruction.h) through kernels/cuda/sqrt_matrix_op.h.
// The CPU kernel's errors: an input that is not symmetric by commons-math's rule, or holds NaN/Inf,
// runs the CPU kernel instead, which raises its message naming the cells; an eigenvalue <= 0 (read
// back from the device) raises the CPU kernel's message with the value the device found.
#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "instructions/sqrt_matrix_instruction.h"
#include "kernels/cuda/sqrt_matrix_op.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {

void SqrtMatrixInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  // Scoped so that the input's pin and the scratch are released before a CPU fallback.
  const bool done = [&] {
    DeviceRead in = gpu_read(ec, gpu, in_);
    const int64_t n = in->rows();  // check(): square
    mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), n, n, gpu.dtype(), gpu.stream(),
                                                     "gpu_sqrt_matrix_java output");  // (n, n)
    if (n > 0) {
      const mem::DeviceMatrix& a = in.dense(gpu);  // (n, n) row-major
      const kernels::cuda::SolverHandles h{gpu.context().cublas(), gpu.context().cusolver(),
                                           gpu.stream()};
      mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_sqrt_matrix_java");
      kernels::cuda::SqrtMatrixReport r;
      mem::with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        r = kernels::cuda::sqrt_matrix(h, n, a.values_as<T>(), out.values_as<T>(), scratch);
      });
      if (!r.symmetric || !r.finite) return false;
      DMLRT_REQUIRE(r.info == 0, RuntimeError,
                    "sqrtMatrixJava: the eigenvalues of the " << kernels::dims_string(n, n)
                                                              << " input did not converge (syevd)");
      // kernels/cpu/sqrt_matrix.cpp's message.
      DMLRT_REQUIRE(r.nonpositive < 0, RuntimeError,
                    "sqrtMatrixJava: the matrix has the eigenvalue "
                        << r.eigenvalue
                        << " <= 0; commons-math's getSquareRoot, which SystemDS calls, "
                           "supports positive definite matrices only");
    }
    set_gpu_output(ec, gpu, out_.name, std::move(out));
    return true;
  }();
  if (!done) run_cpu(ec);
}

}  // namespace dmlrt::inst
