// cdf and invcdf, parameterized builtins over scalars (pnorm, qnorm, pt, qt, pchisq, qchisq, pf,
// qf, pexp, qexp and cdf()/icdf()): `dist=D°target=x°<params>°out` with the parameters in any
// order; dist is normal (mean, sd), exp (rate), chisq (df), t (df) or f (df1, df2); cdf also takes
// lower.tail. A class of its own beside ParameterizedInstruction: scalar in, scalar out, no
// matrix. Kernel: kernels/cpu/distribution (Boost.Math). CPU only.
#pragma once

#include <map>
#include <string>

#include "instructions/instruction.h"
#include "kernels/cpu/distribution.h"

namespace dmlrt::inst {

class DistributionInstruction final : public Instruction {
 public:
  explicit DistributionInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  // A value names a scalar variable when one of that name is bound, else it is a literal (as
  // SystemDS's getScalarInput); the number as SystemDS's Double.parseDouble reads it.
  double number(ExecutionContext& ec, const std::string& name) const;
  double number_text(const std::string& text, const std::string& name) const;
  // SystemDS's UtilFunctions.parseToInt: a fractional value is floored.
  int64_t integer(ExecutionContext& ec, const std::string& name) const;

  bool inverse_ = false;
  kernels::cpu::Distribution dist_ = kernels::cpu::Distribution::kNormal;
  std::map<std::string, std::string> params_;
  Operand out_;
};

}  // namespace dmlrt::inst
