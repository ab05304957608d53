// Statistics and fused ternary aggregates: cov `x°y[°w]°out[°k]`, cm `x[°w]°order°out[°k]`
// (central moment), tak+* `A°B°C°out[°k]` = sum(A*B*C) and tack+* = colSums(A*B*C). cov and cm
// write FP64 scalars whatever value type the plan declares (SystemDS declares STRING). CPU only
// (kernels/cpu/stats, which checks the operands' shapes).
#pragma once

#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

// The layout the statistics share: 2 to 6 fields, inputs, the output, an optional thread count.
class StatsInstruction : public Instruction {
 protected:
  explicit StatsInstruction(InstructionText t);

  std::vector<Operand> ins_;
  Operand out_;
};

// cov: covariance of x and y, optionally weighted.
class CovInstruction final : public StatsInstruction {
 public:
  explicit CovInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;
};

// cm: central moment of x of a scalar order, optionally weighted.
class CentralMomentInstruction final : public StatsInstruction {
 public:
  explicit CentralMomentInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;
};

// tak+* (the sum) and tack+* (the column sums) of A*B*C; each input a matrix or a scalar.
class TernaryAggInstruction final : public StatsInstruction {
 public:
  explicit TernaryAggInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  bool col_ = false;  // tack+*
};

}  // namespace dmlrt::inst
