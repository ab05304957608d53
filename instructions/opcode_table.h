// The one opcode table: opcode -> instruction family, and the entry point that builds an
// instruction from its text.
#pragma once

#include <string>
#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

using InstructionFactory = InstructionPtr (*)(InstructionText);

struct OpcodeEntry {
  const char* opcode;  // lower case
  InstructionFactory factory;
  const char* family;  // for -explain and the README table
  // Has a GPU run for some operand kinds (Instruction::has_gpu_impl); the backend-vs-reference
  // registry (tests/gpu/op_registry) must hold samples for every such opcode.
  bool gpu = false;
};

// nullptr when the opcode is unknown. `opcode` must be lower case.
const OpcodeEntry* find_opcode(const std::string& opcode);
const std::vector<OpcodeEntry>& opcode_table();

// Builds the instruction for `text`. Lines whose text holds ¶name¶ placeholders become an
// instruction that substitutes the current scalar values and re-parses before each execution.
// Throws ParseError for unknown opcodes, rejected execution types (SPARK/FED/OOC) and bad operands.
InstructionPtr make_instruction(InstructionText text);

}  // namespace dmlrt::inst
