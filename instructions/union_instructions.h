// union_distinct°A°B°out[°k]: the distinct rows of rbind(A, B) in order of first occurrence
// (SystemDS's UnionCPInstruction / MatrixBlock.unionOperations). SystemDS's static rewrite
// simplifyUnionDistinct compiles unique(rbind(A, B)) to it when the rbind has no other use. Rows
// are equal when every cell is equal as Java's Double.equals compares (NaN equals NaN, -0.0 differs
// from 0.0). GPU (union_gpu.cpp): rows hashed, sorted and compared on the device, giving the same
// rows in the same order.
#pragma once

#include "instructions/instruction.h"

namespace dmlrt::inst {

class UnionDistinctInstruction final : public Instruction {
 public:
  explicit UnionDistinctInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Operand a_, b_, out_;
};

}  // namespace dmlrt::inst
