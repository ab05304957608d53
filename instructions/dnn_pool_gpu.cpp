// The pool sub-family of the DNN ops: the GPU runs (dnn_pool_instructions.h), on our own kernels
// (kernels/cuda/dnn_pool.h).
#include <algorithm>
#include <memory>
#include <string>

#include "instructions/dnn_gpu_common.h"
#include "instructions/dnn_pool_instructions.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/dnn_pool.h"
#include "memory/gpu_session.h"
#include "memory/row_fetcher.h"

namespace dmlrt::inst {

namespace cpu = kernels::cpu;

// Own kernels (Note [GPU pooling kernels]) over batch chunks (Note [DNN batch splitting]): the
// intermediates per image are the densified rows of CSR inputs (RowFetcher) and, for max
// pooling backward with overlapping windows, the int32 choice of every window. Dense inputs are
// read in place; the dense output is allocated whole first, so the budget counts it as live.
// avgpooling_backward never reads X (pool_shape checked its shape from the metadata).
void PoolInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const cpu::PoolShape sh = pool_shape(ec);
  const bool relu = opcode().rfind("relu_", 0) == 0;
  const bool avg = opcode().rfind("avgpooling", 0) == 0;
  const int64_t chw = sh.c * sh.h * sh.w, cpq = sh.c * sh.p() * sh.q();
  const int64_t es = static_cast<int64_t>(mem::dtype_size(gpu.dtype()));
  const std::string what = "gpu_" + opcode();

  const bool reads_x = !(backward_ && avg);
  DeviceRead x, dout;
  if (reads_x) x = gpu_read(ec, gpu, x_);
  if (backward_) dout = gpu_read(ec, gpu, dout_);

  const int64_t out_cols = backward_ ? chw : cpq;
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), sh.n, out_cols, gpu.dtype(),
                                                   gpu.stream(), what + " output");
  cpu::PoolShape one = sh;
  one.n = 1;
  int64_t per_row = 0;
  if (reads_x && x->is_sparse()) per_row += chw * es;
  if (backward_ && dout->is_sparse()) per_row += cpq * es;
  const bool max_bwd = backward_ && !avg;
  if (max_bwd)
    per_row += static_cast<int64_t>(kernels::cuda::max_pool_backward_workspace_bytes(one));
  // Our kernels index with int64, so cuDNN's per-tensor element bound does not apply.
  const int64_t chunk = dnn_chunk_rows(sh.n, per_row, 0, dnn_intermediate_budget(gpu), 0);

  std::unique_ptr<mem::RowFetcher> xf, df;
  if (reads_x) xf = std::make_unique<mem::RowFetcher>(gpu, *x, chunk, what + " X");
  if (backward_) df = std::make_unique<mem::RowFetcher>(gpu, *dout, chunk, what + " dout");
  cpu::PoolShape part = sh;
  part.n = std::min(chunk, sh.n);
  mem::DeviceAllocation workspace;
  if (max_bwd)
    workspace = gpu.scratch(kernels::cuda::max_pool_backward_workspace_bytes(part),
                            what + " window choices");

  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    namespace kc = kernels::cuda;
    for (int64_t r0 = 0; r0 < sh.n; r0 += chunk) {
      const int64_t r1 = std::min(sh.n, r0 + chunk);
      part.n = r1 - r0;
      T* o = out.values_as<T>() + r0 * out_cols;
      const T* xi = xf ? static_cast<const T*>(xf->rows(r0, r1)) : nullptr;
      const T* di = df ? static_cast<const T*>(df->rows(r0, r1)) : nullptr;
      if (!backward_)
        avg ? kc::launch_avg_pool(xi, o, part, gpu.stream())
            : kc::launch_max_pool(xi, o, part, relu, gpu.stream());
      else if (avg)
        kc::launch_avg_pool_backward(di, o, part, gpu.stream());
      else
        kc::launch_max_pool_backward(xi, di, o, part, relu, workspace.data(), gpu.stream());
    }
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

void BinaryDnnInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead a = gpu_read(ec, gpu, a_);
  DeviceRead b = gpu_read(ec, gpu, b_);
  const mem::DeviceMatrix& ad = a.dense(gpu);  // (n, k*pq) or the shape of dout
  const mem::DeviceMatrix& bd = b.dense(gpu);  // dout, or the bias (k, 1)
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), ad.rows(), ad.cols(), gpu.dtype(),
                                                   gpu.stream(), "gpu_" + opcode() + " output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* av = ad.values_as<T>();
    const T* bv = bd.values_as<T>();
    T* ov = out.values_as<T>();
    if (opcode() == "relu_backward")
      kernels::cuda::launch_relu_backward(av, bv, ov, ad.size(), gpu.stream());
    else if (opcode() == "bias_add")
      kernels::cuda::launch_bias_add(av, bv, ov, ad.rows(), ad.cols(), bd.rows(), gpu.stream());
    else
      kernels::cuda::launch_bias_multiply(av, bv, ov, ad.rows(), ad.cols(), bd.rows(),
                                          gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

// A CSR X is densified (a two-pass deterministic reduction over the dense cells).
void ChannelSumsInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const Channels ch = channels(ec);
  DeviceRead x = gpu_read(ec, gpu, x_);
  const std::string what = "gpu_" + opcode();
  mem::DeviceMatrix out =
      mem::DeviceMatrix::dense(gpu.memory(), ch.c, 1, gpu.dtype(), gpu.stream(), what + " output");
  const mem::DeviceMatrix& xd = x.dense(gpu);  // (n, c*hw) row-major
  mem::DeviceAllocation ws = gpu.scratch(
      kernels::cuda::channel_sums_workspace_bytes(xd.rows(), ch.c, ch.hw), what + " partial sums");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::cuda::launch_channel_sums(xd.values_as<T>(), out.values_as<T>(), xd.rows(), ch.c,
                                       ch.hw, ws.data(), gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

void NesterovInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, in_[0]);
  DeviceRead v = gpu_read(ec, gpu, in_[1]);
  DeviceRead vp = gpu_read(ec, gpu, in_[2]);
  const double mu = ec.scalar(mu_).to_double();
  const mem::DeviceMatrix& xd = x.dense(gpu);
  const mem::DeviceMatrix& vd = v.dense(gpu);
  const mem::DeviceMatrix& pd = vp.dense(gpu);
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), xd.rows(), xd.cols(), gpu.dtype(),
                                                   gpu.stream(), "gpu_" + opcode() + " output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::cuda::launch_update_nesterov_x(xd.values_as<T>(), vd.values_as<T>(), pd.values_as<T>(),
                                            mu, out.values_as<T>(), xd.size(), gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
