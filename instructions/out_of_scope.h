// SystemDS opcodes dmlrt does not run, each with its one reason (Spark-only, federated, ...), so
// that a plan holding one fails with the reason instead of "unknown opcode".
#pragma once

#include <string>
#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

struct OutOfScopeOpcode {
  const char* opcode;  // as SystemDS spells it (mapLeftIndex, not mapleftindex)
  const char* reason;  // "Spark-only", "federated", "compression", "lineage", "code generation",
                       // "frame", "out-of-core", "tensor" or "legacy" (never emitted nor run)
};

// The table; tests/conformance/opcodes/out_of_scope.tsv is the same list (the [opcodes] unit test
// checks that they agree).
const std::vector<OutOfScopeOpcode>& out_of_scope_opcodes();

// nullptr when `opcode` (compared without case, as plan lines are) is not out of scope.
const OutOfScopeOpcode* find_out_of_scope(const std::string& opcode);

// "<opcode> is a <reason> instruction; dmlrt runs singlenode CP and GPU plans", and for frames
// that they are not supported yet.
std::string out_of_scope_message(const OutOfScopeOpcode& e);

// Note [Frames in plans]
// Frames are a later issue, but SystemDS's builtins hold frame lines in branches many calls never
// take (sliceLine's lattice metadata when encodeLat=FALSE, a FUNCTION with a frame parameter
// nobody calls), and SystemDS runs such programs. So the plan parser keeps a line it cannot build
// because of a frame (FramesNotSupported) as this instruction, which fails with the same message,
// naming the line, when it runs: a program fails exactly where it first needs a frame, after
// whatever it did before (as SystemDS fails where it first meets an error). Every other parse
// error still stops the plan at load.
InstructionPtr make_deferred_frame_failure(InstructionText text, std::string message);

}  // namespace dmlrt::inst
