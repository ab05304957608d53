// The conv instructions: the GPU run (dnn_conv_instructions.h) and the sparse-filter path's
// binding. The operands are bound here — device copies, batch rows (a CSR batch densified chunk by
// chunk through mem::RowFetcher, Note [DNN batch splitting]), the intermediate budget, the
// session's scratch — and the work is one op call: kernels/cuda/dnn_conv_op.h (cuDNN passes) or
// kernels/cuda/dnn_sparse_conv_op.h (CSR filter), plus the bias and ReLU epilogue.
#include <algorithm>
#include <optional>
#include <sstream>
#include <string>

#include "gpu_context/error.h"
#include "instructions/dnn_conv_instructions.h"
#include "instructions/dnn_gpu_common.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/dnn_conv.h"
#include "kernels/cuda/dnn_conv_op.h"
#include "kernels/cuda/dnn_pool.h"
#include "kernels/cuda/dnn_sparse_conv_op.h"
#include "memory/gpu_session.h"
#include "memory/row_fetcher.h"
#include "memory/scratch.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;
namespace kc = kernels::cuda;
using Pass = gpu::ConvPass;

// A shape with an empty dimension: no cuDNN call (its descriptors need every dim >= 1); the
// convolution sum is empty, so the output is zero (plus the bias).
bool degenerate(const cpu::ConvShape& sh) {
  return sh.n == 0 || sh.c == 0 || sh.h == 0 || sh.w == 0 || sh.k == 0 || sh.r == 0 || sh.s == 0;
}

// A batch operand's rows for the pass runner: a RowFetcher for each chunk size.
class FetchedRows final : public kc::ConvBatchRows {
 public:
  FetchedRows(mem::GpuSession& gpu, const mem::DeviceMatrix& m, std::string what)
      : gpu_(gpu), m_(m), what_(std::move(what)) {}
  void start(int64_t max_rows) override {
    fetcher_.reset();  // the old chunk's buffer goes first
    fetcher_.emplace(gpu_, m_, max_rows, what_);
  }
  const void* rows(int64_t r0, int64_t r1) override { return fetcher_->rows(r0, r1); }

 private:
  mem::GpuSession& gpu_;
  const mem::DeviceMatrix& m_;
  std::string what_;
  std::optional<mem::RowFetcher> fetcher_;
};

kc::ConvSettings conv_settings(const mem::GpuSession& gpu) {
  kc::ConvSettings s;
  s.fp64 = gpu.dtype() == mem::DType::kFloat64;
  s.deterministic = gpu.options().cudnn_deterministic;
  s.allow_tf32 = gpu.options().allow_tf32;
  s.graph = gpu.options().cudnn_graph;
  s.fp32_tolerance = gpu.options().fp32_conv_tolerance;
  return s;
}

