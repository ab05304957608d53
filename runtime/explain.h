// -explain: prints a parsed Program back in the plan grammar (DESIGN.md §3), so the output parses
// again, with instructions in SystemDS's explain rendering or as raw strings.
#pragma once

#include <iosfwd>
#include <string>

#include "runtime/program.h"

namespace dmlrt::runtime {

// Prints `program` with FUNCTION [in=...] [out=...] annotations and FROM/TO/INCR markers.
// raw = false: instructions in SystemDS's explain rendering (° as a space, · as '.', ‡ as ", ");
// raw = true: the lossless raw instruction strings.
void print_explain(const Program& program, std::ostream& os, bool raw);

// One instruction string in explain rendering.
std::string to_explain_rendering(const std::string& raw);

}  // namespace dmlrt::runtime
