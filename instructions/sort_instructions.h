// Sorting and order statistics: rsort (order()) `M°by°decreasing°indexreturn°out[°k]` with `by` a
// scalar column or a matrix of columns; qsort `M°out[°k]` (sorted column for median/quantile);
// qpick `sorted°q°out°VALUEPICK|RANGEPICK°inmem` and `sorted°out°MEDIAN°inmem`. Weighted
// quantiles (qsort with a weight vector) and IQM throw NotSupported. Scalar results are FP64
// whatever value type the plan declares (SystemDS declares STRING). CPU only (kernels/cpu/sort).
#pragma once

#include <string>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class RsortInstruction final : public Instruction {
 public:
  explicit RsortInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_, by_, decreasing_, index_return_, out_;
};

class QsortInstruction final : public Instruction {
 public:
  explicit QsortInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_, out_;
};

class QpickInstruction final : public Instruction {
 public:
  explicit QpickInstruction(InstructionText t);

  void check(Shapes& shapes) const override;

 private:
  void run_cpu(ExecutionContext& ec) override;

  std::string type_;  // VALUEPICK, RANGEPICK or MEDIAN
  Operand in_, q_, out_;
};

}  // namespace dmlrt::inst
