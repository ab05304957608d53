// paramserv(): SystemDS's parameter server for data-parallel training, in LOCAL mode
// (`CP°paramserv°name=value°...°out·LIST`; Note [paramserv] in paramserv_instruction.cpp). k
// workers run the update function (`upd`) on batches of their part of features/labels and push
// gradients; the server applies the aggregation function (`agg`) per BSP round, per ASP push or
// per SBP round, and the result is the final model list. Workers are threads with their own
// interpreters (inst::Services::run_workers), on a GPU run each with a GPU session of its own.
#pragma once

#include <map>
#include <string>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class ParamservInstruction final : public Instruction {
 public:
  explicit ParamservInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  // The parameter's text: a variable's value when one of that name is bound, else the literal.
  std::string text_of(ExecutionContext& ec, const std::string& name, const std::string& dflt) const;
  int64_t integer(ExecutionContext& ec, const std::string& name, int64_t dflt) const;

  std::map<std::string, std::string> params_;
  Operand out_;
};

}  // namespace dmlrt::inst
