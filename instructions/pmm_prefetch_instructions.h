// Two CP instructions SystemDS's compiler inserts on its own:
//   pmm `P°X°rlen·S°out[°k]`: the permutation matrix multiply table(P, seq(1, n), rlen, n) %*% X
//       without building the table: row i of X lands in row P[i] of the (rlen, ncol(X)) output,
//       rows with P[i] = 0 are dropped (SystemDS's PMMJCPInstruction).
//   prefetch `X°out`: binds `out` to X's matrix (SystemDS starts an asynchronous fetch of a Spark
//   or
//       GPU result there; dmlrt reads data where it lives, so this is the alias alone).
// CPU only (pmm reorders rows; prefetch moves nothing).
#pragma once

#include "instructions/instruction.h"

namespace dmlrt::inst {

class PmmInstruction final : public Instruction {
 public:
  explicit PmmInstruction(InstructionText t);
  // P is a column vector with as many rows as X.
  void check(Shapes& shapes) const override;

 private:
  void run_cpu(ExecutionContext& ec) override;

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
