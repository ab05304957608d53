// unique(X, dir): unique `X°out[°k]` (the distinct values of X as a column), uniquer (of each row,
// zero-padded) and uniquec (of each column, zero-padded), in SystemDS's order (kernels/cpu/unique).
// GPU (unique_gpu.cpp): the distinct values found by a device sort, ordered on the host.
#pragma once

#include "instructions/instruction.h"
#include "kernels/cpu/unique.h"

namespace dmlrt::inst {

class UniqueInstruction final : public Instruction {
 public:
  explicit UniqueInstruction(InstructionText t);

  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  kernels::cpu::UniqueDir dir_;
  Operand in_, out_;
};

}  // namespace dmlrt::inst
