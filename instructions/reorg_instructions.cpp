// Reorganisation instructions r' rshape rdiag rev (SystemDS layouts, reference/systemds-format.md
// §3): operand parsing and shape checks here, the work in kernels/cpu/reorg.
#include <cmath>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "kernels/cpu/reorg.h"

namespace dmlrt::inst {
namespace {

// SystemDS reads dimension scalars with getLongValue(): doubles go through UtilFunctions.toLong,
// sign(x) * floor(|x| + 2^-53), so 2.9999999999999996 is 2 but values within an ulp of an
// integer round to it.
int64_t long_value(const ScalarValue& v) {
  if (v.type() != ValueType::kFP64 && v.type() != ValueType::kFP32) return v.to_int();
  const double d = v.to_double();
  DMLRT_REQUIRE(std::isfinite(d), RuntimeError, "invalid dimension value " << d);
  const double s = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
  return static_cast<int64_t>(s * std::floor(std::fabs(d) + std::ldexp(1.0, -53)));
}

// Base of the four reorg instructions: one matrix input, one matrix output.
class ReorgInstruction : public Instruction {
 protected:
  explicit ReorgInstruction(InstructionText t) : Instruction(std::move(t)) {}

  void parse_in_out(size_t in_pos, size_t out_pos) {
    in_ = operand(in_pos);
    out_ = operand(out_pos);
    DMLRT_REQUIRE(
        in_.is_matrix(), ParseError,
        where() << ": " << opcode() << " expects a matrix input, got " << in_.to_string());
    DMLRT_REQUIRE(
        out_.is_matrix(), ParseError,
        where() << ": " << opcode() << " expects a matrix output, got " << out_.to_string());
  }

  Operand in_, out_;
};

// r' in out [k]: transpose.
class Transpose final : public ReorgInstruction {
 public:
  explicit Transpose(InstructionText t) : ReorgInstruction(std::move(t)) {
    expect_fields(2, 3);
    parse_in_out(0, 1);
  }
  void execute(ExecutionContext& ec) override {
    ec.set_matrix(out_.name, kernels::cpu::transpose(*ec.matrix(in_)));
  }
};

// rev in out [k]: reverse the row order.
class Reverse final : public ReorgInstruction {
 public:
  explicit Reverse(InstructionText t) : ReorgInstruction(std::move(t)) {
    expect_fields(2, 3);
    parse_in_out(0, 1);
  }
  void execute(ExecutionContext& ec) override {
    ec.set_matrix(out_.name, kernels::cpu::reverse_rows(*ec.matrix(in_)));
  }
};

// rdiag in out [k]: column vector -> diagonal matrix, square matrix -> diagonal as a column.
class Diag final : public ReorgInstruction {
 public:
  explicit Diag(InstructionText t) : ReorgInstruction(std::move(t)) {
    expect_fields(2, 3);
    parse_in_out(0, 1);
  }
  void execute(ExecutionContext& ec) override {
    auto in = ec.matrix(in_);
    // SystemDS's validator rejects other shapes at compile time ("diag can either: (1) create
    // diagonal matrix from (n x 1) matrix, or (2) take diagonal from a square matrix").
    DMLRT_REQUIRE(
        in->cols() == 1 || in->rows() == in->cols(), ShapeError,
        "rdiag: expects a column vector (n x 1) or a square matrix, got " << shape_of(*in));
    ec.set_matrix(out_.name, kernels::cpu::diag(*in));
  }
};

// rshape in rows cols dims byrow out: matrix(X, rows=, cols=, byrow=). `dims` is SystemDS's
// tensor-shape operand (-1 for matrices) and is not used.
class Reshape final : public ReorgInstruction {
 public:
  explicit Reshape(InstructionText t) : ReorgInstruction(std::move(t)) {
    expect_fields(6);
    parse_in_out(0, 5);
    rows_ = operand(1);
    cols_ = operand(2);
    byrow_ = operand(4);
    for (const Operand* op : {&rows_, &cols_, &byrow_})
      DMLRT_REQUIRE(op->is_scalar(), ParseError,
                    where() << ": rshape expects scalar rows, cols and byrow operands, got "
                            << op->to_string());
  }
  void execute(ExecutionContext& ec) override {
    auto in = ec.matrix(in_);
    const int64_t rows = long_value(ec.scalar(rows_));
    const int64_t cols = long_value(ec.scalar(cols_));
    const bool byrow = ec.scalar(byrow_).to_bool();
    DMLRT_REQUIRE(rows >= 0 && cols >= 0 && rows * cols == in->size(), ShapeError,
                  "rshape: cannot reshape a " << shape_of(*in) << " matrix (" << in->size()
                                              << " cells) into " << rows << "x" << cols << " ("
                                              << rows * cols << " cells)");
    ec.set_matrix(out_.name, kernels::cpu::reshape(*in, rows, cols, byrow));
  }

 private:
  Operand rows_, cols_, byrow_;
};

}  // namespace

InstructionPtr make_reorg(InstructionText text) {
  const std::string op = text.opcode;
  if (op == "r'") return std::make_unique<Transpose>(std::move(text));
  if (op == "rev") return std::make_unique<Reverse>(std::move(text));
  if (op == "rdiag") return std::make_unique<Diag>(std::move(text));
  if (op == "rshape") return std::make_unique<Reshape>(std::move(text));
  DMLRT_FAIL(ParseError, "reorg: unknown opcode '" << op << "'");
}

}  // namespace dmlrt::inst
