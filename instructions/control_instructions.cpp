// print, stop and assert: parsing and CPU run (control_instructions.h).
#include <ostream>

#include "instructions/control_instructions.h"

#include "gpu_context/error.h"

namespace dmlrt::inst {

ControlInstruction::ControlInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 3);
  in_ = operand(0);
  out_ = operand(1);
  DMLRT_REQUIRE(!in_.is_matrix(), NotSupported,
                where() << ": " << opcode()
                        << " of a matrix; use print(toString(X)) in DML, which SystemDS "
                           "compiles to a string");
  if (opcode() == "print")
    kind_ = Kind::kPrint;
  else if (opcode() == "stop")
    kind_ = Kind::kStop;
  else
    kind_ = Kind::kAssert;
}

void ControlInstruction::run_cpu(ExecutionContext& ec) {
  const ScalarValue v = ec.scalar(in_);
  switch (kind_) {
    case Kind::kPrint: {
      const std::string s = v.to_string();
      ec.services().out() << s << '\n';
      ec.set_scalar(out_.name, ScalarValue::string(s));
      return;
    }
    case Kind::kStop:
      throw RuntimeError("stop: " + v.to_string());
    case Kind::kAssert:
      if (!v.to_bool()) throw RuntimeError("assertion failed: " + in_.name);
      ec.set_scalar(out_.name, ScalarValue::boolean(true));
      return;
  }
}

}  // namespace dmlrt::inst
