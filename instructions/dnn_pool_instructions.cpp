// The pool sub-family of the DNN ops: parsing, shape rules and CPU runs (dnn_pool_instructions.h).
#include "instructions/dnn_pool_instructions.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>

#include "gpu_context/error.h"
#include "instructions/dnn_gpu_common.h"
#include "instructions/gpu_placement.h"
#include "kernels/host_memory.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

// Device bytes of the matrix bound to `op` from its metadata (-1 when a dim is unknown).
int64_t meta_bytes(ExecutionContext& ec, const Operand& op) {
  const MatrixMeta& m = ec.matrix_object_ref(op.name)->meta();
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

}  // namespace

// ---- PoolInstruction ----------------------------------------------------------------------------

PoolInstruction::PoolInstruction(InstructionText t) : Instruction(std::move(t)) {
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
  DMLRT_REQUIRE(x_.is_matrix() && out_.is_matrix() && (!backward_ || dout_.is_matrix()), ParseError,
                where() << ": " << opcode() << " needs matrix input and output");
}

void PoolInstruction::run_cpu(ExecutionContext& ec) {
  const cpu::PoolShape sh = pool_shape(ec);
  auto x = ec.matrix(x_);
  const bool relu = opcode().rfind("relu_", 0) == 0;
  if (!backward_) {
    // The plan's padding can make P x Q far larger than the image: the (N, C*P*Q) output is
    // checked before the kernel takes it.
    const double cpq =
        static_cast<double>(sh.c) * static_cast<double>(sh.p()) * static_cast<double>(sh.q());
    std::ostringstream shape;
    shape << "an output of " << sh.n << "x"
          << (cpq < 9.2e18 ? std::to_string(static_cast<int64_t>(cpq)) : std::to_string(cpq))
          << " cells (N x C*P*Q with P=" << sh.p() << ", Q=" << sh.q() << ")";
    kernels::check_host_bytes(opcode(), shape.str(), 8.0 * static_cast<double>(sh.n) * cpq);
    DMLRT_REQUIRE(cpq <= static_cast<double>(INT32_MAX), ShapeError,
                  opcode() << ": " << shape.str() << " exceeds the supported 2^31-1 columns");
    ec.set_matrix(out_.name,
                  opcode() == "avgpooling" ? cpu::avg_pool(*x, sh) : cpu::max_pool(*x, sh, relu));
    return;
  }
  auto dout = ec.matrix(dout_);
  ec.set_matrix(out_.name, opcode() == "avgpooling_backward"
                               ? cpu::avg_pool_backward(*dout, sh)
                               : cpu::max_pool_backward(*x, *dout, sh, relu));
}

cpu::PoolShape PoolInstruction::params_of(ExecutionContext& ec) const {
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
  DMLRT_REQUIRE(sh.stride_h > 0 && sh.stride_w > 0 && sh.pad_h >= 0 && sh.pad_w >= 0 && sh.r > 0 &&
                    sh.s > 0 && sh.n >= 0 && sh.c >= 0 && sh.h >= 0 && sh.w >= 0,
                ShapeError, opcode() << ": invalid pooling parameters " << params(sh));
  // SystemDS reads these as Java ints; beyond that, h + 2*pad could overflow.
  DMLRT_REQUIRE(std::all_of(v, v + 12, [](int64_t x) { return x <= INT32_MAX; }), ShapeError,
                opcode() << ": pooling parameters must be below 2^31 " << params(sh));
  DMLRT_REQUIRE(sh.p() > 0 && sh.q() > 0, ShapeError,
                opcode() << ": pool " << sh.r << "x" << sh.s << " does not fit image " << sh.h
                         << "x" << sh.w << " " << params(sh) << " (P=" << sh.p() << ", Q=" << sh.q()
                         << ")");
  // Each parameter fits 31 bits, their products need not: the shape checks multiply them.
  DMLRT_REQUIRE(dnn_product_fits({sh.c, sh.h, sh.w}) && dnn_product_fits({sh.c, sh.p(), sh.q()}),
                ShapeError,
                opcode() << ": C*H*W or C*P*Q exceeds 2^63-1 " << params(sh) << " (P=" << sh.p()
                         << ", Q=" << sh.q() << ")");
  return sh;
}