// Runs `pass` over the batch in chunks (Note [DNN batch splitting]): x (N, CHW) and dy (N, KPQ)
// are the batch operands the pass reads (dense or CSR; fetched chunk by chunk), w the dense
// filter (forward, backward data); out is y (N, KPQ), dx (N, CHW) or dW (K, CRS).
void run_passes(mem::GpuSession& gpu, kc::ConvPlanMemo& memo, const std::string& opcode,
                const std::string& params, Pass pass, const cpu::ConvShape& sh,
                const mem::DeviceMatrix* x, const mem::DeviceMatrix* dy, const void* w, void* out) {
  const int64_t e = static_cast<int64_t>(dtype_size(gpu.dtype()));
  const int64_t chw = sh.c * sh.h * sh.w, kpq = sh.k * sh.p * sh.q, crs = sh.c * sh.r * sh.s;
  DMLRT_REQUIRE(chw < kMaxCudnnTensorElements && kpq < kMaxCudnnTensorElements &&
                    sh.k * crs < kMaxCudnnTensorElements,
                NotSupported,
                opcode << ": cuDNN cannot index tensors of " << kMaxCudnnTensorElements
                       << " or more elements: an image row has CHW=" << chw << ", a dout row KPQ="
                       << kpq << ", the filter K*CRS=" << sh.k * crs << " (" << params << ")");
  kc::ConvPassArgs a;
  a.pass = pass;
  kc::ConvDims& d = a.dims;
  d.n = sh.n, d.c = sh.c, d.h = sh.h, d.w = sh.w, d.k = sh.k, d.r = sh.r, d.s = sh.s;
  d.p = sh.p, d.q = sh.q;
  d.stride_h = sh.stride_h, d.stride_w = sh.stride_w, d.pad_h = sh.pad_h, d.pad_w = sh.pad_w;
  a.budget = dnn_intermediate_budget(gpu);
  const int64_t per_row = (chw + kpq) * e, fixed = sh.k * crs * e;
  a.first_rows = dnn_chunk_rows(sh.n, per_row, fixed + kc::conv_workspace_reserve(fixed, a.budget),
                                a.budget, std::max(chw, kpq));
  a.what = "gpu_" + opcode;
  a.opcode = opcode;
  a.params = params;
  std::optional<FetchedRows> xr, yr;
  if (x != nullptr) a.x = &xr.emplace(gpu, *x, a.what + " images");
  if (dy != nullptr) a.dy = &yr.emplace(gpu, *dy, a.what + " dout");
  a.w = w;
  a.out = out;
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), a.what);
  kc::run_conv_passes(gpu.context(), gpu.conv_algos(), conv_settings(gpu), memo, a, scratch);
}

// y (N, KPQ) += bias broadcast per output channel, then max(y, 0) when relu; row chunks keep
// each cuDNN tensor under kMaxCudnnTensorElements.
void bias_and_relu(mem::GpuSession& gpu, const cpu::ConvShape& sh, const mem::DeviceMatrix* bias,
                   bool relu, mem::DeviceMatrix& y) {
  const int64_t kpq = sh.k * sh.p * sh.q;
  if ((bias == nullptr && !relu) || sh.n == 0 || kpq == 0) return;
  if (bias != nullptr) {
    // One epilogue pass over y (ours, int64-indexed: no chunks): cuDNN's fused forms need
    // IMPLICIT_PRECOMP_GEMM for ReLU (cudnnConvolutionBiasActivationForward) or FP16/BF16 runtime
    // fusion engines (graph API), while the timed choice is often another algorithm.
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      T* values = y.values_as<T>();
      if (relu)
        kc::launch_bias_add_relu(values, bias->values_as<T>(), values, sh.n, kpq, sh.k,
                                 gpu.stream());
      else
        kc::launch_bias_add(values, bias->values_as<T>(), values, sh.n, kpq, sh.k, gpu.stream());
    });
    return;
  }
  const int64_t e = static_cast<int64_t>(dtype_size(gpu.dtype()));
  const int64_t rows = std::max<int64_t>(1, (kMaxCudnnTensorElements - 1) / kpq);
  cudnnHandle_t h = gpu.context().cudnn();
  const bool fp64 = gpu.dtype() == mem::DType::kFloat64;
  for (int64_t r0 = 0; r0 < sh.n; r0 += rows) {
    const int64_t m = std::min(rows, sh.n - r0);
    kc::relu_inplace(h, fp64, m, sh.k, sh.p, sh.q, static_cast<char*>(y.values()) + r0 * kpq * e);
  }
}

// --- the sparse-filter path's operand checks (messages as the tests expect them) ---

std::string conv_params(const cpu::ConvShape& sh) {
  std::ostringstream os;
  os << "N=" << sh.n << " C=" << sh.c << " H=" << sh.h << " W=" << sh.w << " K=" << sh.k
     << " R=" << sh.r << " S=" << sh.s << " P=" << sh.p << " Q=" << sh.q;
  return os.str();
}

void check_operand(const char* what, const mem::DeviceMatrix& m, int64_t rows, int64_t cols,
                   const char* expected, mem::DType dtype, const cpu::ConvShape& sh) {
  DMLRT_REQUIRE(m.rows() == rows && m.cols() == cols, ShapeError,
                "conv2d (sparse filter): " << what << " is " << m.describe() << ", expected "
                                           << expected << " = " << rows << "x" << cols << " ("
                                           << conv_params(sh) << ")");
  DMLRT_REQUIRE(m.dtype() == dtype, ShapeError,
                "conv2d (sparse filter): " << what << " is " << m.describe()
                                           << ", expected the session's "
                                           << mem::dtype_name(dtype));
}

