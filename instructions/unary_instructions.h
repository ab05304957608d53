// Unary builtins: cell-wise functions on matrices and scalars, log with a base (SystemDS's Binary
// form of log), isnan, the cumulative column scans ucumk+ ucum* ucummin ucummax ucumk+*, the row
// scan urowcumk+, and softmax.
// Layouts (SystemDS): matrix `in°out°k[°inplace]` (CP) or `in°out` (GPU); scalar `in°out°k`;
// log with a base `x°base°out[°k]`. The trailing k and inplace flag are accepted and ignored.
// CPU runs in unary_instructions.cpp (kernels/cpu/unary), GPU runs in unary_gpu.cpp
// (kernels/cuda/unary).
#pragma once

#include "instructions/instruction.h"
#include "kernels/cpu/unary.h"

namespace dmlrt::inst {

// Every unary opcode; log only in its Unary form (see make).
class UnaryInstruction final : public Instruction {
 public:
  explicit UnaryInstruction(InstructionText t);
  // The opcode table's constructor for log, which has two forms (CPInstructionParser): the Unary
  // one (this class) when its third field is the thread count or it has only in°out (the GPU
  // layout), else the Binary one with a base (LogBaseInstruction).
  static InstructionPtr make(InstructionText t);

  void check(Shapes& shapes) const override;
  // Matrix forms run on the GPU; scalar forms stay on the CPU (a scalar is not worth a launch).
  bool has_gpu_impl() const override { return in_.is_matrix(); }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  // What the opcode computes, beyond the cell-wise functions of kernels/cpu/unary.h.
  enum class Kind { kCellwise, kCumulative, kCumSumProd, kRowCumSum, kSoftmax };

  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  ScalarValue scalar_result(const ScalarValue& v) const;

  Operand in_, out_;
  Kind kind_ = Kind::kCellwise;
  kernels::cpu::UnaryOp op_ = kernels::cpu::UnaryOp::kExp;
  kernels::cpu::CumOp cum_ = kernels::cpu::CumOp::kSum;
};

// log(x, base) = log(x) / log(base): `x°base°out[°k]` with matrix or scalar x and base.
class LogBaseInstruction final : public Instruction {
 public:
  explicit LogBaseInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  // Forms with a matrix run on the GPU; log of two scalars stays on the CPU.
  bool has_gpu_impl() const override { return x_.is_matrix() || base_.is_matrix(); }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  // A scalar operand's value; a STRING is an error.
  static double number(ExecutionContext& ec, const Operand& op);

  Operand x_, base_, out_;
};

}  // namespace dmlrt::inst