cpu::PoolShape PoolInstruction::pool_shape(ExecutionContext& ec) const {
  const cpu::PoolShape sh = params_of(ec);
  // From the metadata (the file is read when it lacks the dims): avgpooling_backward's GPU run
  // checks X without reading it.
  const Dims x = ec.dims(x_);
  DMLRT_REQUIRE(x.rows == sh.n && x.cols == sh.c * sh.h * sh.w, ShapeError,
                opcode() << ": input is " << x.rows << "x" << x.cols << ", expected N x C*H*W = "
                         << sh.n << "x" << sh.c * sh.h * sh.w << " " << params(sh));
  if (!backward_) return sh;
  const Dims dout = ec.dims(dout_);
  const int64_t cpq = sh.c * sh.p() * sh.q();
  DMLRT_REQUIRE(dout.rows == sh.n && dout.cols == cpq, ShapeError,
                opcode() << ": dout is " << dout.rows << "x" << dout.cols
                         << ", expected N x C*P*Q = " << sh.n << "x" << cpq << " " << params(sh));
  return sh;
}

// Inputs and output at their dense device sizes (-1 when a shape is unknown).
int64_t PoolInstruction::device_bytes(ExecutionContext& ec) const {
  const cpu::PoolShape sh = params_of(ec);
  const int64_t chw = sh.c * sh.h * sh.w, cpq = sh.c * sh.p() * sh.q();
  const mem::GpuSession* gpu = ec.options().gpu.get();
  if (!backward_) return sum_bytes({meta_bytes(ec, x_), dense_device_bytes(gpu, sh.n, cpq)});
  return sum_bytes({meta_bytes(ec, x_), meta_bytes(ec, dout_), dense_device_bytes(gpu, sh.n, chw)});
}

std::string PoolInstruction::params(const cpu::PoolShape& sh) {
  return "(N=" + std::to_string(sh.n) + " C=" + std::to_string(sh.c) +
         " H=" + std::to_string(sh.h) + " W=" + std::to_string(sh.w) +
         " R=" + std::to_string(sh.r) + " S=" + std::to_string(sh.s) +
         " stride=" + std::to_string(sh.stride_h) + "," + std::to_string(sh.stride_w) +
         " pad=" + std::to_string(sh.pad_h) + "," + std::to_string(sh.pad_w) + ")";
}

// ---- BinaryDnnInstruction -----------------------------------------------------------------------

BinaryDnnInstruction::BinaryDnnInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(3, 5);
  a_ = operand(0);
  b_ = operand(1);
  out_ = operand(2);
  DMLRT_REQUIRE(a_.is_matrix() && b_.is_matrix() && out_.is_matrix(), ParseError,
                where() << ": " << opcode() << " needs matrix inputs and output");
}

void BinaryDnnInstruction::check(Shapes& shapes) const {
  const Dims a = shapes.dims(a_), b = shapes.dims(b_);
  if (!a.known() || !b.known()) return;
  if (opcode() == "relu_backward") {
    DMLRT_REQUIRE(a.rows == b.rows && a.cols == b.cols, ShapeError,
                  opcode() << ": X and dout differ in shape: " << a.rows << "x" << a.cols << " vs "
                           << b.rows << "x" << b.cols);
    return;
  }
  DMLRT_REQUIRE(b.cols == 1 && b.rows > 0 && a.cols % b.rows == 0, ShapeError,
                opcode() << ": bias must be K x 1 with K dividing the columns of X: X is " << a.rows
                         << "x" << a.cols << ", bias is " << b.rows << "x" << b.cols);
}

