// Matrix multiply instructions: the GPU runs of ba+* and tsmm (matmult_instructions.h). ba+* and
// a CSR tsmm bind their device operands and call kernels/cuda/matmult_op (Note [GPU matmult
// paths]), whose buffers come from a scope's scratch and whose result from the memory manager.
#include "instructions/matmult_instructions.h"

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/matmult_op.h"
#include "kernels/cuda/triangle.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {
namespace {

namespace cuda = kernels::cuda;

cuda::DeviceView view_of(const mem::DeviceMatrix& m) {
  cuda::DeviceView v;
  v.rows = m.rows();
  v.cols = m.cols();
  v.sparse = m.is_sparse();
  v.nnz = m.nnz();
  v.index64 = m.index_width() == mem::IndexWidth::k64;
  v.values = m.values();
  v.row_ptr = m.row_ptr();
  v.col_idx = m.col_idx();
  return v;
}

// The op's result as a DeviceMatrix of the session's element type, labelled `label`.
class DeviceResult final : public cuda::MatmultResult {
 public:
  DeviceResult(mem::GpuSession& gpu, mem::AllocLabel label) : gpu_(gpu), label_(std::move(label)) {}

  void* dense(int64_t rows, int64_t cols) override {
    m_ = mem::DeviceMatrix::dense(gpu_.memory(), rows, cols, gpu_.dtype(), gpu_.stream(), label_);
    return m_.values();
  }
  void* csr_row_ptr(int64_t rows, int64_t) override {
    row_ptr_ = gpu_.scratch(static_cast<size_t>(rows + 1) * sizeof(int32_t),
                            label_.with_note(" (csr row offsets)"));
    return row_ptr_.data();
  }
  void csr_entries(int64_t rows, int64_t cols, int64_t nnz, void** col_idx,
                   void** values) override {
    if (nnz == 0) {  // an empty CSR holds no memory
      row_ptr_.reset();
      m_ = mem::DeviceMatrix::csr(gpu_.memory(), rows, cols, 0, gpu_.dtype(), mem::IndexWidth::k32,
                                  gpu_.stream(), label_);
      return;
    }
    mem::DeviceAllocation col = gpu_.scratch(static_cast<size_t>(nnz) * sizeof(int32_t),
                                             label_.with_note(" (csr column indices)"));
    mem::DeviceAllocation val = gpu_.scratch(static_cast<size_t>(nnz) * mem::dtype_size(gpu_.dtype()),
                                             label_.with_note(" (csr values)"));
    *col_idx = col.data();
    *values = val.data();
    m_ = mem::DeviceMatrix::adopt_csr(rows, cols, nnz, gpu_.dtype(), mem::IndexWidth::k32,
                                      std::move(row_ptr_), std::move(col), std::move(val));
  }

  mem::DeviceMatrix take() { return std::move(m_); }

 private:
  mem::GpuSession& gpu_;
  mem::AllocLabel label_;
  mem::DeviceAllocation row_ptr_;
  mem::DeviceMatrix m_;
};

// op(A) %*% op(B) through the device op; `owner` names the scratch blocks ("gpu_ba+*").
mem::DeviceMatrix device_matmult(mem::GpuSession& gpu, const mem::DeviceMatrix& a,
                                 const mem::DeviceMatrix& b, bool trans_a, bool trans_b,
                                 const char* owner, mem::AllocLabel output) {
  DMLRT_REQUIRE(a.dtype() == gpu.dtype() && b.dtype() == gpu.dtype(), RuntimeError,
                "ba+*: device operands " << a.describe() << " and " << b.describe()
                                         << " do not have the session's element type");
  cuda::BlasContext ctx;
  ctx.cublas = gpu.context().cublas();
  ctx.cusparse = gpu.context().cusparse();
  ctx.fp64 = gpu.dtype() == mem::DType::kFloat64;
  ctx.planner = [&gpu]() -> cuda::GemmPlanner& { return gpu.gemm_planner(); };
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), owner);
  DeviceResult result(gpu, std::move(output));
  cuda::matmult(ctx, view_of(a), view_of(b), trans_a, trans_b, result, scratch);
  return result.take();
}

}  // namespace

void MatMultInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead a = gpu_read(ec, gpu, a_);
  DeviceRead b = gpu_read(ec, gpu, b_);
  mem::DeviceMatrix c =
      device_matmult(gpu, *a, *b, trans_a_, trans_b_, "gpu_ba+*", "gpu_ba+* output");
  if (out_.is_scalar()) {
    // A scalar result is needed on the host (control flow may read it): one synchronous read.
    const double v = c.is_sparse() ? 0.0 : gpu.read_element(c, 0, 0);
    ec.set_scalar(out_, ScalarValue::fp64(v));
    return;
  }
  set_gpu_output(ec, gpu, out_.name, std::move(c));
}

void TsmmInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, x_);
  const int64_t n = left_ ? x->cols() : x->rows();
  const int64_t kdim = left_ ? x->rows() : x->cols();
  // SpGEMM needs int32 CSR indices (Note [CSR index width]); a wider CSR takes the dense path.
  if (x->is_sparse() && x->index_width() == mem::IndexWidth::k32) {
    set_gpu_output(ec, gpu, out_.name,
                   device_matmult(gpu, *x, *x, left_, !left_, "gpu_tsmm", "gpu_tsmm output"));
    return;
  }
  // (n, n) row-major, symmetric; zeros when the inner dimension is 0.
  mem::DeviceMatrix c = mem::DeviceMatrix::dense(gpu.memory(), n, n, gpu.dtype(), gpu.stream(),
                                                 "gpu_tsmm output", kdim == 0);
  if (n > 0 && kdim > 0) {
    const mem::DeviceMatrix& xd = x.dense(gpu);  // (rows, cols) row-major
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      cuda::syrk_upper_row_major(gpu.context().cublas(), left_, xd.rows(), xd.cols(),
                                 xd.values_as<T>(), c.values_as<T>());
      cuda::launch_copy_upper_to_lower(c.values_as<T>(), n, gpu.stream());
    });
  }
  set_gpu_output(ec, gpu, out_.name, std::move(c));
}

}  // namespace dmlrt::inst
