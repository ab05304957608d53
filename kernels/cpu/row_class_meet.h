// CPU kernel of rowClassMeet (opcode rcm, SystemDS's LibCommonsMath.computeRCM): per row, the
// meet (coarsest common refinement) of the equivalence classes two label matrices define.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

struct ClassMeet {
  MatrixBlock c, n;  // (max(ma, mb), max(na, nb)) each
};

// Labels are A's and B's cells cast to int as Java does (truncated; NaN is 0); a cell takes part
// when both labels are nonzero, over the first min(na, nb) columns. For each row i of A (B's row
// i, or its only row when B has one row): cells with the same (A, B) label pair form one class;
// C numbers the classes 1, 2, ... in the iteration order of the java.util.HashMap SystemDS keeps
// them in (Note [rcm label order] in row_class_meet.cpp), N holds each cell's class size; both
// are 0 elsewhere (including rows past A's). The caller checks that B has one row or at least
// as many as A.
ClassMeet row_class_meet(const MatrixBlock& a, const MatrixBlock& b);

// The class numbers row_class_meet gives label pairs, for rows listed by their distinct pairs in
// first-occurrence order: pairs [row_begin[r], row_begin[r + 1]) are one row's, rows in order
// (a row without pairs may be left out: it changes nothing). numbers[k] is pair k's class number
// (1, 2, ... within its row). The GPU run's host step (Note [GPU rcm]).
std::vector<int64_t> class_numbers(const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                                   const std::vector<int64_t>& row_begin);

}  // namespace dmlrt::kernels::cpu
