// Indexing instructions: the GPU runs (indexing_instructions.h). Dense inputs use the block
// kernels; CSR inputs are sliced without densifying the whole input.
#include <cuda_runtime_api.h>

#include <cmath>
#include <string>

#include "gpu_context/cuda_check.h"
#include "gpu_context/host_sync_hook.h"
#include "instructions/gpu_placement.h"
#include "instructions/indexing_instructions.h"
#include "kernels/cuda/csr_ops.h"
#include "kernels/cuda/indexing.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {
namespace {

// One int32 of device memory, synchronously (a CSR slice's nnz sizes its output).
int64_t read_device_int32(mem::GpuSession& gpu, const int32_t* p) {
  int32_t v = 0;
  gpu::before_host_sync("read of a device value");
  DMLRT_CHECK(cudaMemcpyAsync(&v, p, sizeof v, cudaMemcpyDeviceToHost, gpu.stream()));
  DMLRT_CHECK(cudaStreamSynchronize(gpu.stream()));
  return v;
}

// rows [r0, r1) x columns [c0, c1) of an int32 CSR as a CSR: per-row counts, a scan, one
// synchronous read of the nnz, then the ordered copy (columns rebased).
mem::DeviceMatrix slice_csr(mem::GpuSession& gpu, const mem::DeviceMatrix& x, int64_t r0,
                            int64_t r1, int64_t c0, int64_t c1) {
  const int64_t rows = r1 - r0, cols = c1 - c0;
  const std::string what = "gpu_rightIndex output";
  mem::DeviceAllocation rp =
      gpu.scratch(static_cast<size_t>(rows + 1) * sizeof(int32_t), what + " (csr row offsets)");
  kernels::cuda::launch_csr_slice_count(static_cast<const int32_t*>(x.row_ptr()),
                                        static_cast<const int32_t*>(x.col_idx()), r0, r1, c0, c1,
                                        x.cols(), rp.as<int32_t>(), gpu.stream());
  const size_t ws_bytes = kernels::cuda::csr_scan_workspace_bytes(rows + 1);
  {
    mem::DeviceAllocation ws = gpu.scratch(ws_bytes, "csr slice scan workspace");
    kernels::cuda::launch_csr_scan(rp.as<int32_t>(), rows + 1, ws.data(), ws_bytes, gpu.stream());
  }
  const int64_t nnz = read_device_int32(gpu, rp.as<int32_t>() + rows);
  const size_t es = mem::dtype_size(gpu.dtype());
  mem::DeviceAllocation ci =
      gpu.scratch(static_cast<size_t>(nnz) * sizeof(int32_t), what + " (csr column indices)");
  mem::DeviceAllocation vals = gpu.scratch(static_cast<size_t>(nnz) * es, what + " (csr values)");
  if (nnz > 0)
    mem::with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_csr_slice_fill(static_cast<const int32_t*>(x.row_ptr()),
                                           static_cast<const int32_t*>(x.col_idx()),
                                           x.values_as<T>(), r0, r1, c0, c1, rp.as<int32_t>(),
                                           ci.as<int32_t>(), vals.as<T>(), gpu.stream());
    });
  return mem::DeviceMatrix::adopt_csr(rows, cols, nnz, gpu.dtype(), mem::IndexWidth::k32,
                                      std::move(rp), std::move(ci), std::move(vals));
}

// rows [r0, r1) x columns [c0, c1) of a CSR (either index width) into a dense (zeroed) result:
// only the selected rows are read.
mem::DeviceMatrix slice_csr_to_dense(mem::GpuSession& gpu, const mem::DeviceMatrix& x, int64_t r0,
                                     int64_t r1, int64_t c0, int64_t c1, const std::string& what) {
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), r1 - r0, c1 - c0, gpu.dtype(),
                                                   gpu.stream(), what, /*zero=*/true);
  if (x.is_empty_sparse()) return out;
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (x.index_width() == mem::IndexWidth::k32)
      kernels::cuda::launch_csr_slice_to_dense(
          static_cast<const int32_t*>(x.row_ptr()), static_cast<const int32_t*>(x.col_idx()),
          x.values_as<T>(), r0, r1, c0, c1, out.values_as<T>(), gpu.stream());
    else
      kernels::cuda::launch_csr_slice_to_dense(
          static_cast<const int64_t*>(x.row_ptr()), static_cast<const int64_t*>(x.col_idx()),
          x.values_as<T>(), r0, r1, c0, c1, out.values_as<T>(), gpu.stream());
  });
  out.set_nnz(-1);  // the zero fill made it 0; the slice's count is unknown
  return out;
}

}  // namespace

