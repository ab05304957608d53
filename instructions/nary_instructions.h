// N-ary instructions n+ n* nmin nmax (`in1°in2°…°inN°out`, N >= 2, no thread count), which
// SystemDS's compiler emits for chains of +, * and for min/max with three or more arguments.
// Matrix form: every matrix shares one shape, scalars fold into every cell (kernels/cpu/nary).
// Scalar form: n+ concatenates when any input or the output is a STRING; otherwise the fold is
// done in INT64 when the output is INT64 (SystemDS keeps integer chains integral), else in FP64.
// The matrix form has a GPU run (nary_gpu.cpp).
#pragma once

#include <vector>

#include "instructions/instruction.h"
#include "kernels/cpu/nary.h"

namespace dmlrt::inst {

class NaryInstruction final : public Instruction {
 public:
  explicit NaryInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return any_matrix_; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
  // A scalar operand of the matrix form as a number (a string is an error naming the opcode).
  double scalar_operand(ExecutionContext& ec, const Operand& op) const;
  void run_matrix(ExecutionContext& ec);
  void run_scalar(ExecutionContext& ec);

  kernels::cpu::NaryOp op_ = kernels::cpu::NaryOp::kPlus;
  std::vector<Operand> in_;
  Operand out_;
  bool any_matrix_ = false;
};

}  // namespace dmlrt::inst
