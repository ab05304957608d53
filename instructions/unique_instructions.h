// unique(X, dir): unique `X°out[°k]` (the distinct values of X as a column), uniquer (of each row,
// zero-padded) and uniquec (of each column, zero-padded), in SystemDS's order (kernels/cpu/unique).
// CPU only.
#pragma once

#include "instructions/instruction.h"
#include "kernels/cpu/unique.h"

namespace dmlrt::inst {

class UniqueInstruction final : public Instruction {
 public:
  explicit UniqueInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  kernels::cpu::UniqueDir dir_;
  Operand in_, out_;
};

}  // namespace dmlrt::inst
