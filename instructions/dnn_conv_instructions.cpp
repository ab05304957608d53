// The conv sub-family of the DNN ops: conv2d (X°W°12°out), conv2d_bias_add (X°bias°W°12°out: bias
// BEFORE the filter), conv2d_backward_filter (X°dout°12°out) and conv2d_backward_data
// (W°dout°12°out), each with the optional trailing k and memory budget (ignored). The 12 shape
// scalars are stride_h, stride_w, pad_h, pad_w, N, C, H, W, K, C, R, S
// (reference/systemds-format.md §3). CPU only for now; kernels in kernels/cpu/dnn_conv.
#include <sstream>

#include "gpu_context/error.h"
#include "instructions/dnn_families.h"
#include "kernels/cpu/dnn_conv.h"

namespace dmlrt::inst {
namespace {

enum class ConvOp { kForward, kForwardBias, kBackwardFilter, kBackwardData };

class Conv2d final : public Instruction {
 public:
  Conv2d(InstructionText t, ConvOp op) : Instruction(std::move(t)), op_(op) {
    const size_t n_in = op_ == ConvOp::kForwardBias ? 3 : 2;
    // inputs, 12 shape scalars, out, then the optional k and memory budget.
    expect_fields(n_in + 13, n_in + 15);
    for (size_t i = 0; i < n_in; ++i) {
      inputs_.push_back(operand(i));
      DMLRT_REQUIRE(inputs_.back().is_matrix(), ParseError,
                    where() << ": " << opcode() << " expects a matrix as operand " << i + 1
                            << ", got " << inputs_.back().to_string());
    }
    for (size_t i = 0; i < 12; ++i) {
      shape_ops_.push_back(operand(n_in + i));
      DMLRT_REQUIRE(shape_ops_.back().is_scalar(), ParseError,
                    where() << ": " << opcode() << " expects a scalar as shape operand " << i + 1
                            << ", got " << shape_ops_.back().to_string());
    }
    out_ = operand(n_in + 12);
    DMLRT_REQUIRE(
        out_.is_matrix(), ParseError,
        where() << ": " << opcode() << " expects a matrix output, got " << out_.to_string());
  }

  void execute(ExecutionContext& ec) override {
    const kernels::cpu::ConvShape sh = shape(ec);
    namespace cpu = kernels::cpu;
    switch (op_) {
      case ConvOp::kForward: {
        auto x = ec.matrix(inputs_[0]);
        auto w = ec.matrix(inputs_[1]);
        check_image("X", *x, sh);
        check_filter("W", *w, sh);
        ec.set_matrix(out_.name, cpu::conv2d(*x, *w, sh));
        return;
      }
      case ConvOp::kForwardBias: {
        auto x = ec.matrix(inputs_[0]);
        auto b = ec.matrix(inputs_[1]);
        auto w = ec.matrix(inputs_[2]);
        check_image("X", *x, sh);
        check_filter("W", *w, sh);
        check("bias", *b, sh.k, 1, "K x 1", sh);
        ec.set_matrix(out_.name, cpu::conv2d(*x, *w, sh, b.get()));
        return;
      }
      case ConvOp::kBackwardFilter: {
        auto x = ec.matrix(inputs_[0]);
        auto dout = ec.matrix(inputs_[1]);
        check_image("X", *x, sh);
        check_dout(*dout, sh);
        ec.set_matrix(out_.name, cpu::conv2d_backward_filter(*x, *dout, sh));
        return;
      }
      case ConvOp::kBackwardData: {
        auto w = ec.matrix(inputs_[0]);
        auto dout = ec.matrix(inputs_[1]);
        check_filter("W", *w, sh);
        check_dout(*dout, sh);
        ec.set_matrix(out_.name, cpu::conv2d_backward_data(*w, *dout, sh));
        return;
      }
    }
  }

