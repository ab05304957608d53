// Ternary instructions: the GPU run (ternary_instructions.h). Full-shape matrix inputs are read on
// the device (sparse ones through a dense temporary); scalars and broadcast 1x1 matrices are passed
// by value, as the CPU kernel does — a 1x1 whose only copy is on the device comes back first (one
// element, one sync; the device copy stays). The output is dense.
#include "instructions/gpu_placement.h"
#include "instructions/ternary_instructions.h"
#include "kernels/cuda/elementwise.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

void TernaryInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead reads[3];
  ArgShape shapes[3];
  double values[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    if (in_[i].is_matrix()) {
      reads[i] = gpu_read(ec, gpu, in_[i]);
      shapes[i] = {true, reads[i]->rows(), reads[i]->cols()};
    } else {
      values[i] = to_number(ec.scalar(in_[i]));
    }
  }
  const Dims shape = output_shape(shapes);
  const int64_t rows = shape.rows, cols = shape.cols, n = rows * cols;
  const mem::DeviceMatrix* data[3] = {nullptr, nullptr, nullptr};
  for (int i = 0; i < 3; ++i) {
    if (!shapes[i].is_matrix || n == 0) continue;
    if (shapes[i].rows == rows && shapes[i].cols == cols)
      data[i] = &reads[i].dense(gpu);
    else  // a 1x1 broadcast over a larger output: its value, from the host copy
      values[i] = ec.matrix(in_[i])->get(0, 0);
  }
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_" + opcode() + " output");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    kernels::cuda::CellArg<T> args[3];
    for (int i = 0; i < 3; ++i) {
      args[i].data = data[i] ? data[i]->values_as<T>() : nullptr;
      args[i].value = values[i];
    }
    kernels::cuda::launch_ternary(op_, args[0], args[1], args[2], out.values_as<T>(), n,
                                  gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
