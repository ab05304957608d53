// Instructions that read the runtime rather than data: time (a nanosecond clock, SystemDS's
// DataGen `time`) and exists (whether a name is bound, SystemDS's AggregateUnary `exists`).
// CPU only.
#pragma once

#include "instructions/instruction.h"

namespace dmlrt::inst {

// time out: an INT64 nanosecond count of a monotonic clock. SystemDS returns System.nanoTime(),
// whose origin is arbitrary, so only differences and order mean anything.
class TimeInstruction final : public Instruction {
 public:
  explicit TimeInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand out_;
};

// exists in out [k]: true when the variable is bound. A string scalar names the variable
// (exists("X")); a matrix operand is the variable itself (exists(X)), so it probes its own name.
class ExistsInstruction final : public Instruction {
 public:
  explicit ExistsInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_, out_;
};

}  // namespace dmlrt::inst
