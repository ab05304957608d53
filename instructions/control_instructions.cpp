// print, stop and assert: `in°out[°k]`. print writes the value as DML prints it plus a newline to
// the program output; stop and a failed assert end the program with a RuntimeError.
#include <ostream>

#include "gpu_context/error.h"
#include "instructions/families.h"

namespace dmlrt::inst {
namespace {

class ControlInstruction final : public Instruction {
 public:
  explicit ControlInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(2, 3);
    in_ = operand(0);
    out_ = operand(1);
    DMLRT_REQUIRE(!in_.is_matrix(), NotSupported,
                  where() << ": " << opcode()
                          << " of a matrix; use print(toString(X)) in DML, which SystemDS "
                             "compiles to a string");
  }

  void execute(ExecutionContext& ec) override {
    const ScalarValue v = ec.scalar(in_);
    if (opcode() == "print") {
      const std::string s = v.to_string();
      ec.services().out() << s << '\n';
      ec.set_scalar(out_.name, ScalarValue::string(s));
    } else if (opcode() == "stop") {
      throw RuntimeError("stop: " + v.to_string());
    } else {  // assert
      if (!v.to_bool()) throw RuntimeError("assertion failed: " + in_.name);
      ec.set_scalar(out_.name, ScalarValue::boolean(true));
    }
  }

 private:
  Operand in_, out_;
};

}  // namespace

InstructionPtr make_control(InstructionText text) {
  return std::make_unique<ControlInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
