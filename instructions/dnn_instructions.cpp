// DNN opcodes: make_dnn dispatches to the sub-family files (dnn_families.h). The parser accepts
// every DNN opcode (so plans that contain them load, and -explain shows them); one that is not
// implemented yet fails at run time with a clear "not supported" error.
#include "gpu_context/error.h"
#include "instructions/dnn_families.h"
#include "instructions/families.h"

namespace dmlrt::inst {
namespace {

class UnsupportedDnnInstruction final : public Instruction {
 public:
  using Instruction::Instruction;
  void execute(ExecutionContext&) override {
    // TODO(#5): batch norm and LSTM on the CPU; the whole family on the GPU.
    throw NotSupported(opcode() +
                       " is not supported on this backend yet (DNN ops arrive with issue #5)");
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
      op == "avgpooling_backward" || op == "relu_maxpooling" ||
      op == "relu_maxpooling_backward" || op == "relu_backward" || op == "bias_add" ||
      op == "bias_multiply" || op == "channel_sums" || op == "update_nesterov_x")
    return make_dnn_pool(std::move(text));
  if (op == "batch_norm2d" || op == "batch_norm2d_backward" || op == "batch_norm2d_test" ||
      op == "batch_norm2d_train")
    return make_dnn_batchnorm(std::move(text));
  if (op == "lstm" || op == "lstm_backward") return make_dnn_lstm(std::move(text));
  return make_unsupported_dnn(std::move(text));
}

}  // namespace dmlrt::inst
