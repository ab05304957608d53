// CPU kernel of einsum(equation, A, B, ...) on matrices: every operand term names its axes with one
// letter each (two for a matrix, one for a vector, i.e. a (n, 1) or (1, n) matrix); the output term
// (after "->", which is required) has two letters (a matrix), one (a column vector) or none (a
// scalar, returned as (1, 1)). Letters missing from the output are summed over; a letter
// repeated inside a term takes its diagonal.
#pragma once

#include <string>
#include <vector>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

struct EinsumSpec {
  std::vector<std::string> terms;  // one per operand
  std::string out;                 // the output's letters (0, 1 or 2)
};

// Parses and checks the equation against the number of operands; RuntimeError names what is wrong.
EinsumSpec parse_einsum(const std::string& equation, size_t operands);

// The result for the operands' actual dims; RuntimeError when a letter's sizes disagree or an
// operand's shape does not fit its term.
MatrixBlock einsum(const EinsumSpec& spec, const std::vector<const MatrixBlock*>& in);

}  // namespace dmlrt::kernels::cpu
