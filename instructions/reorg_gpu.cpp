// Reorganisation instructions: the GPU runs (reorg_instructions.h). CSR inputs of r', rev and
// rdiag stay sparse (kernels/cuda/csr_ops); rshape and roll densify them (kernels/cuda/reorg;
// roll is two device copies).
#include <cuda_runtime_api.h>

#include "gpu_context/cuda_check.h"
#include "instructions/gpu_placement.h"
#include "instructions/reorg_instructions.h"
#include "kernels/cuda/csr_ops.h"
#include "kernels/cuda/reorg.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {
namespace {

bool is_csr32(const mem::DeviceMatrix& m) {
  return m.is_sparse() && m.index_width() == mem::IndexWidth::k32;
}

}  // namespace

// CSR: cuSPARSE csr2csc, the output stays CSR (int64-index CSRs take the dense path: csr2csc
// is int32 only). Dense: the tiled transpose kernel.
void TransposeInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, in_);
  if (x->is_empty_sparse() || is_csr32(*x)) {
    set_gpu_output(ec, gpu, out_.name, gpu.transpose(*x, "gpu_r' output"));
    return;
  }
  const mem::DeviceMatrix& xd = x.dense(gpu);  // (m, n) row-major
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), xd.cols(), xd.rows(), gpu.dtype(),
                                                   gpu.stream(), "gpu_r' output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::cuda::launch_transpose(xd.values_as<T>(), out.values_as<T>(), xd.rows(), xd.cols(),
                                    gpu.stream());
  });
  out.set_nnz(x->nnz());
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

// Dense: output rows [s, m) are input rows [0, m - s) and output rows [0, s) the last s input
// rows, s = shift mod m as on the CPU (kernels/cpu/reorg.cpp roll_rows): two contiguous copies.
void RollInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, in_);
  const mem::DeviceMatrix& xd = x.dense(gpu);  // (m, n) row-major
  const int64_t m = xd.rows(), n = xd.cols();
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), m, n, gpu.dtype(), gpu.stream(),
                                                   "gpu_roll output");
  if (m > 0 && n > 0) {
    const int64_t s = ((shift(ec) % m) + m) % m;
    const size_t row = static_cast<size_t>(n) * mem::dtype_size(gpu.dtype());
    const char* src = static_cast<const char*>(xd.values());
    char* dst = static_cast<char*>(out.values());
    DMLRT_CHECK(cudaMemcpyAsync(dst + s * row, src, (m - s) * row, cudaMemcpyDeviceToDevice,
                                gpu.stream()));
    if (s > 0)
      DMLRT_CHECK(cudaMemcpyAsync(dst, src + (m - s) * row, s * row, cudaMemcpyDeviceToDevice,
                                  gpu.stream()));
  }
  out.set_nnz(x->nnz());
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

// CSR (int32): rows reversed in CSR form, nnz unchanged (no densification, no sync).
void ReverseInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, in_);
  if (x->is_empty_sparse() || is_csr32(*x)) {
    mem::DeviceMatrix out =
        mem::DeviceMatrix::csr(gpu.memory(), x->rows(), x->cols(), x->nnz(), gpu.dtype(),
                               mem::IndexWidth::k32, gpu.stream(), "gpu_rev output");
    mem::with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_csr_reverse_rows(
          static_cast<const int32_t*>(x->row_ptr()), static_cast<const int32_t*>(x->col_idx()),
          x->values_as<T>(), x->rows(), x->nnz(), static_cast<int32_t*>(out.row_ptr()),
          static_cast<int32_t*>(out.col_idx()), out.values_as<T>(), gpu.stream());
    });
    set_gpu_output(ec, gpu, out_.name, std::move(out));
    return;
  }
  const mem::DeviceMatrix& xd = x.dense(gpu);  // (m, n) row-major
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), xd.rows(), xd.cols(), gpu.dtype(),
                                                   gpu.stream(), "gpu_rev output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::cuda::launch_reverse_rows(xd.values_as<T>(), out.values_as<T>(), xd.rows(), xd.cols(),
                                       gpu.stream());
  });
  out.set_nnz(x->nnz());
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

