// Statistics and fused ternary aggregates: the GPU runs (stats_instructions.h). Inputs are read as
// dense device views (a CSR copy is densified into a temporary, as the aggregates do, so implicit
// zeros take part as on the CPU); the kernels are kernels/cuda/stats (deterministic fused
// reductions). tak+*, cov and cm read their one result element back (the one synchronisation);
// tack+*'s row stays on the device.
#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "instructions/stats_instructions.h"
#include "kernels/cuda/stats.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {
namespace {

namespace cuda = kernels::cuda;

// One device element of the session's type that a kernel writes and the host reads back.
mem::DeviceMatrix result_cell(mem::GpuSession& gpu, const std::string& opcode) {
  return mem::DeviceMatrix::dense(gpu.memory(), 1, 1, gpu.dtype(), gpu.stream(),
                                  "gpu_" + opcode + " result");
}

template <typename T>
const T* values_or_null(const mem::DeviceMatrix* m) {
  return m != nullptr ? m->values_as<T>() : nullptr;
}

}  // namespace

void CovInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, ins_[0]);
  DeviceRead y = gpu_read(ec, gpu, ins_[1]);
  DeviceRead w;
  if (ins_.size() == 3) w = gpu_read(ec, gpu, ins_[2]);
  const mem::DeviceMatrix& xd = x.dense(gpu);  // (n, 1), as check() made x, y and w
  const mem::DeviceMatrix& yd = y.dense(gpu);
  const mem::DeviceMatrix* wd = ins_.size() == 3 ? &w.dense(gpu) : nullptr;
  const int64_t n = xd.rows();
  mem::DeviceMatrix out = result_cell(gpu, opcode());
  mem::DeviceAllocation ws =
      gpu.scratch(cuda::moments_workspace_bytes(n), "gpu_cov partials and means");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    cuda::launch_covariance(xd.values_as<T>(), yd.values_as<T>(), values_or_null<T>(wd), n,
                            out.values_as<T>(), ws.data(), gpu.stream());
  });
  ec.set_scalar(out_.name, ScalarValue::fp64(gpu.read_element(out, 0, 0)));
}

void CentralMomentInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  // The order is a scalar operand: checked here, worded as the CPU kernel words it.
  const int order = static_cast<int>(ec.scalar(ins_.back()).to_int());
  DMLRT_REQUIRE(order == 0 || (order >= 2 && order <= 4), RuntimeError,
                "cm: order must be 0 (mean), 2, 3 or 4, got " << order);
  DeviceRead x = gpu_read(ec, gpu, ins_[0]);
  DeviceRead w;
  if (ins_.size() == 3) w = gpu_read(ec, gpu, ins_[1]);
  const mem::DeviceMatrix& xd = x.dense(gpu);  // (n, 1)
  const mem::DeviceMatrix* wd = ins_.size() == 3 ? &w.dense(gpu) : nullptr;
  const int64_t n = xd.rows();
  mem::DeviceMatrix out = result_cell(gpu, opcode());
  mem::DeviceAllocation ws =
      gpu.scratch(cuda::moments_workspace_bytes(n), "gpu_cm partials and mean");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    cuda::launch_central_moment(xd.values_as<T>(), values_or_null<T>(wd), n, order,
                                out.values_as<T>(), ws.data(), gpu.stream());
  });
  ec.set_scalar(out_.name, ScalarValue::fp64(gpu.read_element(out, 0, 0)));
}

void TernaryAggInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  // Matrix inputs as dense views of one shape (check()), scalars as values.
  DeviceRead held[3];
  const mem::DeviceMatrix* dense[3] = {nullptr, nullptr, nullptr};
  double value[3] = {1.0, 1.0, 1.0};
  int64_t rows = 0, cols = 0;
  for (int i = 0; i < 3; ++i) {
    if (ins_[i].is_matrix()) {
      held[i] = gpu_read(ec, gpu, ins_[i]);
      dense[i] = &held[i].dense(gpu);
      rows = dense[i]->rows();
      cols = dense[i]->cols();
    } else {
      value[i] = ec.scalar(ins_[i]).to_double();
    }
  }
  mem::DeviceMatrix out = col_ ? mem::DeviceMatrix::dense(gpu.memory(), 1, cols, gpu.dtype(),
                                                          gpu.stream(), "gpu_tack+* output")
                               : result_cell(gpu, opcode());
  const size_t ws_bytes = col_ ? cuda::col_sum_product3_workspace_bytes(rows, cols)
                               : cuda::sum_product3_workspace_bytes(rows * cols);
  mem::DeviceAllocation ws = gpu.scratch(ws_bytes, "gpu_" + opcode() + " partials");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    cuda::ProductArg<T> args[3];
    for (int i = 0; i < 3; ++i) {
      args[i].data = values_or_null<T>(dense[i]);
      args[i].value = value[i];
    }
    if (col_)
      cuda::launch_col_sum_product3(args[0], args[1], args[2], rows, cols, out.values_as<T>(),
                                    ws.data(), gpu.stream());
    else
      cuda::launch_sum_product3(args[0], args[1], args[2], rows * cols, out.values_as<T>(),
                                ws.data(), gpu.stream());
  });
  if (col_) {
    set_gpu_output(ec, gpu, out_.name, std::move(out));
    return;
  }
  ec.set_scalar(out_, ScalarValue::fp64(gpu.read_element(out, 0, 0)));
}

}  // namespace dmlrt::inst
