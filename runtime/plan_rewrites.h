// Plan rewrites: passes over a parsed Program's GENERIC blocks that replace instruction patterns by
// fused instructions with the same results (DESIGN.md §1). Run once after parsing, before -explain
// and execution; each pass has a config key that turns it off.
#pragma once

#include "instructions/instruction.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace dmlrt::runtime {

// What the rewrites changed, for the debug log and tests.
struct RewriteReport {
  int conv_relu_fused = 0;  // conv2d_bias_add + max(., 0) pairs fused
  int cellwise_chains = 0;  // cell-wise chains fused
  int cellwise_steps = 0;   // the lines in them
  int transposes_folded = 0;  // r' lines folded into a ba+*'s transpose flag
};

// Applies every rewrite `config` enables (dmlrt.rewrite.*) to the main program and all functions.
RewriteReport apply_plan_rewrites(Program& program, const RuntimeConfig& config);

// The conv + ReLU pass on one instruction list (a GENERIC block's body); returns how many pairs it
// fused. See Note [Fusing conv2d_bias_add and ReLU] in plan_rewrites.cpp for when it fires.
int fuse_conv_bias_add_relu(InstructionList& list);

// The transpose pass on one instruction list: returns how many r' lines it folded into the ba+*
// that reads their result. See Note [Folding transposes into ba+*] in plan_rewrites.cpp.
int fold_transposes_into_matmult(InstructionList& list);

// The cell-wise chain pass on one instruction list: returns how many chains it fused and adds
// their lines to *steps. See Note [Fusing cell-wise chains] in plan_rewrites.cpp.
int fuse_cellwise_chains(InstructionList& list, int* steps = nullptr);

// The opcode the fused instruction reports (-explain, -stats): `conv2d_bias_add_relu`, with
// conv2d_bias_add's operand layout.
inline constexpr const char* kConvBiasAddReluOpcode = "conv2d_bias_add_relu";

// Builds a `conv2d_bias_add_relu` line (as -explain prints a rewritten plan) so that such output
// runs again; nullptr for any other opcode. Throws ParseError for a line it cannot run (¶name¶
// placeholders, bad operands).
inst::InstructionPtr make_fused_instruction(const inst::InstructionText& text);

}  // namespace dmlrt::runtime
