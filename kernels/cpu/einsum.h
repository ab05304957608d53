// CPU kernel of einsum(equation, A, B, ...) on matrices: every operand term names its axes with one
// letter each (two for a matrix, one for a vector, i.e. a (n, 1) or (1, n) matrix); the output term
// (after "->", which is required) has two letters (a matrix), one (a column vector) or none (a
// scalar, returned as (1, 1)). Letters missing from the output are summed over; a letter
// repeated inside a term takes its diagonal.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

struct EinsumSpec {
  std::vector<std::string> terms;  // one per operand
  std::string out;                 // the output's letters (0, 1 or 2)
};

// Parses and checks the equation against the number of operands; RuntimeError names what is wrong.
EinsumSpec parse_einsum(const std::string& equation, size_t operands);

// Every letter's range from the operands' (rows, cols), in the order of the loop nest: letters
// by first appearance across the terms, the last one fastest. The GPU run (instructions/
// einsum_gpu.cpp) sums each output cell over the others in this same order. RuntimeError when a
// letter's sizes disagree or an operand's shape does not fit its term.
struct EinsumLayout {
  std::string letters;
  std::vector<int64_t> range;  // per letter
  int64_t rows = 1, cols = 1;  // the output's dims ((1, 1) for a scalar)
};
EinsumLayout einsum_layout(const EinsumSpec& spec,
                           const std::vector<std::pair<int64_t, int64_t>>& dims);

// The result for the operands' actual dims; RuntimeError as einsum_layout.
MatrixBlock einsum(const EinsumSpec& spec, const std::vector<const MatrixBlock*>& in);

}  // namespace dmlrt::kernels::cpu
