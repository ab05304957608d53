// Append instructions: the 2-input `append` (M°M°offset°out°true=cbind|false=rbind) and the n-ary
// `cbind` / `rbind` (M°M°...°out), SystemDS layouts (reference/systemds-format.md §3). Inputs must
// be matrices (DML rejects scalars in cbind/rbind); shapes are checked exactly as SystemDS's
// runtime does, so an empty input needs the matching row (cbind) or column (rbind) count. CPU run
// in append_instructions.cpp (kernels/cpu/append); GPU run in append_gpu.cpp: block copies
// (kernels/cuda/indexing), or, for an rbind of CSR inputs, a CSR concatenation
// (kernels/cuda/csr_ops): exact, and never densified.
#pragma once

#include <string>
#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class AppendInstruction final : public Instruction {
 public:
  explicit AppendInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  std::vector<Operand> inputs_;
  Operand out_;
  bool cbind_ = true;
  std::string name_;  // for messages: "append (cbind)", "cbind", ...
};

}  // namespace dmlrt::inst
