// sqrt_matrix_java `A°B[°k]`: sqrtMatrix(A, "COMMON") (SystemDS's sqrtMatrixJava builtin), the
// principal square root of a symmetric positive definite A (kernels/cpu/sqrt_matrix), also on the
// GPU (sqrt_matrix_gpu.cpp: cuSOLVER's syevd, kernels/cuda/sqrt_matrix_op.h) with the CPU's errors.
#pragma once

#include "instructions/instruction.h"

namespace dmlrt::inst {

class SqrtMatrixInstruction final : public Instruction {
 public:
  explicit SqrtMatrixInstruction(InstructionText t);
  // A is square.
  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Operand in_, out_;
};

}  // namespace dmlrt::inst
