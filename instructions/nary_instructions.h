// N-ary instructions n+ n* nmin nmax (`in1°in2°…°inN°out`, N >= 2, no thread count), which
// SystemDS's compiler emits for chains of +, * and for min/max with three or more arguments.
// Matrix form: every matrix shares one shape, scalars fold into every cell (kernels/cpu/nary).
// Scalar form: n+ concatenates when any input or the output is a STRING; otherwise the fold is
// done in INT64 when the output is INT64 (SystemDS keeps integer chains integral), else in FP64.
// CPU only.
#pragma once

#include <vector>

#include "instructions/instruction.h"
#include "kernels/cpu/nary.h"

namespace dmlrt::inst {

class NaryInstruction final : public Instruction {
 public:
  explicit NaryInstruction(InstructionText t);

  void check(Shapes& shapes) const override;

 private:
  void run_cpu(ExecutionContext& ec) override;
  void run_matrix(ExecutionContext& ec);
  void run_scalar(ExecutionContext& ec);

  kernels::cpu::NaryOp op_ = kernels::cpu::NaryOp::kPlus;
  std::vector<Operand> in_;
  Operand out_;
  bool any_matrix_ = false;
};

}  // namespace dmlrt::inst