// vector -> diagonal: a CSR result with the vector's nonzeros (a dense vector is converted to CSR
// first), never an n x n dense matrix. square -> vector: dense output; a CSR input is searched row
// by row, not densified.
void DiagInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, in_);
  const int64_t n = x->rows();
  if (x->cols() == 1) {
    const mem::DeviceMatrix& xs = x.csr(gpu);
    if (xs.is_empty_sparse() || is_csr32(xs)) {
      mem::DeviceMatrix out =
          mem::DeviceMatrix::csr(gpu.memory(), n, n, xs.nnz(), gpu.dtype(), mem::IndexWidth::k32,
                                 gpu.stream(), "gpu_rdiag output");
      mem::with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kernels::cuda::launch_csr_diag_from_vector(
            static_cast<const int32_t*>(xs.row_ptr()), xs.values_as<T>(), n, xs.nnz(),
            static_cast<int32_t*>(out.row_ptr()), static_cast<int32_t*>(out.col_idx()),
            out.values_as<T>(), gpu.stream());
      });
      set_gpu_output(ec, gpu, out_.name, std::move(out));
      return;
    }
    // int64-index vectors (over 2^31 rows): the dense kernel.
    const mem::DeviceMatrix& xd = x.dense(gpu);
    mem::DeviceMatrix out =
        mem::DeviceMatrix::dense(gpu.memory(), n, n, gpu.dtype(), gpu.stream(), "gpu_rdiag output");
    mem::with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_diag_from_vector(xd.values_as<T>(), out.values_as<T>(), n,
                                             gpu.stream());
    });
    set_gpu_output(ec, gpu, out_.name, std::move(out));
    return;
  }
  // (n, n) -> (n, 1)
  mem::DeviceMatrix out =
      mem::DeviceMatrix::dense(gpu.memory(), n, 1, gpu.dtype(), gpu.stream(), "gpu_rdiag output",
                               /*zero=*/x->is_empty_sparse());
  if (x->is_empty_sparse()) {
    set_gpu_output(ec, gpu, out_.name, std::move(out));
    return;
  }
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (!x->is_sparse())
      kernels::cuda::launch_diag_to_vector(x->values_as<T>(), out.values_as<T>(), n, gpu.stream());
    else if (x->index_width() == mem::IndexWidth::k32)
      kernels::cuda::launch_csr_diag_to_vector(
          static_cast<const int32_t*>(x->row_ptr()), static_cast<const int32_t*>(x->col_idx()),
          x->values_as<T>(), n, out.values_as<T>(), gpu.stream());
    else
      kernels::cuda::launch_csr_diag_to_vector(
          static_cast<const int64_t*>(x->row_ptr()), static_cast<const int64_t*>(x->col_idx()),
          x->values_as<T>(), n, out.values_as<T>(), gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

// Dense kernels (a copy by row, the column-major walk otherwise); CSR inputs are densified into a
// temporary.
void ReshapeInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, in_);
  const Target t = target(ec, Dims{x->rows(), x->cols()});
  if (x->is_empty_sparse()) {  // stays an empty CSR, no device memory
    set_gpu_output(ec, gpu, out_.name,
                   mem::DeviceMatrix::csr(gpu.memory(), t.rows, t.cols, 0, gpu.dtype(),
                                          mem::IndexWidth::k32, gpu.stream(), "gpu_rshape output"));
    return;
  }
  const mem::DeviceMatrix& xd = x.dense(gpu);  // (m, n) row-major
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), t.rows, t.cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_rshape output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::cuda::launch_reshape(xd.values_as<T>(), out.values_as<T>(), xd.rows(), xd.cols(),
                                  t.rows, t.cols, t.byrow, gpu.stream());
  });
  out.set_nnz(x->nnz());
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
