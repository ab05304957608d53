// einsum `equation·S°A°[B°…]°out`: einsum(equation, A, B, ...) on matrices and vectors
// (kernels/cpu/einsum), a matrix output, or a scalar for an equation with an empty output
// ("ij->"). SystemDS 3.4 runs it in CP (EinsumCPInstruction). CPU only: a naive loop nest, so its
// sums may differ from SystemDS's matrix-multiply plans in the last bits.
#pragma once

#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class EinsumInstruction final : public Instruction {
 public:
  explicit EinsumInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand eq_, out_;
  std::vector<Operand> in_;
};

}  // namespace dmlrt::inst
