// The batch-norm sub-family of the DNN ops: the GPU runs (dnn_batchnorm_instructions.h). Sparse
// inputs are read through dense temporaries; every output is dense. The results are bound after
// the inputs are released (an output may rebind an input's name).
#include <array>
#include <string>
#include <vector>

#include "instructions/dnn_batchnorm_instructions.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/dnn_batchnorm.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

void BatchNormForwardInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const Params p = params(ec);
  std::vector<mem::DeviceMatrix> res;
  {
    std::array<DeviceRead, 5> in;
    for (size_t i = 0; i < 5; ++i) in[i] = gpu_read(ec, gpu, in_[i]);
    const int64_t n = in[0]->rows(), c = in[1]->rows(), hw = in[0]->cols() / c;
    std::array<const mem::DeviceMatrix*, 5> d;
    for (size_t i = 0; i < 5; ++i) d[i] = &in[i].dense(gpu);
    const std::string what = "gpu_" + opcode() + " output";
    res.push_back(
        mem::DeviceMatrix::dense(gpu.memory(), n, c * hw, gpu.dtype(), gpu.stream(), what));
    for (size_t i = 1; i < outs_.size(); ++i)
      res.push_back(mem::DeviceMatrix::dense(gpu.memory(), c, 1, gpu.dtype(), gpu.stream(), what));
    mem::DeviceAllocation ws = gpu.scratch(kernels::cuda::batch_norm_workspace_bytes(n, c, hw),
                                           "gpu_" + opcode() + " workspace");
    mem::with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      auto out = [&](size_t i) { return i < res.size() ? res[i].values_as<T>() : nullptr; };
      if (p.train)
        kernels::cuda::launch_batch_norm_train(
            d[0]->values_as<T>(), d[1]->values_as<T>(), d[2]->values_as<T>(), d[3]->values_as<T>(),
            d[4]->values_as<T>(), out(0), out(1), out(2), out(3), out(4), n, c, hw, p.eps, p.mu,
            ws.data(), gpu.stream());
      else
        kernels::cuda::launch_batch_norm_test(d[0]->values_as<T>(), d[1]->values_as<T>(),
                                              d[2]->values_as<T>(), d[3]->values_as<T>(),
                                              d[4]->values_as<T>(), out(0), out(1), out(2), out(3),
                                              out(4), n, c, hw, p.eps, ws.data(), gpu.stream());
    });
  }
  for (size_t i = 0; i < outs_.size(); ++i) set_gpu_output(ec, gpu, outs_[i], std::move(res[i]));
}

void BatchNormBackwardInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  ec.scalar(eps_).to_double();  // unused by the formula (as in SystemDS), but must be a number
  std::vector<mem::DeviceMatrix> res;
  {
    std::array<DeviceRead, 5> in;
    for (size_t i = 0; i < 5; ++i) in[i] = gpu_read(ec, gpu, in_[i]);
    const int64_t n = in[0]->rows(), c = in[2]->rows(), hw = in[0]->cols() / c;
    std::array<const mem::DeviceMatrix*, 5> d;
    for (size_t i = 0; i < 5; ++i) d[i] = &in[i].dense(gpu);
    const std::string what = "gpu_" + opcode() + " output";
    res.push_back(
        mem::DeviceMatrix::dense(gpu.memory(), n, c * hw, gpu.dtype(), gpu.stream(), what));
    for (int i = 0; i < 2; ++i)
      res.push_back(mem::DeviceMatrix::dense(gpu.memory(), c, 1, gpu.dtype(), gpu.stream(), what));
    mem::DeviceAllocation ws = gpu.scratch(kernels::cuda::batch_norm_workspace_bytes(n, c, hw),
                                           "gpu_" + opcode() + " workspace");
    mem::with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_batch_norm_backward(
          d[0]->values_as<T>(), d[1]->values_as<T>(), d[2]->values_as<T>(), d[3]->values_as<T>(),
          d[4]->values_as<T>(), res[0].values_as<T>(), res[1].values_as<T>(), res[2].values_as<T>(),
          n, c, hw, ws.data(), gpu.stream());
    });
  }
  for (size_t i = 0; i < 3; ++i) set_gpu_output(ec, gpu, outs_[i], std::move(res[i]));
}

}  // namespace dmlrt::inst
