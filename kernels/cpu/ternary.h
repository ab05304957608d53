// Cell-wise ternary ops on host blocks (SystemDS TernaryCPInstruction): ifelse(c, a, b) and the
// axpy forms +* (x + s*y) and -* (x - s*y). Each operand is a scalar or a matrix; matrices must
// share one shape and 1x1 matrices act as scalars, as in SystemDS's ternaryOperations.
#pragma once

#include <cstdint>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

enum class TernaryOp {
  kIfElse,     // c != 0 ? a : b   (NaN counts as true: Java's `c != 0`)
  kPlusMult,   // x + s * y
  kMinusMult,  // x - s * y
};

double ternary_apply(TernaryOp op, double a, double b, double c);

// One input: a matrix block, or (when `matrix` is null) the scalar `value`.
struct TernaryArg {
  const MatrixBlock* matrix = nullptr;
  double value = 0.0;
  bool is_scalar_like() const {
    return matrix == nullptr || (matrix->rows() == 1 && matrix->cols() == 1);
  }
};

// The result is (rows, cols); every non-scalar-like input must be (rows, cols).
MatrixBlock ternary(TernaryOp op, const TernaryArg& a, const TernaryArg& b, const TernaryArg& c,
                    int64_t rows, int64_t cols);

}  // namespace dmlrt::kernels::cpu
