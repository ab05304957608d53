// table(): ctable `A°B°W°dim1°dim2°out°ignoreZeros[°k]` and ctableexpand (the same fields with a
// `seq(1, m)·SCALAR·STRING·true` literal for the sequence side). A, B and W are matrices or
// scalars; dim1/dim2 are `value·isLiteral` pairs (`-1·true` = from the data, `N·false` = scalar
// variable N), split by hand as SystemDS does. Kernels: kernels/cpu/ctable; CPU only.
#pragma once

#include <cstdint>
#include <string>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class CtableInstruction final : public Instruction {
 public:
  explicit CtableInstruction(InstructionText t);

  // ctable: the matrix inputs agree; ctableexpand: v has one row per element of seq(1, m).
  void check(Shapes& shapes) const override;

 private:
  void run_cpu(ExecutionContext& ec) override;

  struct Dim {
    std::string value;
    bool literal = true;
  };
  Dim split_dim(const std::string& f) const;

  Operand in_[3];
  Dim dim_[2];
  Operand out_;
  bool ignore_zeros_ = false;
  bool expand_ = false;   // ctableexpand
  bool seq_left_ = true;  // ctableexpand: in_[0] is the sequence, else in_[1]
  int64_t seq_len_ = 0;   // ctableexpand: m of seq(1, m); -1 (unknown) = nrow(v)
};

}  // namespace dmlrt::inst