kc::CsrOperand csr_of(const mem::DeviceMatrix& m) {
  kc::CsrOperand c;
  c.row_ptr = m.row_ptr();
  c.col_idx = m.col_idx();
  c.values = m.values();
  c.nnz = m.nnz();
  c.index64 = m.index_width() == mem::IndexWidth::k64;
  return c;
}

}  // namespace

std::shared_ptr<kc::ConvPlanMemo> Conv2dInstruction::memo_for(const mem::GpuSession& gpu) {
  std::lock_guard<std::mutex> lock(memo_mutex_);
  std::shared_ptr<kc::ConvPlanMemo>& m = memos_[&gpu];
  if (m == nullptr) m = std::make_shared<kc::ConvPlanMemo>();
  return m;
}

void Conv2dInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const cpu::ConvShape sh = run_shape(ec);
  const int64_t chw = sh.c * sh.h * sh.w, kpq = sh.k * sh.p * sh.q, crs = sh.c * sh.r * sh.s;
  const bool empty = degenerate(sh);
  const std::string what = "gpu_" + opcode();
  const std::string params = params_string(sh);
  const std::shared_ptr<kc::ConvPlanMemo> memo = memo_for(gpu);
  switch (op_) {
    case ConvOp::kForward:
    case ConvOp::kForwardBias: {
      const bool with_bias = op_ == ConvOp::kForwardBias;
      DeviceRead x = gpu_read(ec, gpu, inputs_[0]);
      DeviceRead b;
      if (with_bias) b = gpu_read(ec, gpu, inputs_[1]);
      DeviceRead w = gpu_read(ec, gpu, inputs_[with_bias ? 2 : 1]);
      // (N, K*P*Q) row-major = NCHW (n, k, p, q)
      mem::DeviceMatrix y = mem::DeviceMatrix::dense(gpu.memory(), sh.n, kpq, gpu.dtype(),
                                                     gpu.stream(), what + " output", empty);
      const mem::DeviceMatrix* bias = with_bias ? &b.dense(gpu) : nullptr;
      // A CSR filter takes the sparse-filter path (im2col + SpMM) when its cost model says so;
      // it adds the bias itself.
      const int64_t budget = dnn_intermediate_budget(gpu);
      if (!empty && w->is_sparse() && sparse_filter_conv2d_applies(gpu, *w, sh, budget)) {
        sparse_filter_conv2d(gpu, *x, *w, bias, sh, budget, y);
        bias_and_relu(gpu, sh, nullptr, relu_, y);  // the ReLU alone
      } else {
        if (!empty)
          run_passes(gpu, *memo, opcode(), params, Pass::kForward, sh, &*x, nullptr,
                     w.dense(gpu).values(), y.values());
        bias_and_relu(gpu, sh, bias, relu_, y);
      }
      set_gpu_output(ec, gpu, out_.name, std::move(y));
      return;
    }
    case ConvOp::kBackwardFilter: {
      DeviceRead x = gpu_read(ec, gpu, inputs_[0]);
      DeviceRead dout = gpu_read(ec, gpu, inputs_[1]);
      // (K, C*R*S) row-major = KCRS
      mem::DeviceMatrix dw = mem::DeviceMatrix::dense(gpu.memory(), sh.k, crs, gpu.dtype(),
                                                      gpu.stream(), what + " output", empty);
      if (!empty)
        run_passes(gpu, *memo, opcode(), params, Pass::kBackwardFilter, sh, &*x, &*dout, nullptr,
                   dw.values());
      set_gpu_output(ec, gpu, out_.name, std::move(dw));
      return;
    }
    case ConvOp::kBackwardData: {
      DeviceRead w = gpu_read(ec, gpu, inputs_[0]);
      DeviceRead dout = gpu_read(ec, gpu, inputs_[1]);
      // (N, C*H*W) row-major = NCHW
      mem::DeviceMatrix dx = mem::DeviceMatrix::dense(gpu.memory(), sh.n, chw, gpu.dtype(),
                                                      gpu.stream(), what + " output", empty);
      if (!empty)
        run_passes(gpu, *memo, opcode(), params, Pass::kBackwardData, sh, nullptr, &*dout,
                   w.dense(gpu).values(), dx.values());
      set_gpu_output(ec, gpu, out_.name, std::move(dx));
      return;
    }
  }
}

