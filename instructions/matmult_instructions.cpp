// Matrix multiply instructions: ba+* (`A°B°out[°k]` on CP, `A°B°out°k°leftT°rightT` on GPU and
// compressed lines), tsmm (`X°out°LEFT|RIGHT[°k]`) and mmchain (`X°v[°w]°out°type[°k]`). They
// check shapes and call kernels/cpu/matmult; thread counts are ignored.
#include <cctype>
#include <string>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/matmult.h"

#ifdef DMLRT_WITH_CUDA
#include "instructions/gpu_matmult.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/triangle.h"
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {
namespace {

using kernels::MatrixBlock;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// ba+*: C = op(A) %*% op(B).
class MatMultInstruction final : public Instruction {
 public:
  explicit MatMultInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(3, 6);
    DMLRT_REQUIRE(num_fields() != 5, ParseError,
                  where() << ": ba+* expects A°B°out[°k] or A°B°out°k°leftT°rightT, got 5 fields");
    a_ = operand(0);
    b_ = operand(1);
    out_ = operand(2);
    DMLRT_REQUIRE(a_.is_matrix() && b_.is_matrix(), ParseError,
                  where() << ": ba+* inputs must be matrices");
    if (num_fields() == 6) {
      trans_a_ = parse_flag(4);
      trans_b_ = parse_flag(5);
    }
  }

  bool has_gpu_impl() const override { return true; }

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu) {
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec))) return execute_gpu(ec, *gpu);
    }
#endif
    auto a = ec.matrix(a_);
    auto b = ec.matrix(b_);
    const int64_t m = trans_a_ ? a->cols() : a->rows();
    const int64_t k = trans_a_ ? a->rows() : a->cols();
    const int64_t k2 = trans_b_ ? b->cols() : b->rows();
    const int64_t n = trans_b_ ? b->rows() : b->cols();
    DMLRT_REQUIRE(k == k2, ShapeError,
                  "ba+*: inner dimensions differ: "
                      << (trans_a_ ? "t(" + shape_of(*a) + ")" : shape_of(*a)) << " %*% "
                      << (trans_b_ ? "t(" + shape_of(*b) + ")" : shape_of(*b)));
    MatrixBlock c = kernels::cpu::matmult(*a, *b, trans_a_, trans_b_);
    if (out_.is_scalar()) {
      DMLRT_REQUIRE(m == 1 && n == 1, ShapeError,
                    "ba+*: scalar output '" << out_.name << "' needs a 1x1 product, got "
                                            << kernels::dims_string(m, n));
      ec.set_scalar(out_, ScalarValue::fp64(c.get(0, 0)));
    } else {
      ec.set_matrix(out_.name, std::move(c));
    }
  }

 private:
  // Device bytes of A, B and C from the metadata (-1 when a shape is unknown).
  int64_t operand_bytes(ExecutionContext& ec) const {
    const MatrixMeta& a = ec.matrix_object(a_.name)->meta();
    const MatrixMeta& b = ec.matrix_object(b_.name)->meta();
    const mem::GpuSession* gpu = ec.options().gpu.get();
    const int64_t ab = dense_device_bytes(gpu, a.rows, a.cols);
    const int64_t bb = dense_device_bytes(gpu, b.rows, b.cols);
    const int64_t cb = dense_device_bytes(gpu, trans_a_ ? a.cols : a.rows, trans_b_ ? b.rows : b.cols);
    return ab < 0 || bb < 0 || cb < 0 ? -1 : ab + bb + cb;
  }

