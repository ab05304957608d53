// printf(format, args...): `printf°format·S°arg·S°…°out·S`. SystemDS formats with Java's
// String.format (INT64 arguments as Long, FP64 as Double, BOOLEAN as Boolean, STRING as String),
// prints the result with a newline and binds it to `out`. java_format_string is that formatter,
// for the conversions a DML script can feed it (see printf_instruction.cpp). CPU only.
#pragma once

#include <string>
#include <vector>

#include "instructions/instruction.h"
#include "instructions/scalar_value.h"

namespace dmlrt::inst {

// Java's String.format(fmt, args) for Long/Double/Boolean/String arguments: %[index$][flags]
// [width][.precision]conversion with conversions b B s S d o x X c C e E f g G % n and flags
// - # + space 0 , (. Throws RuntimeError naming the specifier for what Java rejects (a missing
// argument, %d of a Double, an unknown conversion, contradictory flags).
std::string java_format_string(const std::string& fmt, const std::vector<ScalarValue>& args);

class PrintfInstruction final : public Instruction {
 public:
  explicit PrintfInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  std::vector<Operand> in_;  // the format first
  Operand out_;
};

}  // namespace dmlrt::inst
