// eigen(A): the multi-return builtin `A°values°vectors[°k]` (outputs are bare names), SystemDS's
// FunctionCallCP layout for multi-return builtins. The CPU run is LAPACK's (kernels/cpu/eigen:
// dsyevd, or dgeev for a non-symmetric input with real eigenvalues); the GPU run (eigen_gpu.cpp)
// is cuSOLVER's syevd for symmetric input and falls back to the CPU run for any other. Both follow
// Note [eigen conventions] (kernels/cpu/eigen.h): ascending values, the same eigenvector signs.
#pragma once

#include <string>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class EigenInstruction final : public Instruction {
 public:
  explicit EigenInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Operand in_;
  std::string values_, vectors_;
};

}  // namespace dmlrt::inst