#ifdef DMLRT_WITH_CUDA
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    DeviceRead a = gpu_read(ec, gpu, a_);
    DeviceRead b = gpu_read(ec, gpu, b_);
    const int64_t m = trans_a_ ? a->cols() : a->rows();
    const int64_t k = trans_a_ ? a->rows() : a->cols();
    const int64_t k2 = trans_b_ ? b->cols() : b->rows();
    const int64_t n = trans_b_ ? b->rows() : b->cols();
    auto shape = [](const mem::DeviceMatrix& x, bool t) {
      const std::string s = kernels::dims_string(x.rows(), x.cols());
      return t ? "t(" + s + ")" : s;
    };
    DMLRT_REQUIRE(k == k2, ShapeError,
                  "ba+*: inner dimensions differ: " << shape(*a, trans_a_) << " %*% "
                                                     << shape(*b, trans_b_));
    if (out_.is_scalar())
      DMLRT_REQUIRE(m == 1 && n == 1, ShapeError,
                    "ba+*: scalar output '" << out_.name << "' needs a 1x1 product, got "
                                            << kernels::dims_string(m, n));
    mem::DeviceMatrix c = gpu_matmult(gpu, *a, *b, trans_a_, trans_b_);
    if (out_.is_scalar()) {
      // A scalar result is needed on the host (control flow may read it): one synchronous read.
      const double v = c.is_sparse() ? 0.0 : gpu.read_element(c, 0, 0);
      ec.set_scalar(out_, ScalarValue::fp64(v));
      return;
    }
    set_gpu_output(ec, gpu, out_.name, std::move(c));
  }
#endif

  bool parse_flag(size_t i) const {
    const std::string f = lower(field(i));
    DMLRT_REQUIRE(
        f == "true" || f == "false", ParseError,
        where() << ": ba+* transpose flag must be true or false, got '" << field(i) << "'");
    return f == "true";
  }

  Operand a_, b_, out_;
  bool trans_a_ = false, trans_b_ = false;
};

// tsmm: LEFT = t(X) %*% X, RIGHT = X %*% t(X) (SystemDS MMTSJType). On the GPU a dense X goes
// through cuBLAS syrk (one triangle) plus a triangle copy; a CSR X through the core's sparse
// product (gpu_matmult: SpGEMM on an explicit transpose), whose result stays CSR as on the CPU.
class TsmmInstruction final : public Instruction {
 public:
  explicit TsmmInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(3, 4);
    x_ = operand(0);
    out_ = operand(1);
    DMLRT_REQUIRE(x_.is_matrix() && out_.is_matrix(), ParseError,
                  where() << ": tsmm input and output must be matrices");
    const std::string type = field(2);
    DMLRT_REQUIRE(type == "LEFT" || type == "RIGHT", ParseError,
                  where() << ": tsmm type must be LEFT or RIGHT, got '" << type << "'");
    left_ = type == "LEFT";
  }

  bool has_gpu_impl() const override { return true; }

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu) {
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec))) return execute_gpu(ec, *gpu);
    }
#endif
    auto x = ec.matrix(x_);
    ec.set_matrix(out_.name, kernels::cpu::tsmm(*x, left_));
  }

 private:
  // Device bytes of X and the (n, n) output from the metadata (-1 when a shape is unknown).
  int64_t operand_bytes(ExecutionContext& ec) const {
    const MatrixMeta& x = ec.matrix_object(x_.name)->meta();
    const mem::GpuSession* gpu = ec.options().gpu.get();
    const int64_t n = left_ ? x.cols : x.rows;
    const int64_t xb = dense_device_bytes(gpu, x.rows, x.cols);
    const int64_t cb = dense_device_bytes(gpu, n, n);
    return xb < 0 || cb < 0 ? -1 : xb + cb;
  }

#ifdef DMLRT_WITH_CUDA
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    DeviceRead x = gpu_read(ec, gpu, x_);
    const int64_t n = left_ ? x->cols() : x->rows();
    const int64_t kdim = left_ ? x->rows() : x->cols();
    // SpGEMM needs int32 CSR indices (Note [CSR index width]); a wider CSR takes the dense path.
    if (x->is_sparse() && x->index_width() == mem::IndexWidth::k32) {
      set_gpu_output(ec, gpu, out_.name, gpu_matmult(gpu, *x, *x, left_, !left_));
      return;
    }
    // (n, n) row-major, symmetric; zeros when the inner dimension is 0.
    mem::DeviceMatrix c = mem::DeviceMatrix::dense(gpu.memory(), n, n, gpu.dtype(), gpu.stream(),
                                                   "gpu_tsmm output", kdim == 0);
    if (n > 0 && kdim > 0) {
      const mem::DeviceMatrix& xd = x.dense(gpu);  // (rows, cols) row-major
      void* h = gpu.context().cublas();
      if (gpu.dtype() == mem::DType::kFloat64) {
        kernels::cuda::syrk_upper_row_major(h, left_, xd.rows(), xd.cols(), xd.values_as<double>(),
                                            c.values_as<double>());
        kernels::cuda::launch_copy_upper_to_lower(c.values_as<double>(), n, gpu.stream());
      } else {
        kernels::cuda::syrk_upper_row_major(h, left_, xd.rows(), xd.cols(), xd.values_as<float>(),
                                            c.values_as<float>());
        kernels::cuda::launch_copy_upper_to_lower(c.values_as<float>(), n, gpu.stream());
      }
    }
    set_gpu_output(ec, gpu, out_.name, std::move(c));
  }
