// Placeholder: filled in by issue #5.
#include "instructions/dnn_families.h"

namespace dmlrt::inst {

InstructionPtr make_dnn_lstm(InstructionText text) { return make_unsupported_dnn(std::move(text)); }

}  // namespace dmlrt::inst
