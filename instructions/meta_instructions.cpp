// time and exists: parsing and CPU runs (meta_instructions.h).
#include "instructions/meta_instructions.h"

#include <chrono>

#include "gpu_context/error.h"
#include "instructions/execution_context.h"

namespace dmlrt::inst {

TimeInstruction::TimeInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(1);
  out_ = operand(0);
  DMLRT_REQUIRE(out_.is_scalar(), ParseError,
                where() << ": time expects a scalar output, got " << out_.to_string());
}

void TimeInstruction::run_cpu(ExecutionContext& ec) {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  ec.set_scalar(out_, ScalarValue::int64(
                          std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()));
}

ExistsInstruction::ExistsInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 3);
  in_ = operand(0);
  out_ = operand(1);
  DMLRT_REQUIRE(out_.is_scalar(), ParseError,
                where() << ": exists expects a scalar output, got " << out_.to_string());
}

void ExistsInstruction::run_cpu(ExecutionContext& ec) {
  // A scalar operand holds the name (a literal, or a variable bound to a string).
  const std::string name = in_.is_scalar() ? ec.scalar(in_).to_string() : in_.name;
  ec.set_scalar(out_, ScalarValue::boolean(ec.contains(name)));
}

}  // namespace dmlrt::inst