#endif

  Operand x_, out_;
  bool left_ = true;
};

bool chain_type_of(const std::string& s, kernels::cpu::ChainType* t) {
  if (s == "XtXv")
    *t = kernels::cpu::ChainType::kXtXv;
  else if (s == "XtwXv")
    *t = kernels::cpu::ChainType::kXtwXv;
  else if (s == "XtXvy")
    *t = kernels::cpu::ChainType::kXtXvy;
  else
    return false;
  return true;
}

// mmchain: t(X) %*% (X %*% v), t(X) %*% (w * (X %*% v)), t(X) %*% ((X %*% v) - y).
class MMChainInstruction final : public Instruction {
 public:
  explicit MMChainInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(4, 6);
    x_ = operand(0);
    v_ = operand(1);
    // The type sits after the output: field 3 without w, field 4 with it.
    if (chain_type_of(field(3), &type_)) {
      DMLRT_REQUIRE(num_fields() <= 5, ParseError,
                    where() << ": mmchain expects X°v°out°type[°k] or X°v°w°out°type[°k]");
      out_ = operand(2);
    } else {
      DMLRT_REQUIRE(num_fields() >= 5 && chain_type_of(field(4), &type_), ParseError,
                    where() << ": mmchain type must be XtXv, XtwXv or XtXvy");
      w_ = operand(2);
      has_w_ = true;
      out_ = operand(3);
    }
    const bool needs_w = type_ != kernels::cpu::ChainType::kXtXv;
    DMLRT_REQUIRE(needs_w == has_w_, ParseError,
                  where() << ": mmchain type " << (needs_w ? "XtwXv/XtXvy needs" : "XtXv takes no")
                          << " third input");
    DMLRT_REQUIRE(
        x_.is_matrix() && v_.is_matrix() && out_.is_matrix() && (!has_w_ || w_.is_matrix()),
        ParseError, where() << ": mmchain operands must be matrices");
  }

  void execute(ExecutionContext& ec) override {
    auto x = ec.matrix(x_);
    auto v = ec.matrix(v_);
    DMLRT_REQUIRE(v->rows() == x->cols() && v->cols() == 1, ShapeError,
                  "mmchain: v must be " << kernels::dims_string(x->cols(), 1) << " for X "
                                        << shape_of(*x) << ", got " << shape_of(*v));
    std::shared_ptr<const MatrixBlock> w;
    if (has_w_) {
      w = ec.matrix(w_);
      DMLRT_REQUIRE(w->rows() == x->rows() && w->cols() == 1, ShapeError,
                    "mmchain: " << (type_ == kernels::cpu::ChainType::kXtwXv ? "w" : "y")
                                << " must be " << kernels::dims_string(x->rows(), 1) << " for X "
                                << shape_of(*x) << ", got " << shape_of(*w));
    }
    ec.set_matrix(out_.name, kernels::cpu::mmchain(*x, *v, w.get(), type_));
  }

 private:
  Operand x_, v_, w_, out_;
  bool has_w_ = false;
  kernels::cpu::ChainType type_ = kernels::cpu::ChainType::kXtXv;
};

}  // namespace

InstructionPtr make_matmult(InstructionText text) {
  if (text.opcode == "ba+*") return std::make_unique<MatMultInstruction>(std::move(text));
  if (text.opcode == "tsmm") return std::make_unique<TsmmInstruction>(std::move(text));
  if (text.opcode == "mmchain") return std::make_unique<MMChainInstruction>(std::move(text));
  DMLRT_FAIL(NotSupported, "opcode '" << text.opcode << "' is not a matrix multiply");
}

}  // namespace dmlrt::inst
