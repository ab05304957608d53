// Sorting and order statistics: rsort (order()) `M°by°decreasing°indexreturn°out[°k]` with `by` a
// scalar column or a matrix of columns; qsort `M[°W]°out[°k]` (the sorted column, or with
// weights SystemDS's (value, weight) table); qpick `sorted°q°out°VALUEPICK|RANGEPICK°inmem` and
// `sorted°out°MEDIAN|IQM°inmem` on either. Scalar results are FP64
// whatever value type the plan declares (SystemDS declares STRING). CPU: kernels/cpu/sort; GPU
// (sort_gpu.cpp): CUB radix sorts of kernels/cuda/sort, the same results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class RsortInstruction final : public Instruction {
 public:
  explicit RsortInstruction(InstructionText t);

  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
  // The 1-based sort columns `by` names (a scalar or the cells of a matrix), read on the host.
  std::vector<int64_t> sort_columns(ExecutionContext& ec) const;

  Operand in_, by_, decreasing_, index_return_, out_;
};

class QsortInstruction final : public Instruction {
 public:
  explicit QsortInstruction(InstructionText t);

  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Operand in_, weights_, out_;  // weights_ unnamed without weights
};

class QpickInstruction final : public Instruction {
 public:
  explicit QpickInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  std::string type_;  // VALUEPICK, RANGEPICK, MEDIAN or IQM
  Operand in_, q_, out_;
};

}  // namespace dmlrt::inst
