// The pool sub-family of the DNN ops: max/avg pooling and their backward passes (also
// relu_maxpooling), relu_backward, bias_add, bias_multiply, channel_sums and update_nesterov_x, on
// the CPU (kernels/cpu/dnn_pool.h) and on the GPU (kernels/cuda/dnn_pool.h, same semantics; see
// Note [GPU pooling kernels]). Layouts: reference/systemds-format.md §3 (CP) and systemds-gpu.md
// §2.6 (GPU: no k; pooling backward may carry the forward output, ignored on both backends).
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>

#include "gpu_context/error.h"
#include "instructions/dnn_families.h"
#include "instructions/dnn_gpu_common.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/dnn_pool.h"
#include "kernels/host_memory.h"

#ifdef DMLRT_WITH_CUDA
#include "kernels/cuda/dnn_pool.h"
#include "memory/gpu_session.h"
#include "memory/row_fetcher.h"
#endif

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

// Device bytes of the matrix bound to `op` from its metadata (-1 when a dim is unknown).
int64_t meta_bytes(ExecutionContext& ec, const Operand& op) {
  const MatrixMeta& m = ec.matrix_object(op.name)->meta();
  return dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
}

// The sum of byte counts, -1 when one is unknown.
int64_t sum_bytes(std::initializer_list<int64_t> parts) {
  int64_t total = 0;
  for (int64_t b : parts) {
    if (b < 0) return -1;
    total += b;
  }
  return total;
}

// maxpooling avgpooling relu_maxpooling: X°12 scalars°out[°k][°mem]
// maxpooling_backward avgpooling_backward relu_maxpooling_backward:
//   X°dout°12 scalars[°maxpool_out]°out[°k][°mem]
class PoolInstruction final : public Instruction {
 public:
  explicit PoolInstruction(InstructionText t) : Instruction(std::move(t)) {
    backward_ = opcode().find("_backward") != std::string::npos;
    const size_t first_scalar = backward_ ? 2 : 1;
    expect_fields(first_scalar + 13, first_scalar + 16);
    x_ = operand(0);
    if (backward_) dout_ = operand(1);
    for (size_t i = 0; i < 12; ++i) scalars_[i] = operand(first_scalar + i);
    size_t out_at = first_scalar + 12;
    // The GPU layout may put the forward output before out: two MATRIX fields in a row.
    if (backward_ && num_fields() > out_at + 1 &&
        field(out_at + 1).find("MATRIX") != std::string::npos)
      ++out_at;
    out_ = operand(out_at);
    DMLRT_REQUIRE(x_.is_matrix() && out_.is_matrix() && (!backward_ || dout_.is_matrix()),
                  ParseError, where() << ": " << opcode() << " needs matrix input and output");
  }

  bool has_gpu_impl() const override { return true; }

  void execute(ExecutionContext& ec) override {
    const cpu::PoolShape sh = pool_shape(ec);
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu)
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec, sh)))
        return execute_gpu(ec, *gpu, sh);
