// Quaternary instructions: the weighted factorisation operators SystemDS's optimizer fuses out of
// U %*% t(V) patterns, never written by a user. Forms (SystemDS QuaternaryCPInstruction):
//   wsloss°X°U°V°W°out°<WeightsType>°k     W a matrix, or a scalar placeholder where unused
//   wdivmm°W°U°V°X°out°<WDivMMType>°k      X a matrix (MULT_MINUS_4), eps (EPS) or a placeholder
//   wcemm°X°U°V°eps°out°<WCeMMType>°k
//   wsigmoid°W°U°V°out°<WSigmoidType>°k
//   wumm°<unary op>°W°U°V°out°<WUMMType>°k
// U is (m, k), V is (n, k), W and X are (m, n). CPU kernels in kernels/cpu/quaternary, the GPU
// run in quaternary_gpu.cpp (Note [GPU quaternary ops]).
#pragma once

#include "instructions/instruction.h"
#include "kernels/cpu/quaternary.h"

namespace dmlrt::inst {

class QuaternaryInstruction final : public Instruction {
 public:
  explicit QuaternaryInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }
  // The inputs dense, UV' (m, n) and the output.
  int64_t device_bytes(ExecutionContext& ec) const override;

 private:
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  enum class Kind { kWsloss, kWdivmm, kWcemm, kWsigmoid, kWumm };
  // Whether the fourth input takes part in this op and type (a matrix W or X, or the scalar eps).
  bool uses_fourth() const;
  bool fourth_is_matrix() const;

  Kind kind_ = Kind::kWsloss;
  kernels::cpu::WslossType wsloss_ = kernels::cpu::WslossType::kNone;
  kernels::cpu::WdivmmType wdivmm_ = kernels::cpu::WdivmmType::kMultBasic;
  kernels::cpu::WcemmType wcemm_ = kernels::cpu::WcemmType::kBasic;
  kernels::cpu::WsigmoidType wsigmoid_ = kernels::cpu::WsigmoidType::kBasic;
  kernels::cpu::WummType wumm_ = kernels::cpu::WummType::kMult;
  kernels::cpu::UnaryOp uop_ = kernels::cpu::UnaryOp::kExp;
  Operand in_[3];   // the weights or X first, then U, V
  Operand fourth_;  // wsloss/wdivmm/wcemm only
  Operand out_;
};

}  // namespace dmlrt::inst
