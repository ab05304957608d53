// Matrix multiply instructions: parsing, shape rules and CPU runs (matmult_instructions.h).
#include <string>

#include "instructions/matmult_instructions.h"

#include "gpu_context/error.h"
#include "gpu_context/string_util.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {
namespace {

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

}  // namespace

// --- ba+* ---

MatMultInstruction::MatMultInstruction(InstructionText t) : Instruction(std::move(t)) {
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

bool MatMultInstruction::parse_flag(size_t i) const {
  const std::string f = to_lower(field(i));
  DMLRT_REQUIRE(f == "true" || f == "false", ParseError,
                where() << ": ba+* transpose flag must be true or false, got '" << field(i) << "'");
  return f == "true";
}

void MatMultInstruction::check(Shapes& shapes) const {
  const Dims a = shapes.dims(a_), b = shapes.dims(b_);
  if (!a.known() || !b.known()) return;
  const int64_t m = trans_a_ ? a.cols : a.rows;
  const int64_t k = trans_a_ ? a.rows : a.cols;
  const int64_t k2 = trans_b_ ? b.cols : b.rows;
  const int64_t n = trans_b_ ? b.rows : b.cols;
  auto shape = [](const Dims& x, bool t) {
    const std::string s = kernels::dims_string(x.rows, x.cols);
    return t ? "t(" + s + ")" : s;
  };
  DMLRT_REQUIRE(k == k2, ShapeError,
                "ba+*: inner dimensions differ: " << shape(a, trans_a_) << " %*% "
                                                   << shape(b, trans_b_));
  if (out_.is_scalar())
    DMLRT_REQUIRE(m == 1 && n == 1, ShapeError,
                  "ba+*: scalar output '" << out_.name << "' needs a 1x1 product, got "
                                          << kernels::dims_string(m, n));
}

void MatMultInstruction::run_cpu(ExecutionContext& ec) {
  auto a = ec.matrix(a_);
  auto b = ec.matrix(b_);
  kernels::MatrixBlock c = kernels::cpu::matmult(*a, *b, trans_a_, trans_b_);
  if (out_.is_scalar())
    ec.set_scalar(out_, ScalarValue::fp64(c.get(0, 0)));
  else
    ec.set_matrix(out_.name, std::move(c));
}

int64_t MatMultInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& a = ec.matrix_object_ref(a_.name)->meta();
  const MatrixMeta& b = ec.matrix_object_ref(b_.name)->meta();
  const mem::GpuSession* gpu = ec.options().gpu.get();
  const int64_t ab = dense_device_bytes(gpu, a.rows, a.cols);
  const int64_t bb = dense_device_bytes(gpu, b.rows, b.cols);
  const int64_t cb =
      dense_device_bytes(gpu, trans_a_ ? a.cols : a.rows, trans_b_ ? b.rows : b.cols);
  return ab < 0 || bb < 0 || cb < 0 ? -1 : ab + bb + cb;
}

// --- tsmm ---

TsmmInstruction::TsmmInstruction(InstructionText t) : Instruction(std::move(t)) {
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

void TsmmInstruction::run_cpu(ExecutionContext& ec) {
  auto x = ec.matrix(x_);
  ec.set_matrix(out_.name, kernels::cpu::tsmm(*x, left_));
}

// X and the (n, n) output.
int64_t TsmmInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& x = ec.matrix_object_ref(x_.name)->meta();
  const mem::GpuSession* gpu = ec.options().gpu.get();
  const int64_t n = left_ ? x.cols : x.rows;
  const int64_t xb = dense_device_bytes(gpu, x.rows, x.cols);
  const int64_t cb = dense_device_bytes(gpu, n, n);
  return xb < 0 || cb < 0 ? -1 : xb + cb;
}

// --- mmchain ---

MMChainInstruction::MMChainInstruction(InstructionText t) : Instruction(std::move(t)) {
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

void MMChainInstruction::check(Shapes& shapes) const {
  const Dims x = shapes.dims(x_);
  const Dims v = shapes.dims(v_);
  if (x.known() && v.known())
    DMLRT_REQUIRE(v.rows == x.cols && v.cols == 1, ShapeError,
                  "mmchain: v must be " << kernels::dims_string(x.cols, 1) << " for X "
                                        << kernels::dims_string(x.rows, x.cols) << ", got "
                                        << kernels::dims_string(v.rows, v.cols));
  if (!has_w_) return;
  const Dims w = shapes.dims(w_);
  if (x.known() && w.known())
    DMLRT_REQUIRE(w.rows == x.rows && w.cols == 1, ShapeError,
                  "mmchain: " << (type_ == kernels::cpu::ChainType::kXtwXv ? "w" : "y")
                              << " must be " << kernels::dims_string(x.rows, 1) << " for X "
                              << kernels::dims_string(x.rows, x.cols) << ", got "
                              << kernels::dims_string(w.rows, w.cols));
}

// X, v, w (or y), the (rows, 1) intermediate and the (cols, 1) output.
int64_t MMChainInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& x = ec.matrix_object_ref(x_.name)->meta();
  const mem::GpuSession* gpu = ec.options().gpu.get();
  const int64_t xb = dense_device_bytes(gpu, x.rows, x.cols);
  const int64_t vb = dense_device_bytes(gpu, x.cols, 1);
  const int64_t qb = dense_device_bytes(gpu, x.rows, 1);
  if (xb < 0 || vb < 0 || qb < 0) return -1;
  return xb + 2 * vb + (has_w_ ? 2 : 1) * qb;
}

void MMChainInstruction::run_cpu(ExecutionContext& ec) {
  auto x = ec.matrix(x_);
  auto v = ec.matrix(v_);
  std::shared_ptr<const kernels::MatrixBlock> w;
  if (has_w_) w = ec.matrix(w_);
  ec.set_matrix(out_.name, kernels::cpu::mmchain(*x, *v, w.get(), type_));
}

}  // namespace dmlrt::inst
