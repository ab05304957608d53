// countDistinct and countDistinctApprox: uacd `X°out[°k]` (a scalar), uacdr / uacdc (an (m, 1) /
// (1, n) matrix of per-row / per-column counts), and the approximate uacdap, uacdapr, uacdapc
// (kernels/cpu/count_distinct). All six also run on the GPU (count_distinct_gpu.cpp: a device sort
// by (row or column, value); the approximate ones sort KMV keys, kernels/kmv.h).
#pragma once

#include "instructions/instruction.h"
#include "kernels/cpu/count_distinct.h"

namespace dmlrt::inst {

class CountDistinctInstruction final : public Instruction {
 public:
  explicit CountDistinctInstruction(InstructionText t);

  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  kernels::cpu::CountDistinctDir dir_;
  bool approx_ = false;
  Operand in_, out_;
};

}  // namespace dmlrt::inst
