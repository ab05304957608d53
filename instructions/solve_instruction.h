// solve(A, b): A°b°out[°k], SystemDS layout (reference/systemds-format.md §3). A must be square
// (SystemDS: "The A matrix, in solve(A,b) should have squared dimensions."); b may have several
// columns. The CPU run (solve_instruction.cpp) factorises with LU and partial pivoting
// (kernels/cpu/solve), where SystemDS uses commons-math QR: both fail on an exactly singular
// factor, but a matrix that is singular only up to rounding may factorise in one and not the
// other. The GPU run (solve_gpu.cpp) is the same LU through cuSOLVER (getrf + getrs, FP64 or
// FP32); see Note [GPU solve].
#pragma once

#include "instructions/instruction.h"

namespace dmlrt::inst {

class SolveInstruction final : public Instruction {
 public:
  explicit SolveInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Operand a_, b_, out_;
};

}  // namespace dmlrt::inst
