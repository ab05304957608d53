// sqrt_matrix_java `A°B[°k]`: sqrtMatrix(A, "COMMON") (SystemDS's sqrtMatrixJava builtin), the
// principal square root of a symmetric positive definite A (kernels/cpu/sqrt_matrix). CPU only.
#pragma once

#include "instructions/instruction.h"

namespace dmlrt::inst {

class SqrtMatrixInstruction final : public Instruction {
 public:
  explicit SqrtMatrixInstruction(InstructionText t);
  // A is square.
  void check(Shapes& shapes) const override;

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_, out_;
};

}  // namespace dmlrt::inst
