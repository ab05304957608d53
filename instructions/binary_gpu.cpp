// Cell-wise binary instructions: the GPU run (binary_instructions.h). Sparse inputs are densified
// into temporaries (the kernels are dense); the output is dense with unknown nnz, and takes the
// host format SystemDS would pick when it is copied back.
#include "instructions/binary_instructions.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/elementwise.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

void BinaryInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const mem::AllocLabel label("gpu_", opcode(), " output");
  if (in1_.is_matrix() && in2_.is_matrix()) {
    DeviceRead a = gpu_read(ec, gpu, in1_);
    DeviceRead b = gpu_read(ec, gpu, in2_);
    const kernels::cpu::Broadcast bc =
        kernels::cpu::binary_broadcast(a->rows(), a->cols(), b->rows(), b->cols());
    const int64_t rows = a->rows();
    const int64_t cols = bc == kernels::cpu::Broadcast::kOuter ? b->cols() : a->cols();
    const mem::DeviceMatrix& ad = a.dense(gpu);
    const mem::DeviceMatrix& bd = b.dense(gpu);
    mem::DeviceMatrix c =
        mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(), gpu.stream(), label);
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      kernels::cuda::launch_binary_matrix_matrix(op_, bc, ad.values_as<T>(), bd.values_as<T>(),
                                                 c.values_as<T>(), rows, cols, gpu.stream());
    });
    set_gpu_output(ec, gpu, out_.name, std::move(c));
    return;
  }
  const bool scalar_left = in1_.is_scalar();
  const double sv = scalar_as_double(ec, scalar_left);
  DeviceRead m = gpu_read(ec, gpu, scalar_left ? in2_ : in1_);
  const mem::DeviceMatrix& md = m.dense(gpu);
  mem::DeviceMatrix c = mem::DeviceMatrix::dense(gpu.memory(), md.rows(), md.cols(), gpu.dtype(),
                                                 gpu.stream(), label);
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    kernels::cuda::launch_binary_matrix_scalar(op_, md.values_as<T>(), sv, scalar_left,
                                               c.values_as<T>(), md.size(), gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(c));
}

}  // namespace dmlrt::inst
