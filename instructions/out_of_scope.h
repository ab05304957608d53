// SystemDS opcodes dmlrt does not run, each with its one reason (Spark-only, federated, ...), so
// that a plan holding one fails with the reason instead of "unknown opcode".
#pragma once

#include <string>
#include <vector>

namespace dmlrt::inst {

struct OutOfScopeOpcode {
  const char* opcode;  // as SystemDS spells it (mapLeftIndex, not mapleftindex)
  const char* reason;  // "Spark-only", "federated", "compression", "lineage", "code generation",
                       // "frame", "out-of-core" or "tensor"
};

// The table; tests/conformance/opcodes/out_of_scope.tsv is the same list (the [opcodes] unit test
// checks that they agree).
const std::vector<OutOfScopeOpcode>& out_of_scope_opcodes();

// nullptr when `opcode` (compared without case, as plan lines are) is not out of scope.
const OutOfScopeOpcode* find_out_of_scope(const std::string& opcode);

// "<opcode> is a <reason> instruction; dmlrt runs singlenode CP and GPU plans", and for frames
// that they are not supported yet.
std::string out_of_scope_message(const OutOfScopeOpcode& e);

}  // namespace dmlrt::inst
