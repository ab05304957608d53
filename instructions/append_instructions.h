// Append instructions: the 2-input `append` (M°M°offset°out°true=cbind|false=rbind) and the n-ary
// `cbind` / `rbind` (M°M°...°out), SystemDS layouts (reference/systemds-format.md §3). Inputs must
// be matrices (DML rejects scalars in cbind/rbind); shapes are checked exactly as SystemDS's
// runtime does, so an empty input needs the matching row (cbind) or column (rbind) count. CPU run
// in append_instructions.cpp (kernels/cpu/append); GPU run in append_gpu.cpp: block copies
// (kernels/cuda/indexing), or, for an rbind of CSR inputs, a CSR concatenation
// (kernels/cuda/csr_ops): exact, and never densified.
// `append` on scalars (append("a", "b"), the string log of glm, l2svm, ...) joins two strings:
// in1·S°in2·S°offset·S°out·STRING°flag, CPU only (StringAppendInstruction).
#pragma once

#include <string>
#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class AppendInstruction final : public Instruction {
 public:
  explicit AppendInstruction(InstructionText t);
  // `append` picks its class by the first input, as SystemDS does: a scalar is a string append.
  static InstructionPtr make(InstructionText t);

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

// SystemDS's ScalarAppendCPInstruction: in1 + "\n" + in2 (each scalar's string value), at most
// 1 MiB (1048576 UTF-16 units, Java's string length) for the two inputs together.
class StringAppendInstruction final : public Instruction {
 public:
  explicit StringAppendInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in1_, in2_, out_;
};

}  // namespace dmlrt::inst
