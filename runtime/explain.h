// -explain: prints a parsed Program back in the plan grammar (DESIGN.md §3), so the output parses
// again, with instructions in SystemDS's explain rendering or as raw strings.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "runtime/program.h"

namespace dmlrt::runtime {

// Prints `program` with FUNCTION [in=...] [out=...] annotations and FROM/TO/INCR markers.
// raw = false: instructions in SystemDS's explain rendering (° as a space, · as '.', ‡ as ", ");
// raw = true: the lossless raw instruction strings.
void print_explain(const Program& program, std::ostream& os, bool raw);

// The plan's shape errors, found without running anything: every instruction's check() (Note
// [Instruction life cycle]) against the sizes the run cannot contradict — persistent reads'
// createvar sizes and rand's literal sizes, carried by cpvar and mvvar within each straight-line
// instruction list (SystemDS's declared sizes of intermediates are estimates; anything else is
// unknown, and unknown sizes pass). One message per error, "file:line: instruction '...':
// <error>", in plan order. -explain reports them and does not run a plan that has any.
std::vector<std::string> check_plan_shapes(const Program& program);

// One instruction string in explain rendering.
std::string to_explain_rendering(const std::string& raw);

}  // namespace dmlrt::runtime