#endif
    auto x = ec.matrix(x_);
    check_x(x->rows(), x->cols(), sh);
    const bool relu = opcode().rfind("relu_", 0) == 0;
    if (!backward_) {
      // The plan's padding can make P x Q far larger than the image: the (N, C*P*Q) output is
      // checked before the kernel takes it.
      const double cpq = static_cast<double>(sh.c) * static_cast<double>(sh.p()) *
                         static_cast<double>(sh.q());
      std::ostringstream shape;
      shape << "an output of " << sh.n << "x"
          << (cpq < 9.2e18 ? std::to_string(static_cast<int64_t>(cpq)) : std::to_string(cpq))
          << " cells (N x C*P*Q with P=" << sh.p()
            << ", Q=" << sh.q() << ")";
      kernels::check_host_bytes(opcode(), shape.str(), 8.0 * static_cast<double>(sh.n) * cpq);
      DMLRT_REQUIRE(cpq <= static_cast<double>(INT32_MAX), ShapeError,
                    opcode() << ": " << shape.str() << " exceeds the supported 2^31-1 columns");
      ec.set_matrix(out_.name,
                    opcode() == "avgpooling" ? cpu::avg_pool(*x, sh) : cpu::max_pool(*x, sh, relu));
      return;
    }
    auto dout = ec.matrix(dout_);
    check_dout(dout->rows(), dout->cols(), sh);
    ec.set_matrix(out_.name, opcode() == "avgpooling_backward"
                                 ? cpu::avg_pool_backward(*dout, sh)
                                 : cpu::max_pool_backward(*x, *dout, sh, relu));
  }

 private:
  // The 12 shape scalars, checked.
  cpu::PoolShape pool_shape(ExecutionContext& ec) const {
    int64_t v[12];
    for (int i = 0; i < 12; ++i) v[i] = ec.scalar(scalars_[i]).to_int();
    cpu::PoolShape sh;
    sh.stride_h = v[0];
    sh.stride_w = v[1];
    sh.pad_h = v[2];
    sh.pad_w = v[3];
    sh.n = v[4];
    sh.c = v[5];
    sh.h = v[6];
    sh.w = v[7];
    sh.r = v[10];
    sh.s = v[11];
    DMLRT_REQUIRE(sh.stride_h > 0 && sh.stride_w > 0 && sh.pad_h >= 0 && sh.pad_w >= 0 &&
                      sh.r > 0 && sh.s > 0 && sh.n >= 0 && sh.c >= 0 && sh.h >= 0 && sh.w >= 0,
                  ShapeError, opcode() << ": invalid pooling parameters " << params(sh));
    // SystemDS reads these as Java ints; beyond that, h + 2*pad could overflow.
    DMLRT_REQUIRE(std::all_of(v, v + 12, [](int64_t x) { return x <= INT32_MAX; }), ShapeError,
                  opcode() << ": pooling parameters must be below 2^31 " << params(sh));
    DMLRT_REQUIRE(sh.p() > 0 && sh.q() > 0, ShapeError,
                  opcode() << ": pool " << sh.r << "x" << sh.s << " does not fit image " << sh.h
                           << "x" << sh.w << " " << params(sh) << " (P=" << sh.p()
                           << ", Q=" << sh.q() << ")");
    // Each parameter fits 31 bits, their products need not: the shape checks multiply them.
    DMLRT_REQUIRE(dnn_product_fits({sh.c, sh.h, sh.w}) && dnn_product_fits({sh.c, sh.p(), sh.q()}),
                  ShapeError,
                  opcode() << ": C*H*W or C*P*Q exceeds 2^63-1 " << params(sh) << " (P=" << sh.p()
                           << ", Q=" << sh.q() << ")");
    return sh;
  }

  void check_x(int64_t rows, int64_t cols, const cpu::PoolShape& sh) const {
    DMLRT_REQUIRE(rows == sh.n && cols == sh.c * sh.h * sh.w, ShapeError,
                  opcode() << ": input is " << rows << "x" << cols << ", expected N x C*H*W = "
                           << sh.n << "x" << sh.c * sh.h * sh.w << " " << params(sh));
  }

  void check_dout(int64_t rows, int64_t cols, const cpu::PoolShape& sh) const {
    const int64_t cpq = sh.c * sh.p() * sh.q();
    DMLRT_REQUIRE(rows == sh.n && cols == cpq, ShapeError,
                  opcode() << ": dout is " << rows << "x" << cols
                           << ", expected N x C*P*Q = " << sh.n << "x" << cpq << " " << params(sh));
  }

  // Inputs and output at their dense device sizes (-1 when a shape is unknown).
  int64_t operand_bytes(ExecutionContext& ec, const cpu::PoolShape& sh) const {
    const int64_t chw = sh.c * sh.h * sh.w, cpq = sh.c * sh.p() * sh.q();
    const mem::GpuSession* gpu = ec.options().gpu.get();
    if (!backward_) return sum_bytes({meta_bytes(ec, x_), dense_device_bytes(gpu, sh.n, cpq)});
    return sum_bytes(
        {meta_bytes(ec, x_), meta_bytes(ec, dout_), dense_device_bytes(gpu, sh.n, chw)});
  }

