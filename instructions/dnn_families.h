// The DNN family's sub-families (one file each) and the fallback for DNN opcodes not implemented
// yet. make_dnn (dnn_instructions.cpp) dispatches by opcode.
#pragma once

#include "instructions/instruction.h"

namespace dmlrt::inst {

// dnn_conv_instructions.cpp: conv2d conv2d_bias_add conv2d_backward_filter conv2d_backward_data
InstructionPtr make_dnn_conv(InstructionText text);
// A conv2d_bias_add line whose output is max(conv + bias, 0) (ReLU fused on the GPU), for a plan
// rewrite that folds a following relu into the convolution.
InstructionPtr make_conv2d_bias_add_relu(InstructionText text);
// dnn_pool_instructions.cpp: maxpooling maxpooling_backward avgpooling avgpooling_backward
//   relu_maxpooling relu_maxpooling_backward relu_backward bias_add bias_multiply channel_sums
//   update_nesterov_x
InstructionPtr make_dnn_pool(InstructionText text);
// dnn_batchnorm_instructions.cpp: batch_norm2d batch_norm2d_backward batch_norm2d_test
//   batch_norm2d_train
InstructionPtr make_dnn_batchnorm(InstructionText text);
// dnn_lstm_instructions.cpp: lstm lstm_backward
InstructionPtr make_dnn_lstm(InstructionText text);
// An instruction whose execution fails with NotSupported: the sub-families' answer to an opcode
// they do not build (unreachable through the opcode table).
InstructionPtr make_unsupported_dnn(InstructionText text);

}  // namespace dmlrt::inst
