// The plan-file parser (DESIGN.md §3): block grammar, raw and explain instruction renderings,
// ‡-joined instructions, $name/$1 argument substitution.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/program.h"

namespace dmlrt::runtime {

struct PlanArgs {
  std::map<std::string, std::string> named;  // -nvargs name=value  -> $name
  std::vector<std::string> positional;       // -args v1 v2        -> $1 $2
};

// Replaces $name and $N tokens from `args`. A token without a value is left as is (the parser
// reports it if it ends up in an instruction).
std::string substitute_args(const std::string& text, const PlanArgs& args);

// Parses plan text. `file` names the source in error messages. Throws ParseError naming
// file:line, the offending line and what was expected.
Program parse_plan(const std::string& text, const std::string& file, const PlanArgs& args = {});
// Reads and parses a plan file (IoError when it cannot be read).
Program parse_plan_file(const std::string& path, const PlanArgs& args = {});

// Converts one instruction in SystemDS's explain rendering (space for °, . for ·) to the raw form.
std::string explain_to_raw(const std::string& line);

}  // namespace dmlrt::runtime
