// DNN opcodes: make_dnn dispatches to the sub-family files (dnn_families.h); every DNN opcode of
// DESIGN.md §4 has a CPU and a GPU implementation there. An opcode the table routes here that no
// sub-family builds (a table bug, not an input error) fails at run time with NotSupported.
#include "gpu_context/error.h"
#include "instructions/dnn_families.h"
#include "instructions/families.h"

namespace dmlrt::inst {
namespace {

class UnsupportedDnnInstruction final : public Instruction {
 public:
  using Instruction::Instruction;
  void execute(ExecutionContext&) override {
    throw NotSupported(opcode() + " has no DNN implementation (the opcode table routes it to the " +
                       "DNN family, which does not build it)");
  }
};

}  // namespace

InstructionPtr make_unsupported_dnn(InstructionText text) {
  return std::make_unique<UnsupportedDnnInstruction>(std::move(text));
}

InstructionPtr make_dnn(InstructionText text) {
  const std::string& op = text.opcode;
  if (op == "conv2d" || op == "conv2d_bias_add" || op == "conv2d_backward_filter" ||
      op == "conv2d_backward_data")
    return make_dnn_conv(std::move(text));
  if (op == "maxpooling" || op == "maxpooling_backward" || op == "avgpooling" ||
      op == "avgpooling_backward" || op == "relu_maxpooling" || op == "relu_maxpooling_backward" ||
      op == "relu_backward" || op == "bias_add" || op == "bias_multiply" || op == "channel_sums" ||
      op == "update_nesterov_x")
    return make_dnn_pool(std::move(text));
  if (op == "batch_norm2d" || op == "batch_norm2d_backward" || op == "batch_norm2d_test" ||
      op == "batch_norm2d_train")
    return make_dnn_batchnorm(std::move(text));
  if (op == "lstm" || op == "lstm_backward") return make_dnn_lstm(std::move(text));
  return make_unsupported_dnn(std::move(text));
}

}  // namespace dmlrt::inst