void BinaryDnnInstruction::run_cpu(ExecutionContext& ec) {
  auto a = ec.matrix(a_);
  auto b = ec.matrix(b_);
  if (opcode() == "relu_backward")
    ec.set_matrix(out_.name, cpu::relu_backward(*a, *b));
  else
    ec.set_matrix(out_.name,
                  opcode() == "bias_add" ? cpu::bias_add(*a, *b) : cpu::bias_multiply(*a, *b));
}

int64_t BinaryDnnInstruction::device_bytes(ExecutionContext& ec) const {
  const int64_t a = meta_bytes(ec, a_);
  return sum_bytes({a, meta_bytes(ec, b_), a});
}

// ---- ChannelSumsInstruction ---------------------------------------------------------------------

ChannelSumsInstruction::ChannelSumsInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(4, 6);
  x_ = operand(0);
  c_ = operand(1);
  hw_ = operand(2);
  out_ = operand(3);
  DMLRT_REQUIRE(x_.is_matrix() && out_.is_matrix(), ParseError,
                where() << ": " << opcode() << " needs a matrix input and output");
}

ChannelSumsInstruction::Channels ChannelSumsInstruction::channels(ExecutionContext& ec) const {
  const Channels ch{ec.scalar(c_).to_int(), ec.scalar(hw_).to_int()};
  const Dims x = ec.dims(x_);
  DMLRT_REQUIRE(ch.c >= 0 && ch.hw >= 0 && x.cols == ch.c * ch.hw, ShapeError,
                opcode() << ": X is " << x.rows << "x" << x.cols << ", expected C*HW = " << ch.c
                         << "*" << ch.hw << " columns");
  return ch;
}

void ChannelSumsInstruction::run_cpu(ExecutionContext& ec) {
  const Channels ch = channels(ec);
  auto x = ec.matrix(x_);
  ec.set_matrix(out_.name, cpu::channel_sums(*x, ch.c, ch.hw));
}

int64_t ChannelSumsInstruction::device_bytes(ExecutionContext& ec) const {
  const int64_t c = ec.scalar(c_).to_int();
  return sum_bytes(
      {meta_bytes(ec, x_), dense_device_bytes(ec.options().gpu.get(), std::max<int64_t>(c, 0), 1)});
}

// ---- NesterovInstruction ------------------------------------------------------------------------

NesterovInstruction::NesterovInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(5, 7);
  for (size_t i = 0; i < 3; ++i) in_[i] = operand(i);
  mu_ = operand(3);
  out_ = operand(4);
  DMLRT_REQUIRE(in_[0].is_matrix() && in_[1].is_matrix() && in_[2].is_matrix() && out_.is_matrix(),
                ParseError, where() << ": " << opcode() << " needs matrix inputs and output");
}

void NesterovInstruction::check(Shapes& shapes) const {
  const Dims x = shapes.dims(in_[0]), v = shapes.dims(in_[1]), p = shapes.dims(in_[2]);
  if (!x.known() || !v.known() || !p.known()) return;
  DMLRT_REQUIRE(x.rows == v.rows && x.cols == v.cols && x.rows == p.rows && x.cols == p.cols,
                ShapeError,
                opcode() << ": X, v and v_prev differ in shape: " << x.rows << "x" << x.cols << ", "
                         << v.rows << "x" << v.cols << ", " << p.rows << "x" << p.cols);
}

void NesterovInstruction::run_cpu(ExecutionContext& ec) {
  auto x = ec.matrix(in_[0]);
  auto v = ec.matrix(in_[1]);
  auto vp = ec.matrix(in_[2]);
  const double mu = ec.scalar(mu_).to_double();
  ec.set_matrix(out_.name, cpu::update_nesterov_x(*x, *v, *vp, mu));
}

int64_t NesterovInstruction::device_bytes(ExecutionContext& ec) const {
  const int64_t x = meta_bytes(ec, in_[0]);
  return sum_bytes({x, meta_bytes(ec, in_[1]), meta_bytes(ec, in_[2]), x});
}

}  // namespace dmlrt::inst
