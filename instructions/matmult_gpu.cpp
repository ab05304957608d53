// Matrix multiply instructions: the GPU runs of ba+*, tsmm and mmchain (matmult_instructions.h).
// ba+*, a CSR tsmm and mmchain bind their device operands and call kernels/cuda/matmult_op (Note
// [GPU matmult paths]), whose buffers come from a scope's scratch and whose result from the
// memory manager.
//
// Note [GPU mmchain]
// mmchain is two matrix-vector products through ba+*'s device op: q = X %*% v (gemv, SpMV for a
// CSR X), then q = w * q or q - y in place (one cell-wise kernel), then t(X) %*% q with X used
// transposed (gemv on the row-major X as stored, so a dense X is read twice at bandwidth and never
// copied; a CSR X is transposed into scratch by csr2csc, as ba+* does for a transposed CSR
// operand, so SpMV runs NON_TRANSPOSE: deterministic). Nothing leaves the device; the (cols, 1)
// result is bound dense. An X with no cells or no entries gives zeros without a launch.
#include "instructions/matmult_instructions.h"

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/elementwise.h"
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
  // A (1, 1) result (t(v) v of a column, v t(v) of a row: l2svm's sum of squares, 60 per call)
  // is a dot product: cuBLAS's syrk with n = 1 took 0.6 ms for a 1000-vector on the H200, dot
  // (device_matmult's 1x1 route) a few microseconds.
  if (x->is_sparse() ? x->index_width() == mem::IndexWidth::k32 : n == 1 && kdim > 0) {
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

// See Note [GPU mmchain].
void MMChainInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, x_);  // (m, n), dense or CSR
  const int64_t m = x->rows(), n = x->cols();
  if (m == 0 || n == 0 || x->is_empty_sparse()) {
    set_gpu_output(ec, gpu, out_.name,
                   mem::DeviceMatrix::dense(gpu.memory(), n, 1, gpu.dtype(), gpu.stream(),
                                            "gpu_mmchain output", true));
    return;
  }
  DeviceRead v = gpu_read(ec, gpu, v_);
  // A dense v keeps the first product dense (a CSR v would make it SpGEMM's CSR).
  const mem::DeviceMatrix& vd = v.dense(gpu);  // (n, 1)
  mem::DeviceMatrix q =
      device_matmult(gpu, *x, vd, false, false, "gpu_mmchain", "gpu_mmchain X %*% v");  // (m, 1)
  DMLRT_REQUIRE(!q.is_sparse(), RuntimeError,
                "mmchain: X %*% v of " << x->describe() << " came back sparse");
  if (has_w_) {
    DeviceRead w = gpu_read(ec, gpu, w_);
    const mem::DeviceMatrix& wd = w.dense(gpu);  // (m, 1): w or y
    const kernels::cpu::BinaryOp op = type_ == kernels::cpu::ChainType::kXtwXv
                                          ? kernels::cpu::BinaryOp::kMult
                                          : kernels::cpu::BinaryOp::kMinus;
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      // q op w in place, as the CPU (w * q is the same product).
      cuda::launch_binary_matrix_matrix(op, kernels::cpu::Broadcast::kNone, q.values_as<T>(),
                                        wd.values_as<T>(), q.values_as<T>(), m, 1, gpu.stream());
    });
  }
  set_gpu_output(ec, gpu, out_.name,
                 device_matmult(gpu, *x, q, true, false, "gpu_mmchain", "gpu_mmchain output"));
}

}  // namespace dmlrt::inst
