// countDistinct and countDistinctApprox: uacd `X°out[°k]` (a scalar), uacdr / uacdc (an (m, 1) /
// (1, n) matrix of per-row / per-column counts), and the approximate uacdap, uacdapr, uacdapc
// (kernels/cpu/count_distinct). CPU only.
#pragma once

#include "instructions/instruction.h"
#include "kernels/cpu/count_distinct.h"

namespace dmlrt::inst {

class CountDistinctInstruction final : public Instruction {
 public:
  explicit CountDistinctInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  kernels::cpu::CountDistinctDir dir_;
  bool approx_ = false;
  Operand in_, out_;
};

}  // namespace dmlrt::inst
