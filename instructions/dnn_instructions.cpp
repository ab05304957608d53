// DNN opcodes. The parser accepts all of them (so plans that contain them load, and -explain shows
// them); running one fails with a clear "not supported" error until the DNN issue lands.
#include "gpu_context/error.h"
#include "instructions/families.h"

namespace dmlrt::inst {
namespace {

class UnsupportedDnnInstruction final : public Instruction {
 public:
  using Instruction::Instruction;
  void execute(ExecutionContext&) override {
    // TODO(#5): CPU reference and GPU implementations of the DNN family.
    throw NotSupported(opcode() +
                       " is not supported on this backend yet (DNN ops arrive with issue #5)");
  }
};

}  // namespace

InstructionPtr make_dnn(InstructionText text) {
  return std::make_unique<UnsupportedDnnInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
