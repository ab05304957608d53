// union_distinct°A°B°out[°k]: the distinct rows of rbind(A, B) in order of first occurrence
// (SystemDS's UnionCPInstruction / MatrixBlock.unionOperations). SystemDS's static rewrite
// simplifyUnionDistinct compiles unique(rbind(A, B)) to it when the rbind has no other use. Rows
// are equal when every cell is equal as Java's Double.equals compares (NaN equals NaN, -0.0 differs
// from 0.0). CPU only.
#pragma once

#include "instructions/instruction.h"

namespace dmlrt::inst {

class UnionDistinctInstruction final : public Instruction {
 public:
  explicit UnionDistinctInstruction(InstructionText t);

  void check(Shapes& shapes) const override;

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand a_, b_, out_;
};

}  // namespace dmlrt::inst
