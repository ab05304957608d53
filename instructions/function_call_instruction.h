// The function call instruction (SystemDS's FunctionCallCPInstruction):
//   FCall°<ns>°<fname>°<opt>°<#in>°<#out>°<arg>°...°<out1>°<out2>...
// SystemDS writes every argument as `param=operand` (e.g. `b=2.5·SCALAR·FP64·true`); a bare
// operand is also accepted and binds by position. Outputs are bare variable names. The call runs
// the function's blocks through runtime/ (Services::call_function): CPU only itself.
#pragma once

#include <string>
#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class FunctionCallInstruction final : public Instruction {
 public:
  explicit FunctionCallInstruction(InstructionText t);

  // SystemDS's heavy-hitter table lists a call under the function's name.
  std::string stats_name() const override { return fname_; }

 private:
  void run_cpu(ExecutionContext& ec) override;

  std::string ns_, fname_;
  std::vector<std::string> arg_names_;  // "" = positional
  std::vector<Operand> args_;
  std::vector<std::string> outputs_;
};

}  // namespace dmlrt::inst