#ifdef DMLRT_WITH_CUDA
  // Own kernels (Note [GPU pooling kernels]) over batch chunks (Note [DNN batch splitting]): the
  // intermediates per image are the densified rows of CSR inputs (RowFetcher) and, for max
  // pooling backward with overlapping windows, the int32 choice of every window. Dense inputs are
  // read in place; the dense output is allocated whole first, so the budget counts it as live.
  // avgpooling_backward never reads X (only its shape is checked).
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu, const cpu::PoolShape& sh) {
    const bool relu = opcode().rfind("relu_", 0) == 0;
    const bool avg = opcode().rfind("avgpooling", 0) == 0;
    const int64_t chw = sh.c * sh.h * sh.w, cpq = sh.c * sh.p() * sh.q();
    const int64_t es = static_cast<int64_t>(mem::dtype_size(gpu.dtype()));
    const std::string what = "gpu_" + opcode();

    const bool reads_x = !(backward_ && avg);
    DeviceRead x, dout;
    if (!reads_x) {
      std::shared_ptr<MatrixObject> mo = ec.matrix_object(x_.name);
      if (mo->meta().rows < 0 || mo->meta().cols < 0) ec.matrix(x_);  // reads the file
      check_x(mo->meta().rows, mo->meta().cols, sh);
    } else {
      x = gpu_read(ec, gpu, x_);
      check_x(x->rows(), x->cols(), sh);
    }
    if (backward_) {
      dout = gpu_read(ec, gpu, dout_);
      check_dout(dout->rows(), dout->cols(), sh);
    }

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

    with_dtype(gpu.dtype(), [&](auto tag) {
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
#endif

  static std::string params(const cpu::PoolShape& sh) {
    return "(N=" + std::to_string(sh.n) + " C=" + std::to_string(sh.c) +
           " H=" + std::to_string(sh.h) + " W=" + std::to_string(sh.w) +
           " R=" + std::to_string(sh.r) + " S=" + std::to_string(sh.s) +
           " stride=" + std::to_string(sh.stride_h) + "," + std::to_string(sh.stride_w) +
           " pad=" + std::to_string(sh.pad_h) + "," + std::to_string(sh.pad_w) + ")";
  }

  bool backward_ = false;
  Operand x_, dout_, out_;
  Operand scalars_[12];
};

// relu_backward X°dout°out, bias_add / bias_multiply X°bias°out (each [°k][°mem]). On the GPU
// CSR operands are densified (cell-wise kernels); the output is dense.
class BinaryDnnInstruction final : public Instruction {
 public:
  explicit BinaryDnnInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(3, 5);
    a_ = operand(0);
    b_ = operand(1);
    out_ = operand(2);
    DMLRT_REQUIRE(a_.is_matrix() && b_.is_matrix() && out_.is_matrix(), ParseError,
                  where() << ": " << opcode() << " needs matrix inputs and output");
  }

  bool has_gpu_impl() const override { return true; }

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu)
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec))) return execute_gpu(ec, *gpu);
#endif
    auto a = ec.matrix(a_);
    auto b = ec.matrix(b_);
    check(a->rows(), a->cols(), b->rows(), b->cols());
    if (opcode() == "relu_backward")
      ec.set_matrix(out_.name, cpu::relu_backward(*a, *b));
    else
      ec.set_matrix(out_.name,
                    opcode() == "bias_add" ? cpu::bias_add(*a, *b) : cpu::bias_multiply(*a, *b));
  }

 private:
  void check(int64_t ar, int64_t ac, int64_t br, int64_t bc) const {
    if (opcode() == "relu_backward") {
      DMLRT_REQUIRE(ar == br && ac == bc, ShapeError,
                    opcode() << ": X and dout differ in shape: " << ar << "x" << ac << " vs " << br
                             << "x" << bc);
      return;
    }
    DMLRT_REQUIRE(bc == 1 && br > 0 && ac % br == 0, ShapeError,
                  opcode() << ": bias must be K x 1 with K dividing the columns of X: X is " << ar
                           << "x" << ac << ", bias is " << br << "x" << bc);
  }

  int64_t operand_bytes(ExecutionContext& ec) const {
    const int64_t a = meta_bytes(ec, a_);
    return sum_bytes({a, meta_bytes(ec, b_), a});
  }

