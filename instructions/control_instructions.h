// print, stop and assert: `in°out[°k]`. print writes the value as DML prints it plus a newline to
// the program output; stop and a failed assert end the program with a RuntimeError. CPU only.
#pragma once

#include "instructions/instruction.h"

namespace dmlrt::inst {

class ControlInstruction final : public Instruction {
 public:
  explicit ControlInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  enum class Kind { kPrint, kStop, kAssert };
  Kind kind_ = Kind::kPrint;
  Operand in_, out_;
};

}  // namespace dmlrt::inst
