// PLACEHOLDER: replaced by the family's implementation (being written now).
#include "gpu_context/error.h"
#include "instructions/families.h"

namespace dmlrt::inst {

InstructionPtr make_unary(InstructionText text) {
  throw NotSupported("opcode '" + text.opcode + "' is not implemented yet");
}

}  // namespace dmlrt::inst