#ifdef DMLRT_WITH_CUDA
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    DeviceRead a = gpu_read(ec, gpu, a_);
    DeviceRead b = gpu_read(ec, gpu, b_);
    check(a->rows(), a->cols(), b->rows(), b->cols());
    const mem::DeviceMatrix& ad = a.dense(gpu);  // (n, k*pq) or the shape of dout
    const mem::DeviceMatrix& bd = b.dense(gpu);  // dout, or the bias (k, 1)
    mem::DeviceMatrix out =
        mem::DeviceMatrix::dense(gpu.memory(), ad.rows(), ad.cols(), gpu.dtype(), gpu.stream(),
                                 "gpu_" + opcode() + " output");
    with_dtype(gpu.dtype(), [&](auto tag) {
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
#endif

  Operand a_, b_, out_;
};

// channel_sums X°C°HW°out[°k][°mem]
class ChannelSumsInstruction final : public Instruction {
 public:
  explicit ChannelSumsInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(4, 6);
    x_ = operand(0);
    c_ = operand(1);
    hw_ = operand(2);
    out_ = operand(3);
    DMLRT_REQUIRE(x_.is_matrix() && out_.is_matrix(), ParseError,
                  where() << ": " << opcode() << " needs a matrix input and output");
  }

  bool has_gpu_impl() const override { return true; }

  void execute(ExecutionContext& ec) override {
    const int64_t c = ec.scalar(c_).to_int(), hw = ec.scalar(hw_).to_int();
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu)
      if (mem::GpuSession* gpu = ec.gpu_for(
              *this,
              sum_bytes({meta_bytes(ec, x_),
                         dense_device_bytes(ec.options().gpu.get(), std::max<int64_t>(c, 0), 1)})))
        return execute_gpu(ec, *gpu, c, hw);
#endif
    auto x = ec.matrix(x_);
    check(x->rows(), x->cols(), c, hw);
    ec.set_matrix(out_.name, cpu::channel_sums(*x, c, hw));
  }

 private:
  void check(int64_t rows, int64_t cols, int64_t c, int64_t hw) const {
    DMLRT_REQUIRE(c >= 0 && hw >= 0 && cols == c * hw, ShapeError,
                  opcode() << ": X is " << rows << "x" << cols << ", expected C*HW = " << c << "*"
                           << hw << " columns");
  }

#ifdef DMLRT_WITH_CUDA
  // A CSR X is densified (a two-pass deterministic reduction over the dense cells).
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu, int64_t c, int64_t hw) {
    DeviceRead x = gpu_read(ec, gpu, x_);
    check(x->rows(), x->cols(), c, hw);
    const std::string what = "gpu_" + opcode();
    mem::DeviceMatrix out =
        mem::DeviceMatrix::dense(gpu.memory(), c, 1, gpu.dtype(), gpu.stream(), what + " output");
    const mem::DeviceMatrix& xd = x.dense(gpu);  // (n, c*hw) row-major
    mem::DeviceAllocation ws = gpu.scratch(
        kernels::cuda::channel_sums_workspace_bytes(xd.rows(), c, hw), what + " partial sums");
    with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_channel_sums(xd.values_as<T>(), out.values_as<T>(), xd.rows(), c, hw,
                                         ws.data(), gpu.stream());
    });
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }
#endif

  Operand x_, c_, hw_, out_;
};