bool sparse_filter_conv2d_applies(mem::GpuSession& gpu, const mem::DeviceMatrix& filter,
                                  const cpu::ConvShape& sh, int64_t budget_bytes) {
  if (!filter.is_sparse()) return false;
  if (filter.is_empty_sparse()) return true;  // the bias alone: no buffers at all
  return sparse_filter_conv2d_chunk_rows(sh, static_cast<int64_t>(dtype_size(gpu.dtype())),
                                         budget_bytes) >= 1 &&
         sparse_filter_conv2d_cheaper(filter.nnz(), sh, gpu.dtype() == mem::DType::kFloat64);
}

void sparse_filter_conv2d(mem::GpuSession& gpu, const mem::DeviceMatrix& images,
                          const mem::DeviceMatrix& filter, const mem::DeviceMatrix* bias,
                          const cpu::ConvShape& sh, int64_t budget_bytes, mem::DeviceMatrix& out) {
  const mem::DType dt = gpu.dtype();
  const int64_t chw = sh.c * sh.h * sh.w, crs = sh.c * sh.r * sh.s, kpq = sh.k * sh.p * sh.q;
  check_operand("image batch", images, sh.n, chw, "N x CHW", dt, sh);
  check_operand("filter", filter, sh.k, crs, "K x CRS", dt, sh);
  DMLRT_REQUIRE(filter.is_sparse(), ShapeError,
                "conv2d (sparse filter): the filter is " << filter.describe()
                                                         << ", expected a CSR device copy");
  if (bias != nullptr) {
    check_operand("bias", *bias, sh.k, 1, "K x 1", dt, sh);
    DMLRT_REQUIRE(!bias->is_sparse(), ShapeError,
                  "conv2d (sparse filter): the bias is " << bias->describe()
                                                         << ", expected a dense device copy");
  }
  check_operand("output", out, sh.n, kpq, "N x KPQ", dt, sh);
  DMLRT_REQUIRE(!out.is_sparse(), ShapeError,
                "conv2d (sparse filter): the output is " << out.describe()
                                                         << ", expected a dense device matrix");
  if (sh.n == 0 || kpq == 0) return;
  kc::SparseFilterConv a;
  a.shape = sh;
  a.fp64 = dt == mem::DType::kFloat64;
  if (images.is_sparse())
    a.images_csr = csr_of(images);
  else
    a.images_dense = images.values();
  a.filter = csr_of(filter);
  a.bias = bias != nullptr ? bias->values() : nullptr;
  a.out = out.values();
  a.filter_text = filter.describe();
  // Chunks only where there is a product to compute: an empty filter or image batch gives the
  // bias alone, within any budget.
  if (!filter.is_empty_sparse() && !images.is_empty_sparse() && crs != 0) {
    const int64_t e = static_cast<int64_t>(dtype_size(dt));
    const int64_t pq = sh.p * sh.q;
    a.chunk_rows = sparse_filter_conv2d_chunk_rows(sh, e, budget_bytes);
    DMLRT_REQUIRE(a.chunk_rows >= 1, OutOfMemory,
                  "conv2d (sparse filter): one image needs a "
                      << crs << "x" << pq << " im2col buffer and a " << sh.k << "x" << pq
                      << " product (" << (crs + sh.k) * pq * e << " bytes), over the budget of "
                      << budget_bytes << " bytes (" << conv_params(sh) << ")");
  }
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "conv2d");
  kc::sparse_filter_conv2d(gpu.context().cusparse(), gpu.stream(), a, scratch);
}

}  // namespace dmlrt::inst
