// The pool sub-family of the DNN ops on the CPU (kernels/cpu/dnn_pool.h): max/avg pooling and
// their backward passes (also relu_maxpooling), relu_backward, bias_add, bias_multiply,
// channel_sums and update_nesterov_x. Layouts: reference/systemds-format.md §3 (CP) and
// systemds-gpu.md §2.6 (GPU: no k; pooling backward may carry the forward output, ignored here).
#include <string>

#include "gpu_context/error.h"
#include "instructions/dnn_families.h"
#include "kernels/cpu/dnn_pool.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

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

  void execute(ExecutionContext& ec) override {
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
    DMLRT_REQUIRE(sh.p() > 0 && sh.q() > 0, ShapeError,
                  opcode() << ": pool " << sh.r << "x" << sh.s << " does not fit image " << sh.h
                           << "x" << sh.w << " " << params(sh) << " (P=" << sh.p()
                           << ", Q=" << sh.q() << ")");
    auto x = ec.matrix(x_);
    DMLRT_REQUIRE(x->rows() == sh.n && x->cols() == sh.c * sh.h * sh.w, ShapeError,
                  opcode() << ": input is " << x->rows() << "x" << x->cols() << ", expected N x C*H*W = "
                           << sh.n << "x" << sh.c * sh.h * sh.w << " " << params(sh));
    const bool relu = opcode().rfind("relu_", 0) == 0;
    if (!backward_) {
      ec.set_matrix(out_.name, opcode() == "avgpooling" ? cpu::avg_pool(*x, sh)
                                                        : cpu::max_pool(*x, sh, relu));
      return;
    }
    auto dout = ec.matrix(dout_);
    const int64_t cpq = sh.c * sh.p() * sh.q();
    DMLRT_REQUIRE(dout->rows() == sh.n && dout->cols() == cpq, ShapeError,
                  opcode() << ": dout is " << dout->rows() << "x" << dout->cols()
                           << ", expected N x C*P*Q = " << sh.n << "x" << cpq << " " << params(sh));
    ec.set_matrix(out_.name, opcode() == "avgpooling_backward"
                                 ? cpu::avg_pool_backward(*dout, sh)
                                 : cpu::max_pool_backward(*x, *dout, sh, relu));
  }

 private:
  static std::string params(const cpu::PoolShape& sh) {
    return "(N=" + std::to_string(sh.n) + " C=" + std::to_string(sh.c) + " H=" +
           std::to_string(sh.h) + " W=" + std::to_string(sh.w) + " R=" + std::to_string(sh.r) +
           " S=" + std::to_string(sh.s) + " stride=" + std::to_string(sh.stride_h) + "," +
           std::to_string(sh.stride_w) + " pad=" + std::to_string(sh.pad_h) + "," +
           std::to_string(sh.pad_w) + ")";
  }

  bool backward_ = false;
  Operand x_, dout_, out_;
  Operand scalars_[12];
};

// relu_backward X°dout°out, bias_add / bias_multiply X°bias°out (each [°k][°mem]).
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

  void execute(ExecutionContext& ec) override {
    auto a = ec.matrix(a_);
    auto b = ec.matrix(b_);
    if (opcode() == "relu_backward") {
      DMLRT_REQUIRE(a->rows() == b->rows() && a->cols() == b->cols(), ShapeError,
                    opcode() << ": X and dout differ in shape: " << a->rows() << "x" << a->cols()
                             << " vs " << b->rows() << "x" << b->cols());
      ec.set_matrix(out_.name, cpu::relu_backward(*a, *b));
      return;
    }
    DMLRT_REQUIRE(b->cols() == 1 && b->rows() > 0 && a->cols() % b->rows() == 0, ShapeError,
                  opcode() << ": bias must be K x 1 with K dividing the columns of X: X is "
                           << a->rows() << "x" << a->cols() << ", bias is " << b->rows() << "x"
                           << b->cols());
    ec.set_matrix(out_.name, opcode() == "bias_add" ? cpu::bias_add(*a, *b)
                                                    : cpu::bias_multiply(*a, *b));
  }

 private:
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

  void execute(ExecutionContext& ec) override {
    const int64_t c = ec.scalar(c_).to_int(), hw = ec.scalar(hw_).to_int();
    auto x = ec.matrix(x_);
    DMLRT_REQUIRE(c >= 0 && hw >= 0 && x->cols() == c * hw, ShapeError,
                  opcode() << ": X is " << x->rows() << "x" << x->cols() << ", expected C*HW = "
                           << c << "*" << hw << " columns");
    ec.set_matrix(out_.name, cpu::channel_sums(*x, c, hw));
  }

 private:
  Operand x_, c_, hw_, out_;
};

// update_nesterov_x X°v°v_prev°mu°out[°k][°mem]: X - mu*v_prev + (1+mu)*v. mu stays a double
// (SystemDS's GPU instruction casts it to int, a bug; see systemds-gpu.md §7.1).
class NesterovInstruction final : public Instruction {
 public:
  explicit NesterovInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(5, 7);
    for (size_t i = 0; i < 3; ++i) in_[i] = operand(i);
    mu_ = operand(3);
    out_ = operand(4);
    DMLRT_REQUIRE(in_[0].is_matrix() && in_[1].is_matrix() && in_[2].is_matrix() &&
                      out_.is_matrix(),
                  ParseError, where() << ": " << opcode() << " needs matrix inputs and output");
  }

  void execute(ExecutionContext& ec) override {
    auto x = ec.matrix(in_[0]);
    auto v = ec.matrix(in_[1]);
    auto vp = ec.matrix(in_[2]);
    const double mu = ec.scalar(mu_).to_double();
    DMLRT_REQUIRE(x->rows() == v->rows() && x->cols() == v->cols() && x->rows() == vp->rows() &&
                      x->cols() == vp->cols(),
                  ShapeError,
                  opcode() << ": X, v and v_prev differ in shape: " << x->rows() << "x" << x->cols()
                           << ", " << v->rows() << "x" << v->cols() << ", " << vp->rows() << "x"
                           << vp->cols());
    ec.set_matrix(out_.name, cpu::update_nesterov_x(*x, *v, *vp, mu));
  }

 private:
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
