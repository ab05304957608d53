// Statistics and fused ternary aggregates: cov `x°y[°w]°out[°k]`, cm `x[°w]°order°out[°k]`
// (central moment), tak+* `A°B°C°out[°k]` = sum(A*B*C) and tack+* = colSums(A*B*C). cov and cm
// write FP64 scalars whatever value type the plan declares (SystemDS declares STRING). CPU runs
// in stats_instructions.cpp (kernels/cpu/stats), GPU runs in stats_gpu.cpp (kernels/cuda/stats:
// deterministic fused reductions; a scalar result is the one element read back).
#pragma once

#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

// The layout the statistics share: 2 to 6 fields, inputs, the output, an optional thread count.
class StatsInstruction : public Instruction {
 protected:
  explicit StatsInstruction(InstructionText t);

  // The dense device bytes of the matrix inputs plus `out_cells` output cells (-1 when a shape
  // is unknown).
  int64_t inputs_device_bytes(ExecutionContext& ec, int64_t out_cells) const;
  // True when the first n inputs are matrices.
  bool all_matrices(size_t n) const;

  std::vector<Operand> ins_;
  Operand out_;
};

// cov: covariance of x and y, optionally weighted.
class CovInstruction final : public StatsInstruction {
 public:
  explicit CovInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return all_matrices(ins_.size()); }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
};

// cm: central moment of x of a scalar order, optionally weighted.
class CentralMomentInstruction final : public StatsInstruction {
 public:
  explicit CentralMomentInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return all_matrices(ins_.size() - 1); }  // not the order

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
};

// tak+* (the sum) and tack+* (the column sums) of A*B*C; each input a matrix or a scalar.
class TernaryAggInstruction final : public StatsInstruction {
 public:
  explicit TernaryAggInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  // A GPU run when some input is a matrix (three scalars are the CPU's error).
  bool has_gpu_impl() const override;

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  bool col_ = false;  // tack+*
};

}  // namespace dmlrt::inst
