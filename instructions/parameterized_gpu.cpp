// Parameterized builtins: the GPU run of lowertri / uppertri (parameterized_instructions.h). A
// sparse input is densified into a temporary; its CSR row offsets still mark the empty rows that
// SystemDS's values=FALSE mask skips (Note [Triangle masks of empty rows]). The result is dense.
#include "instructions/gpu_placement.h"
#include "instructions/parameterized_instructions.h"
#include "kernels/cuda/triangle.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

void ParameterizedInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  Operand target;
  target.name = params_.at("target");
  target.data_type = DataType::kMatrix;
  DeviceRead x = gpu_read(ec, gpu, target);
  kernels::cuda::TriangleSpec spec;
  spec.lower = opcode() == "lowertri";
  spec.diag = flag(ec, "diag", false);
  spec.values = flag(ec, "values", false);
  const mem::DeviceMatrix& src = *x;
  if (!spec.values) {
    // Only the ones need the count: values of an all-zero input are zeros anyway.
    const int64_t nnz = src.nnz() >= 0 ? src.nnz() : gpu.count_nnz(src);
    spec.any_nonzero = nnz > 0;
    if (src.is_sparse() && nnz > 0) {
      spec.row_ptr = src.row_ptr();
      spec.row_ptr64 = src.index_width() == mem::IndexWidth::k64;
    }
  }
  const mem::DeviceMatrix& xd = x.dense(gpu);
  const int64_t rows = xd.rows(), cols = xd.cols();
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_" + opcode() + " output");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    // (rows, cols) row-major in and out
    kernels::cuda::launch_extract_triangular(xd.values_as<T>(), out.values_as<T>(), rows, cols,
                                             spec, gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