 private:
  // Reads the 12 shape scalars and checks them (no input data needed).
  kernels::cpu::ConvShape shape(ExecutionContext& ec) const {
    int64_t v[12];
    for (size_t i = 0; i < 12; ++i) v[i] = ec.scalar(shape_ops_[i]).to_int();
    kernels::cpu::ConvShape sh;
    sh.stride_h = v[0], sh.stride_w = v[1], sh.pad_h = v[2], sh.pad_w = v[3];
    sh.n = v[4], sh.c = v[5], sh.h = v[6], sh.w = v[7];
    sh.k = v[8], sh.r = v[10], sh.s = v[11];
    const std::string params = params_string(sh);
    DMLRT_REQUIRE(v[9] == v[5], ShapeError,
                  opcode() << ": the image channel count C=" << v[5]
                           << " differs from the filter channel count C=" << v[9]);
    DMLRT_REQUIRE(
        sh.stride_h >= 1 && sh.stride_w >= 1, ShapeError,
        opcode() << ": strides must be >= 1, got [" << sh.stride_h << ", " << sh.stride_w << "]");
    DMLRT_REQUIRE(
        sh.pad_h >= 0 && sh.pad_w >= 0, ShapeError,
        opcode() << ": padding must be >= 0, got [" << sh.pad_h << ", " << sh.pad_w << "]");
    DMLRT_REQUIRE(
        sh.n >= 0 && sh.c >= 0 && sh.h >= 0 && sh.w >= 0 && sh.k >= 0 && sh.r >= 0 && sh.s >= 0,
        ShapeError, opcode() << ": negative shape parameter (" << params << ")");
    // Checked before dividing: Java-style truncation would turn a negative numerator into P=1.
    DMLRT_REQUIRE(sh.h + 2 * sh.pad_h >= sh.r && sh.w + 2 * sh.pad_w >= sh.s, ShapeError,
                  opcode() << ": filter " << sh.r << "x" << sh.s << " is larger than the padded "
                           << sh.h + 2 * sh.pad_h << "x" << sh.w + 2 * sh.pad_w
                           << " image, so P or Q would be < 1 (" << params << ")");
    sh.derive_output_size();
    DMLRT_REQUIRE(sh.p >= 1 && sh.q >= 1, ShapeError,
                  opcode() << ": output size P x Q = " << sh.p << "x" << sh.q
                           << " must be at least 1x1 (" << params << ")");
    return sh;
  }

  static std::string params_string(const kernels::cpu::ConvShape& sh) {
    std::ostringstream os;
    os << "N=" << sh.n << " C=" << sh.c << " H=" << sh.h << " W=" << sh.w << " K=" << sh.k
       << " R=" << sh.r << " S=" << sh.s << " stride=[" << sh.stride_h << ", " << sh.stride_w
       << "] pad=[" << sh.pad_h << ", " << sh.pad_w << "]";
    return os.str();
  }

  void check(const char* name, const kernels::MatrixBlock& b, int64_t rows, int64_t cols,
             const char* expected, const kernels::cpu::ConvShape& sh) const {
    DMLRT_REQUIRE(b.rows() == rows && b.cols() == cols, ShapeError,
                  opcode() << ": " << name << " is " << kernels::dims_string(b.rows(), b.cols())
                           << ", expected " << expected << " = " << kernels::dims_string(rows, cols)
                           << " (" << params_string(sh) << ")");
  }
  void check_image(const char* name, const kernels::MatrixBlock& b,
                   const kernels::cpu::ConvShape& sh) const {
    check(name, b, sh.n, sh.c * sh.h * sh.w, "N x CHW", sh);
  }
  void check_filter(const char* name, const kernels::MatrixBlock& b,
                    const kernels::cpu::ConvShape& sh) const {
    check(name, b, sh.k, sh.c * sh.r * sh.s, "K x CRS", sh);
  }
  void check_dout(const kernels::MatrixBlock& b, const kernels::cpu::ConvShape& sh) const {
    check("dout", b, sh.n, sh.k * sh.p * sh.q, "N x KPQ", sh);
  }

  ConvOp op_;
  std::vector<Operand> inputs_;     // X, W / X, bias, W / X, dout / W, dout
  std::vector<Operand> shape_ops_;  // the 12 shape scalars
  Operand out_;
};

}  // namespace

InstructionPtr make_dnn_conv(InstructionText text) {
  const std::string op = text.opcode;
  if (op == "conv2d") return std::make_unique<Conv2d>(std::move(text), ConvOp::kForward);
  if (op == "conv2d_bias_add")
    return std::make_unique<Conv2d>(std::move(text), ConvOp::kForwardBias);
  if (op == "conv2d_backward_filter")
    return std::make_unique<Conv2d>(std::move(text), ConvOp::kBackwardFilter);
  if (op == "conv2d_backward_data")
    return std::make_unique<Conv2d>(std::move(text), ConvOp::kBackwardData);
  return make_unsupported_dnn(std::move(text));
}

}  // namespace dmlrt::inst