// update_nesterov_x X°v°v_prev°mu°out[°k][°mem]: X - mu*v_prev + (1+mu)*v. mu stays a double on
// both backends (SystemDS's GPU instruction casts it to int, a bug; see systemds-gpu.md §7.1 and
// docs/deviations.md).
class NesterovInstruction final : public Instruction {
 public:
  explicit NesterovInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(5, 7);
    for (size_t i = 0; i < 3; ++i) in_[i] = operand(i);
    mu_ = operand(3);
    out_ = operand(4);
    DMLRT_REQUIRE(
        in_[0].is_matrix() && in_[1].is_matrix() && in_[2].is_matrix() && out_.is_matrix(),
        ParseError, where() << ": " << opcode() << " needs matrix inputs and output");
  }

  bool has_gpu_impl() const override { return true; }

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu) {
      const int64_t x = meta_bytes(ec, in_[0]);
      if (mem::GpuSession* gpu =
              ec.gpu_for(*this, sum_bytes({x, meta_bytes(ec, in_[1]), meta_bytes(ec, in_[2]), x})))
        return execute_gpu(ec, *gpu);
    }
#endif
    auto x = ec.matrix(in_[0]);
    auto v = ec.matrix(in_[1]);
    auto vp = ec.matrix(in_[2]);
    const double mu = ec.scalar(mu_).to_double();
    check(x->rows(), x->cols(), v->rows(), v->cols(), vp->rows(), vp->cols());
    ec.set_matrix(out_.name, cpu::update_nesterov_x(*x, *v, *vp, mu));
  }

 private:
  void check(int64_t xr, int64_t xc, int64_t vr, int64_t vc, int64_t pr, int64_t pc) const {
    DMLRT_REQUIRE(xr == vr && xc == vc && xr == pr && xc == pc, ShapeError,
                  opcode() << ": X, v and v_prev differ in shape: " << xr << "x" << xc << ", " << vr
                           << "x" << vc << ", " << pr << "x" << pc);
  }

#ifdef DMLRT_WITH_CUDA
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    DeviceRead x = gpu_read(ec, gpu, in_[0]);
    DeviceRead v = gpu_read(ec, gpu, in_[1]);
    DeviceRead vp = gpu_read(ec, gpu, in_[2]);
    const double mu = ec.scalar(mu_).to_double();
    check(x->rows(), x->cols(), v->rows(), v->cols(), vp->rows(), vp->cols());
    const mem::DeviceMatrix& xd = x.dense(gpu);
    const mem::DeviceMatrix& vd = v.dense(gpu);
    const mem::DeviceMatrix& pd = vp.dense(gpu);
    mem::DeviceMatrix out =
        mem::DeviceMatrix::dense(gpu.memory(), xd.rows(), xd.cols(), gpu.dtype(), gpu.stream(),
                                 "gpu_" + opcode() + " output");
    with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_update_nesterov_x(xd.values_as<T>(), vd.values_as<T>(),
                                              pd.values_as<T>(), mu, out.values_as<T>(), xd.size(),
                                              gpu.stream());
    });
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }
#endif

  Operand in_[3], mu_, out_;
};

}  // namespace

InstructionPtr make_dnn_pool(InstructionText text) {
  const std::string& op = text.opcode;
  if (op == "relu_backward" || op == "bias_add" || op == "bias_multiply")
    return std::make_unique<BinaryDnnInstruction>(std::move(text));
  if (op == "channel_sums") return std::make_unique<ChannelSumsInstruction>(std::move(text));
  if (op == "update_nesterov_x") return std::make_unique<NesterovInstruction>(std::move(text));
  return std::make_unique<PoolInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
