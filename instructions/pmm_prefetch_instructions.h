// Two CP instructions SystemDS's compiler inserts on its own:
//   pmm `P°X°rlen·S°out[°k]`: the permutation matrix multiply table(P, seq(1, n), rlen, n) %*% X
//       without building the table: row i of X lands in row P[i] of the (rlen, ncol(X)) output,
//       rows with P[i] = 0 are dropped (SystemDS's PMMJCPInstruction).
//   prefetch `X°out`: binds `out` to X's matrix (SystemDS starts an asynchronous fetch of a Spark
//   or
//       GPU result there; dmlrt reads data where it lives, so this is the alias alone).
// pmm has a GPU run (pmm_prefetch_gpu.cpp); prefetch moves nothing.
#pragma once

#include "instructions/instruction.h"

namespace dmlrt::inst {

class PmmInstruction final : public Instruction {
 public:
  explicit PmmInstruction(InstructionText t);
  // P is a column vector with as many rows as X.
  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
  // The output's rows: the rlen scalar, checked (RuntimeError when negative).
  int64_t output_rows(ExecutionContext& ec) const;
  // Raises the CPU kernel's error for entry `value` of P's 0-based row `row`.
  [[noreturn]] void bad_entry(int64_t row, double value, int64_t rlen) const;

  Operand p_, x_, rlen_, out_;
};

class PrefetchInstruction final : public Instruction {
 public:
  explicit PrefetchInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_, out_;
};

}  // namespace dmlrt::inst
