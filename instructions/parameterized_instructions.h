// Parameterized builtins over matrices in SystemDS's `name=value°...°out` layout
// (reference/systemds-format.md §3): replace (target, pattern, replacement), contains (target,
// pattern -> BOOLEAN), rexpand (target, max, dir, cast, ignore) and groupedagg (target, groups,
// fn, [weights], [order], [ngroups]) — aggregate() — and toString (target, rows, cols, decimal,
// sparse, sep, linesep -> STRING), lowertri / uppertri (target, diag, values), rmempty (target,
// margin, [select], empty.return; bRmEmptyBC is a Spark hint, ignored). `k=` is accepted and
// ignored. Kernels:
// kernels/cpu/parameterized; lowertri / uppertri, rmempty, replace, contains, rexpand and
// groupedagg's sum / count / mean also run on the GPU (parameterized_gpu.cpp,
// kernels/cuda/triangle, rmempty and parameterized).
#pragma once

#include <map>
#include <string>

#include "instructions/instruction.h"
#include "kernels/cpu/parameterized.h"

namespace dmlrt::inst {

class ParameterizedInstruction final : public Instruction {
 public:
  explicit ParameterizedInstruction(InstructionText t);

  // groupedagg: groups is a column vector with one row per target row, weights target's shape.
  // rmempty: select has one cell per target row (margin=rows) or column.
  void check(Shapes& shapes) const override;

  // Everything but toString and groupedagg's variance, centralmoment, min and max.
  bool has_gpu_impl() const override {
    if (kind_ == Kind::kGroupedAgg)
      return fn_ == kernels::cpu::GroupAggFn::kSum || fn_ == kernels::cpu::GroupAggFn::kCount ||
             fn_ == kernels::cpu::GroupAggFn::kMean;
    return kind_ != Kind::kToString;
  }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  // GPU runs of replace, contains and rexpand (parameterized_gpu.cpp); rexpand answers false
  // for sizes its CSR cannot index, and run_gpu runs run_cpu instead.
  void replace_gpu(ExecutionContext& ec, mem::GpuSession& gpu);
  void contains_gpu(ExecutionContext& ec, mem::GpuSession& gpu);
  bool rexpand_gpu(ExecutionContext& ec, mem::GpuSession& gpu);
  bool grouped_gpu(ExecutionContext& ec, mem::GpuSession& gpu);

  void require(const char* name) const;
  // A value names a variable when one of that name is bound, else it is a literal (SystemDS's
  // getScalarInput); `¶v¶` placeholders are patched before this runs.
  ScalarValue value(ExecutionContext& ec, const std::string& name) const;
  double number(ExecutionContext& ec, const std::string& name) const;
  bool flag(ExecutionContext& ec, const std::string& name, bool dflt) const;

  enum class Kind { kReplace, kContains, kRexpand, kGroupedAgg, kToString, kTriangle, kRmEmpty };
  Kind kind_ = Kind::kReplace;
  std::map<std::string, std::string> params_;
  Operand out_;
  kernels::cpu::GroupAggFn fn_ = kernels::cpu::GroupAggFn::kSum;
};

}  // namespace dmlrt::inst
