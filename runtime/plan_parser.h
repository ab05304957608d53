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
  // A $name / $N token left in an operand is a ParseError (Note [Unbound plan arguments] in
  // plan_parser.cpp). Plans captured from SystemDS have their arguments bound already, so a
  // caller parsing one may turn this off to keep a string literal that is exactly "$x" as text.
  bool unbound_are_errors = true;
};

// Replaces $name and $N tokens from `args`. A token without a value is left as is; the parser
// reports it where an argument was meant (Note [Unbound plan arguments]).
std::string substitute_args(const std::string& text, const PlanArgs& args);

// Parses plan text. `file` names the source in error messages. Throws ParseError naming
// file:line, the offending line and what was expected.
Program parse_plan(const std::string& text, const std::string& file, const PlanArgs& args = {});
// Reads and parses a plan file (IoError when it cannot be read).
Program parse_plan_file(const std::string& path, const PlanArgs& args = {});

// Converts one instruction in SystemDS's explain rendering (space for °, . for ·) to the raw form.
std::string explain_to_raw(const std::string& line);

}  // namespace dmlrt::runtime
