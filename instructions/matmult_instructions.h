// Matrix multiply instructions: ba+* (`A°B°out[°k]` on CP, `A°B°out°k°leftT°rightT` on GPU and
// compressed lines), tsmm (`X°out°LEFT|RIGHT[°k]`) and mmchain (`X°v[°w]°out°type[°k]`); thread
// counts are ignored. CPU runs in matmult_instructions.cpp (kernels/cpu/matmult), GPU runs in
// matmult_gpu.cpp (kernels/cuda/matmult_op, blas).
#pragma once

#include "instructions/instruction.h"
#include "kernels/cpu/matmult.h"

namespace dmlrt::inst {

// ba+*: C = op(A) %*% op(B); a scalar output takes a 1x1 product.
class MatMultInstruction final : public Instruction {
 public:
  explicit MatMultInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  bool parse_flag(size_t i) const;

  Operand a_, b_, out_;
  bool trans_a_ = false, trans_b_ = false;
};

// tsmm: LEFT = t(X) %*% X, RIGHT = X %*% t(X) (SystemDS MMTSJType). On the GPU a dense X goes
// through cuBLAS syrk (one triangle) plus a triangle copy; a CSR X through ba+*'s device op
// (SpGEMM on an explicit transpose), whose result stays CSR as on the CPU.
class TsmmInstruction final : public Instruction {
 public:
  explicit TsmmInstruction(InstructionText t);

  bool has_gpu_impl() const override { return true; }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Operand x_, out_;
  bool left_ = true;
};

// mmchain: t(X) %*% (X %*% v), t(X) %*% (w * (X %*% v)), t(X) %*% ((X %*% v) - y). On the GPU
// two products through ba+*'s device op around one cell-wise kernel (Note [GPU mmchain]).
class MMChainInstruction final : public Instruction {
 public:
  explicit MMChainInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Operand x_, v_, w_, out_;
  bool has_w_ = false;
  kernels::cpu::ChainType type_ = kernels::cpu::ChainType::kXtXv;
};

}  // namespace dmlrt::inst
