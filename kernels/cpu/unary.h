// CPU kernels of the unary builtins: cell-wise functions (exp, round, sigmoid, ...), log with a
// base, the column-wise cumulative scans (cumsum, cumprod, cummin, cummax, cumsumprod) and the
// row-wise softmax. Semantics are SystemDS's CP backend (see java_math.h).
#pragma once

#include <string>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// Every cell-wise unary op, said once: X(enum name, SystemDS opcode, sparse-safe: f(0) == 0). The
// enum, the opcode mapping, sparse safety, and the GPU kernels' op dispatch (kernels/cuda/unary.cu,
// kernels/cuda/fused_cellwise.cu) are generated from this list; an op's value is in apply_unary
// (CPU) and unary_cell (kernels/cuda/cell_ops.cuh, GPU). docs/CONTRIBUTING.md adds one.
#define DMLRT_UNARY_OPS(X)                                                                       \
  X(kExp, "exp", false)                                                                          \
  X(kLog, "log", false) X(kAbs, "abs", true) X(kSqrt, "sqrt", true) X(kRound, "round", true)     \
      X(kFloor, "floor", true) X(kCeil, "ceil", true) X(kSin, "sin", true) X(kCos, "cos", false) \
          X(kTan, "tan", true) X(kSinh, "sinh", true) X(kCosh, "cosh", false)                    \
              X(kTanh, "tanh", true) X(kAsin, "asin", true) X(kAcos, "acos", false)              \
                  X(kAtan, "atan", true) X(kSign, "sign", true) X(kSigmoid, "sigmoid", false)    \
                      X(kNot, "!", false) X(kSquare, "^2", true) X(kTimes2, "*2", true)          \
                          X(kIsNan, "isnan", true) X(kIsInf, "isinf", true) X(kIsNa, "isna", true) \
                              X(kSprop, "sprop", true) X(kPlogp, "plogp", true)          \
                                  X(kLogNz, "log_nz", true)

enum class UnaryOp {
#define DMLRT_UNARY_ENUM(name, opcode, sparse_safe) name,
  DMLRT_UNARY_OPS(DMLRT_UNARY_ENUM)
#undef DMLRT_UNARY_ENUM
};
#define DMLRT_UNARY_COUNT(name, opcode, sparse_safe) +1
constexpr int kUnaryOpCount = 0 DMLRT_UNARY_OPS(DMLRT_UNARY_COUNT);
#undef DMLRT_UNARY_COUNT

// The op of a SystemDS opcode ("exp", "!", "^2", ...); false when `opcode` is none of them.
bool unary_op_from_opcode(const std::string& opcode, UnaryOp* op);
const char* opcode_of(UnaryOp op);

// f(0) == 0: such ops keep a sparse input sparse and touch only its nonzeros.
bool is_sparse_safe(UnaryOp op);

// One value, as SystemDS's Builtin / unary function objects compute it.
double apply_unary(UnaryOp op, double x);

// (m, n) -> (m, n) cell-wise; the result's format is chosen by examine_format().
MatrixBlock unary(const MatrixBlock& in, UnaryOp op);

// log(x) / log(base) (SystemDS's two-argument log): matrix-scalar, scalar-matrix, and
// matrix-matrix where `base` has the shape of `x` or is a (m, 1) column / (1, n) row vector.
// The caller checks shapes (ShapeError is thrown here too, as a guard).
double log_base(double x, double base);
MatrixBlock log_base(const MatrixBlock& x, double base);
MatrixBlock log_base(double x, const MatrixBlock& base);
MatrixBlock log_base(const MatrixBlock& x, const MatrixBlock& base);

enum class CumOp { kSum, kProd, kMin, kMax };

// (m, n) -> (m, n): out[i][j] = op(out[i-1][j], in[i][j]) down each column. kSum uses Kahan
// summation per column; kMin/kMax propagate NaN as Java's Math.min/max.
MatrixBlock cumulative(const MatrixBlock& in, CumOp op);

// (m, n) -> (m, n): out[i][j] = sum of in[i][0..j] along each row (SystemDS's rowCumsum, opcode
// urowcumk+), Kahan-summed as ucumk+.
MatrixBlock row_cumsum(const MatrixBlock& in);

// (m, 2) -> (m, 1): out[i] = a[i] + b[i] * out[i-1] with out[-1] = 0, for in = [a, b]
// (SystemDS's cumsumprod, opcode ucumk+*). Throws ShapeError unless in has 2 columns.
MatrixBlock cumsumprod(const MatrixBlock& in);

// (m, n) -> (m, n): exp(x - rowMax) / rowSum(exp(x - rowMax)) per row.
MatrixBlock softmax(const MatrixBlock& in);

}  // namespace dmlrt::kernels::cpu
