// eigen(A): parsing, shape rule and CPU run (eigen_instruction.h).
#include "instructions/eigen_instruction.h"

#include "gpu_context/error.h"
#include "kernels/cpu/eigen.h"

namespace dmlrt::inst {

EigenInstruction::EigenInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(3, 4);
  in_ = operand(0);
  DMLRT_REQUIRE(in_.is_matrix(), ParseError, where() << ": eigen expects a matrix input");
  values_ = Operand::parse(field(1)).name;
  vectors_ = Operand::parse(field(2)).name;
}

// The kernel repeats this (it is a library function); symmetry is a property of the values and
// stays there.
void EigenInstruction::check(Shapes& shapes) const {
  const Dims x = shapes.dims(in_);
  if (!x.known()) return;
  DMLRT_REQUIRE(
      x.rows == x.cols, ShapeError,
      "eigen: input must be a square matrix, got " << kernels::dims_string(x.rows, x.cols));
}

void EigenInstruction::run_cpu(ExecutionContext& ec) {
  kernels::cpu::EigenResult r = kernels::cpu::eigen_symmetric(*ec.matrix(in_));
  ec.set_matrix(values_, std::move(r.values));
  ec.set_matrix(vectors_, std::move(r.vectors));
}

}  // namespace dmlrt::inst
