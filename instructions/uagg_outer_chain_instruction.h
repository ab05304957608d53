// uaggouterchain `agg°op°X°Y°out`: SystemDS's fused agg(outer(X, Y, op)) for a column X (m, 1)
// and a row Y (1, n), which its optimizer emits for rowSums / colSums / sum / rowIndexMax /
// rowIndexMin over outer(X, Y, <comparison>) (kernels/cpu/outer_aggregate). The output is a
// matrix: (m, 1), (1, n), or (1, 1) for a full sum (SystemDS casts it with castdts). The GPU run
// is in uagg_outer_chain_gpu.cpp.
#pragma once

#include "instructions/instruction.h"
#include "kernels/cpu/outer_aggregate.h"

namespace dmlrt::inst {

class UaggOuterChainInstruction final : public Instruction {
 public:
  explicit UaggOuterChainInstruction(InstructionText t);
  // X is a column vector, Y a row vector.
  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  kernels::cpu::OuterAggKind kind_ = kernels::cpu::OuterAggKind::kAggregate;
  kernels::cpu::OuterAggDir dir_ = kernels::cpu::OuterAggDir::kAll;
  kernels::cpu::AggOp agg_ = kernels::cpu::AggOp::kSum;
  kernels::cpu::BinaryOp op_ = kernels::cpu::BinaryOp{};
  Operand x_, y_, out_;
};

}  // namespace dmlrt::inst
