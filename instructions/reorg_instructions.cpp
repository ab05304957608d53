// Reorganisation instructions: parsing, shape rules and CPU runs (reorg_instructions.h).
#include "instructions/reorg_instructions.h"

#include <cmath>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/reorg.h"

namespace dmlrt::inst {
namespace {

// SystemDS reads dimension scalars with getLongValue(): doubles go through UtilFunctions.toLong,
// sign(x) * floor(|x| + 2^-53), so 2.9999999999999996 is 2 but values within an ulp of an
// integer round to it.
int64_t long_value(const ScalarValue& v) {
  if (v.type() != ValueType::kFP64 && v.type() != ValueType::kFP32) return v.to_int();
  const double d = v.to_double();
  // Beyond int64 the conversion would be undefined; no matrix has 2^63 rows anyway.
  DMLRT_REQUIRE(std::isfinite(d) && std::fabs(d) < 9.2e18, RuntimeError,
                "invalid dimension value " << format_double_java(d));
  const double s = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
  return static_cast<int64_t>(s * std::floor(std::fabs(d) + std::ldexp(1.0, -53)));
}

// rows x cols == cells without int64 wrap-around (2^32 x 2^32 is not 0 cells).
bool same_cells(int64_t rows, int64_t cols, int64_t cells) {
  return static_cast<__int128>(rows) * cols == cells;
}

// rshape's rule: the output holds exactly the input's cells.
void check_reshape(Dims in, int64_t rows, int64_t cols) {
  const int64_t cells = in.rows * in.cols;
  DMLRT_REQUIRE(rows >= 0 && cols >= 0 && same_cells(rows, cols, cells), ShapeError,
                "rshape: cannot reshape a " << kernels::dims_string(in.rows, in.cols) << " matrix ("
                                            << cells << " cells) into " << rows << "x" << cols
                                            << " (" << static_cast<double>(rows) * cols
                                            << " cells)");
}

}  // namespace

void ReorgInstruction::parse_in_out(size_t in_pos, size_t out_pos) {
  in_ = operand(in_pos);
  out_ = operand(out_pos);
  DMLRT_REQUIRE(in_.is_matrix(), ParseError,
                where() << ": " << opcode() << " expects a matrix input, got " << in_.to_string());
  DMLRT_REQUIRE(
      out_.is_matrix(), ParseError,
      where() << ": " << opcode() << " expects a matrix output, got " << out_.to_string());
}

// The output is at most the input's size (rdiag of a vector gives a CSR of the vector's nonzeros
// on the GPU), so twice the input's bytes.
int64_t ReorgInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& m = ec.matrix_object(in_.name)->meta();
  const int64_t in = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
  return in < 0 ? -1 : 2 * in;
}

TransposeInstruction::TransposeInstruction(InstructionText t) : ReorgInstruction(std::move(t)) {
  expect_fields(2, 3);
  parse_in_out(0, 1);
}

void TransposeInstruction::run_cpu(ExecutionContext& ec) {
  ec.set_matrix(out_.name, kernels::cpu::transpose(*ec.matrix(in_)));
}

ReverseInstruction::ReverseInstruction(InstructionText t) : ReorgInstruction(std::move(t)) {
  expect_fields(2, 3);
  parse_in_out(0, 1);
}

void ReverseInstruction::run_cpu(ExecutionContext& ec) {
  ec.set_matrix(out_.name, kernels::cpu::reverse_rows(*ec.matrix(in_)));
}

RollInstruction::RollInstruction(InstructionText t) : ReorgInstruction(std::move(t)) {
  expect_fields(3, 4);
  parse_in_out(0, 2);
  shift_ = operand(1);
  DMLRT_REQUIRE(shift_.is_scalar(), ParseError,
                where() << ": roll expects a scalar shift operand, got " << shift_.to_string());
}

int64_t RollInstruction::shift(ExecutionContext& ec) const {
  return long_value(ec.scalar(shift_));
}

void RollInstruction::run_cpu(ExecutionContext& ec) {
  ec.set_matrix(out_.name, kernels::cpu::roll_rows(*ec.matrix(in_), shift(ec)));
}

DiagInstruction::DiagInstruction(InstructionText t) : ReorgInstruction(std::move(t)) {
  expect_fields(2, 3);
  parse_in_out(0, 1);
}

void DiagInstruction::check(Shapes& shapes) const {
  const Dims x = shapes.dims(in_);
  if (!x.known()) return;
  // SystemDS's validator rejects other shapes at compile time ("diag can either: (1) create
  // diagonal matrix from (n x 1) matrix, or (2) take diagonal from a square matrix").
  DMLRT_REQUIRE(x.cols == 1 || x.rows == x.cols, ShapeError,
                "rdiag: expects a column vector (n x 1) or a square matrix, got "
                    << kernels::dims_string(x.rows, x.cols));
}

void DiagInstruction::run_cpu(ExecutionContext& ec) {
  ec.set_matrix(out_.name, kernels::cpu::diag(*ec.matrix(in_)));
}

ReshapeInstruction::ReshapeInstruction(InstructionText t) : ReorgInstruction(std::move(t)) {
  expect_fields(6);
  parse_in_out(0, 5);
  rows_ = operand(1);
  cols_ = operand(2);
  byrow_ = operand(4);
  for (const Operand* op : {&rows_, &cols_, &byrow_})
    DMLRT_REQUIRE(op->is_scalar(), ParseError,
                  where() << ": rshape expects scalar rows, cols and byrow operands, got "
                          << op->to_string());
  if (rows_.literal && cols_.literal && byrow_.literal) {
    // A bad literal is left to the runs, which raise the usual error.
    try {
      literal_ = Target{long_value(ScalarValue::from_literal(rows_.name, rows_.value_type)),
                        long_value(ScalarValue::from_literal(cols_.name, cols_.value_type)),
                        ScalarValue::from_literal(byrow_.name, byrow_.value_type).to_bool()};
    } catch (const std::exception&) {
      literal_.reset();
    }
  }
}

void ReshapeInstruction::check(Shapes& shapes) const {
  if (!literal_) return;
  const Dims x = shapes.dims(in_);
  if (x.known()) check_reshape(x, literal_->rows, literal_->cols);
}

ReshapeInstruction::Target ReshapeInstruction::target(ExecutionContext& ec, Dims in) const {
  if (literal_) return *literal_;  // check() has checked it
  const Target t{long_value(ec.scalar(rows_)), long_value(ec.scalar(cols_)),
                 ec.scalar(byrow_).to_bool()};
  check_reshape(in, t.rows, t.cols);
  return t;
}

void ReshapeInstruction::run_cpu(ExecutionContext& ec) {
  auto in = ec.matrix(in_);
  const Target t = target(ec, Dims{in->rows(), in->cols()});
  ec.set_matrix(out_.name, kernels::cpu::reshape(*in, t.rows, t.cols, t.byrow));
}

}  // namespace dmlrt::inst
