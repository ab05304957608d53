// solve(A, b): A°b°out[°k], SystemDS layout (reference/systemds-format.md §3). A must be square
// (SystemDS: "The A matrix, in solve(A,b) should have squared dimensions."); b may have several
// columns. The CPU kernel factorises with LU and partial pivoting (kernels/cpu/solve), where
// SystemDS uses commons-math QR: both fail on an exactly singular factor, but a matrix that is
// singular only up to rounding may factorise in one and not the other.
#include "gpu_context/error.h"
#include "instructions/families.h"
#include "kernels/cpu/solve.h"

namespace dmlrt::inst {
namespace {

class Solve final : public Instruction {
 public:
  explicit Solve(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(3, 4);
    a_ = operand(0);
    b_ = operand(1);
    out_ = operand(2);
    for (const Operand* op : {&a_, &b_, &out_})
      DMLRT_REQUIRE(op->is_matrix(), ParseError,
                    where() << ": solve expects matrix operands, got " << op->to_string());
  }

  void execute(ExecutionContext& ec) override {
    auto a = ec.matrix(a_);
    auto b = ec.matrix(b_);
    DMLRT_REQUIRE(a->rows() == a->cols(), ShapeError,
                  "solve: A must be square, got " << shape_of(*a));
    DMLRT_REQUIRE(
        b->rows() == a->rows(), ShapeError,
        "solve: A is " << shape_of(*a) << " but b is " << shape_of(*b) << " (row counts differ)");
    ec.set_matrix(out_.name, kernels::cpu::solve(*a, *b));
  }

 private:
  Operand a_, b_, out_;
};

}  // namespace

InstructionPtr make_solve(InstructionText text) {
  DMLRT_REQUIRE(text.opcode == "solve", ParseError,
                "solve: unknown opcode '" << text.opcode << "'");
  return std::make_unique<Solve>(std::move(text));
}

}  // namespace dmlrt::inst
