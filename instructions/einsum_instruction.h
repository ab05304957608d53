// einsum `equation·S°A°[B°…]°out`: einsum(equation, A, B, ...) on matrices and vectors
// (kernels/cpu/einsum), a matrix output, or a scalar for an equation with an empty output
// ("ij->"). SystemDS 3.4 runs it in CP (EinsumCPInstruction). A naive loop nest on the CPU, so its
// sums may differ from SystemDS's matrix-multiply plans in the last bits; the GPU run
// (einsum_gpu.cpp) sums each output cell in the CPU's order, for up to kernels::cuda's
// kEinsumMaxOperands operands and kEinsumMaxLetters letters (more run on the CPU).
#pragma once

#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class EinsumInstruction final : public Instruction {
 public:
  explicit EinsumInstruction(InstructionText t);
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  // False for an equation the GPU kernel does not take (too many operands or letters) and for
  // a bad one or a wrong output kind, whose error run_cpu raises.
  bool gpu_applicable(ExecutionContext& ec) override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Operand eq_, out_;
  std::vector<Operand> in_;
};

}  // namespace dmlrt::inst
