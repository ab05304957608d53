// eigen(A): the multi-return builtin `A°values°vectors[°k]` (outputs are bare names), SystemDS's
// FunctionCallCP layout for multi-return builtins. Symmetric inputs only (see kernels/cpu/eigen);
// CPU only.
#pragma once

#include <string>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class EigenInstruction final : public Instruction {
 public:
  explicit EigenInstruction(InstructionText t);

  void check(Shapes& shapes) const override;

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_;
  std::string values_, vectors_;
};

}  // namespace dmlrt::inst
