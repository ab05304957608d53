// Ternary instructions: ifelse (`c°a°b°out[°k]`) and the axpy forms +* / -* (`X°s°Y°out[°k]`,
// X + s*Y and X - s*Y). Any input may be a scalar or a matrix; matrices must agree in shape and
// 1x1 matrices act as scalars (SystemDS ternaryOperations). All-scalar inputs give a scalar.
#include <algorithm>
#include <string>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "kernels/cpu/ternary.h"

namespace dmlrt::inst {
namespace {

using kernels::cpu::TernaryArg;
using kernels::cpu::TernaryOp;

class TernaryInstruction final : public Instruction {
 public:
  explicit TernaryInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(4, 5);
    if (opcode() == "ifelse")
      op_ = TernaryOp::kIfElse;
    else if (opcode() == "+*")
      op_ = TernaryOp::kPlusMult;
    else if (opcode() == "-*")
      op_ = TernaryOp::kMinusMult;
    else
      DMLRT_FAIL(NotSupported, "opcode '" << opcode() << "' is not a ternary op");
    for (size_t i = 0; i < 3; ++i) {
      in_[i] = operand(i);
      DMLRT_REQUIRE(in_[i].is_matrix() || in_[i].is_scalar(), NotSupported,
                    where() << ": " << opcode() << " of a " << name_of(in_[i].data_type)
                            << " operand is not supported");
    }
    out_ = operand(3);
    const bool any_matrix = in_[0].is_matrix() || in_[1].is_matrix() || in_[2].is_matrix();
    DMLRT_REQUIRE(any_matrix == out_.is_matrix(), ParseError,
                  where() << ": " << opcode() << " output '" << out_.name << "' must be a "
                          << (any_matrix ? "MATRIX" : "SCALAR"));
  }

  void execute(ExecutionContext& ec) override {
    if (!out_.is_matrix()) {
      execute_scalar(ec);
      return;
    }
    std::shared_ptr<const kernels::MatrixBlock> blocks[3];
    TernaryArg args[3];
    int64_t rows = 1, cols = 1;
    for (int i = 0; i < 3; ++i) {
      if (in_[i].is_matrix()) {
        blocks[i] = ec.matrix(in_[i]);
        args[i].matrix = blocks[i].get();
        if (!args[i].is_scalar_like()) {
          rows = std::max(rows, blocks[i]->rows());
          cols = std::max(cols, blocks[i]->cols());
        }
      } else {
        args[i].value = to_number(ec.scalar(in_[i]));
      }
    }
    // With an empty matrix input the output takes its shape (max would miss 0 dims).
    for (int i = 0; i < 3; ++i)
      if (blocks[i] && blocks[i]->is_empty()) {
        rows = blocks[i]->rows();
        cols = blocks[i]->cols();
      }
    for (int i = 0; i < 3; ++i)
      DMLRT_REQUIRE(
          args[i].is_scalar_like() || (blocks[i]->rows() == rows && blocks[i]->cols() == cols),
          ShapeError, opcode() << ": matrix operands differ in shape: " << shapes(blocks));
    ec.set_matrix(out_.name, kernels::cpu::ternary(op_, args[0], args[1], args[2], rows, cols));
  }

 private:
  double to_number(const ScalarValue& v) const {
    try {
      return v.to_double();
    } catch (const RuntimeError&) {
      DMLRT_FAIL(RuntimeError, opcode() << ": string scalar '" << v.to_string()
                                        << "' cannot be combined with a matrix");
    }
  }

  std::string shapes(const std::shared_ptr<const kernels::MatrixBlock> (&blocks)[3]) const {
    std::string s;
    for (int i = 0; i < 3; ++i) {
      if (i) s += ", ";
      s += blocks[i] ? shape_of(*blocks[i]) : std::string("scalar");
    }
    return s;
  }

  void execute_scalar(ExecutionContext& ec) {
    const ScalarValue c = ec.scalar(in_[0]);
    const ScalarValue a = ec.scalar(in_[1]);
    const ScalarValue b = ec.scalar(in_[2]);
    if (op_ == TernaryOp::kIfElse) {
      // SystemDS 3.4 passes the chosen input object through (an INT64 stays INT64, strings work).
      const bool cond = c.is_string() ? c.to_bool() : c.to_double() != 0.0;
      ec.set_scalar(out_.name, cond ? a : b);
      return;
    }
    // TernaryCPInstruction: double arithmetic, converted to the output's value type.
    ec.set_scalar(out_, ScalarValue::fp64(kernels::cpu::ternary_apply(
                            op_, c.to_double(), a.to_double(), b.to_double())));
  }

  TernaryOp op_ = TernaryOp::kIfElse;
  Operand in_[3];
  Operand out_;
};

}  // namespace

InstructionPtr make_ternary(InstructionText text) {
  return std::make_unique<TernaryInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