// A CSR result of at most this many cells is made dense instead: a CSR slice's size is known only
// after a host read of its nnz (the host waits for every queued kernel, and the device then idles
// while the host catches up), and a dense result keeps graph-safe ops after it (a mini-batch of
// one-hot labels, 64 x 10, sliced every training step). 64K cells are 512 KiB in FP64.
constexpr int64_t kDenseSliceCells = int64_t{1} << 16;

// Dense input: the slice kernel. CSR input: a CSR slice when the result is expected to be sparse
// (the input's density over the selected cells, SystemDS's format rule) and has more than
// kDenseSliceCells cells, else only the selected rows scattered into a dense result (no host
// read). A scalar output reads one cell (one sync).
void RightIndexInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, in_);
  const Range r = cells(ec, Dims{x->rows(), x->cols()});
  const int64_t r0 = r.rl - 1, r1 = r.ru, c0 = r.cl - 1, c1 = r.cu;
  if (out_.is_scalar()) {
    double v = 0;
    if (!x->is_sparse()) {
      v = gpu.read_element(*x, r0, c0);
    } else if (!x->is_empty_sparse()) {
      mem::DeviceMatrix cell = slice_csr_to_dense(gpu, *x, r0, r1, c0, c1, "gpu_rightIndex cell");
      v = gpu.read_element(cell, 0, 0);
    }
    ec.set_scalar(out_, ScalarValue::fp64(v));
    return;
  }
  const int64_t rows = r.rows(), cols = r.cols();
  if (x->is_empty_sparse()) {
    set_gpu_output(
        ec, gpu, out_.name,
        mem::DeviceMatrix::csr(gpu.memory(), rows, cols, 0, gpu.dtype(), mem::IndexWidth::k32,
                               gpu.stream(), "gpu_rightIndex output"));
    return;
  }
  if (x->is_sparse()) {
    const double expected_nnz = static_cast<double>(x->nnz()) * static_cast<double>(rows) /
                                static_cast<double>(x->rows()) * static_cast<double>(cols) /
                                static_cast<double>(x->cols());
    if (x->index_width() == mem::IndexWidth::k32 && rows * cols > kDenseSliceCells &&
        kernels::MatrixBlock::prefers_sparse(rows, cols,
                                             static_cast<int64_t>(std::ceil(expected_nnz))))
      set_gpu_output(ec, gpu, out_.name, slice_csr(gpu, *x, r0, r1, c0, c1));
    else
      set_gpu_output(ec, gpu, out_.name,
                     slice_csr_to_dense(gpu, *x, r0, r1, c0, c1, "gpu_rightIndex output"));
    return;
  }
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_rightIndex output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::cuda::launch_slice(x->values_as<T>(), x->cols(), r0, r1, c0, c1, out.values_as<T>(),
                                gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

// The result is a dense copy of the target (a CSR target is densified into it) with the range
// overwritten: the target itself is never written, since other variables may share it.
void LeftIndexInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, in_);
  const Dims xdims{x->rows(), x->cols()};
  const Range r = range(ec, xdims);
  const int64_t r0 = r.rl - 1, r1 = r.ru, c0 = r.cl - 1, c1 = r.cu;
  double value = 0;
  DeviceRead y;
  if (rhs_.is_scalar()) {
    value = ec.scalar(rhs_).to_double();
  } else {
    y = gpu_read(ec, gpu, rhs_);
    check_rhs(r, xdims, Dims{y->rows(), y->cols()});
  }
  const std::string what = "gpu_leftIndex output";
  mem::DeviceMatrix out;  // (m, n) row-major
  if (x->is_sparse()) {
    out = gpu.to_dense(*x, what);
  } else {
    out = mem::DeviceMatrix::dense(gpu.memory(), x->rows(), x->cols(), gpu.dtype(), gpu.stream(),
                                   what);
    mem::with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_copy_block(x->values_as<T>(), x->rows(), x->cols(), out.values_as<T>(),
                                       x->cols(), 0, 0, gpu.stream());
    });
  }
  const mem::DeviceMatrix* yd = nullptr;
  if (!rhs_.is_scalar() && !y->is_empty_sparse()) yd = &y.dense(gpu);
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (yd == nullptr)  // a scalar, or an empty CSR right-hand side (zeros)
      kernels::cuda::launch_fill_block(out.values_as<T>(), out.cols(), r0, r1, c0, c1,
                                       static_cast<T>(value), gpu.stream());
    else
      kernels::cuda::launch_copy_block(yd->values_as<T>(), yd->rows(), yd->cols(),
                                       out.values_as<T>(), out.cols(), r0, c0, gpu.stream());
  });
  out.set_nnz(-1);
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
