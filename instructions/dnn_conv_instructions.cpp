// PLACEHOLDER: the conv sub-family of the DNN ops (being written now); until then its opcodes
// fail at run time with "not supported on this backend yet".
#include "instructions/dnn_families.h"

namespace dmlrt::inst {

InstructionPtr make_dnn_conv(InstructionText text) { return make_unsupported_dnn(std::move(text)); }

}  // namespace dmlrt::inst
