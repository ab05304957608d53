// Unary aggregates (sum, sum of squares, prod, mean, max, min, var over all cells, rows or
// columns; rowIndexMax/Min) and nrow/ncol/length. Layouts (SystemDS): `in°out°k` (CP; out is a
// scalar for full aggregates, a (m, 1) / (1, n) matrix for row / column ones), `in°out` (GPU),
// `in°out°k°1` for uarimax/uarimin, `in°out[°k]` for nrow/ncol/length (their input may carry the
// literal flag, `X·MATRIX·FP64·false`). Trailing k and flags are accepted and ignored. CPU runs in
// aggregate_instructions.cpp (kernels/cpu/aggregate), GPU run in aggregate_gpu.cpp
// (kernels/cuda/reduce).
#pragma once

#include "instructions/instruction.h"
#include "kernels/cpu/aggregate.h"

namespace dmlrt::inst {

// ua+ uak+ uar+ uark+ uac+ uack+ ua* uar* uac* uamean uarmean uacmean uamax uarmax uacmax uamin
// uarmin uacmin uasqk+ uarsqk+ uacsqk+ uavar uarvar uacvar uarimax uarimin uatrace uaktrace.
class AggregateInstruction final : public Instruction {
 public:
  // What an opcode computes (the table in aggregate_instructions.cpp).
  // kDiag: the diagonal of a square matrix (trace).
  enum class Direction { kAll, kRow, kCol, kDiag };
  enum class Kind { kAggregate, kIndexMax, kIndexMin };

  explicit AggregateInstruction(InstructionText t);

  // trace: the input is square.
  void check(Shapes& shapes) const override;

  // Every aggregate runs on the GPU too.
  bool has_gpu_impl() const override { return true; }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Kind kind_ = Kind::kAggregate;
  Direction dir_ = Direction::kAll;
  kernels::cpu::AggOp op_ = kernels::cpu::AggOp::kSum;
  Operand in_, out_;
};

// nrow, ncol, length: INT64 from the matrix's dimensions, without reading its file when createvar
// (or an earlier op) already knows them. CPU only: they read metadata.
class DimsInstruction final : public Instruction {
 public:
  explicit DimsInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_, out_;
};

}  // namespace dmlrt::inst
