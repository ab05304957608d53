// Sorting and order statistics: rsort (order()) `M°by°decreasing°indexreturn°out[°k]` with `by` a
// scalar column or a matrix of columns; qsort `M[°W]°out[°k]` (the sorted column, or with
// weights SystemDS's (value, weight) table); qpick `sorted°q°out°VALUEPICK|RANGEPICK°inmem` and
// `sorted°out°MEDIAN|IQM°inmem` on either. Scalar results are FP64
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

  Operand in_, weights_, out_;  // weights_ unnamed without weights
};

class QpickInstruction final : public Instruction {
 public:
  explicit QpickInstruction(InstructionText t);

  void check(Shapes& shapes) const override;

 private:
  void run_cpu(ExecutionContext& ec) override;

  std::string type_;  // VALUEPICK, RANGEPICK, MEDIAN or IQM
  Operand in_, q_, out_;
};

}  // namespace dmlrt::inst
