// Cell-wise binary ops on host matrix blocks with SystemDS CP semantics: matrix-matrix (same shape,
// right row/column vector, or column x row "outer" vectors) and matrix-scalar in either order.
// Sparse-safe cases iterate nonzeros only and keep CSR outputs; results go through
// examine_format().
#pragma once

#include <cstdint>
#include <string>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

enum class BinaryOp {
  kPlus,
  kMinus,
  kMult,
  kDiv,
  kPow,
  kMod,
  kIntDiv,
  kEq,
  kNeq,
  kLt,
  kGt,
  kLe,
  kGe,
  kAnd,
  kOr,
  kMin,
  kMax,
  kMinus1Mult,  // 1-*: 1 - x*y
  kMinusNz,     // -nz: x != 0 ? x - y : 0
  kXor,         // xor: (x != 0) != (y != 0)
  // bitwAnd bitwOr bitwXor bitwShiftL bitwShiftR: on the operands cast to Java int (see binary.cpp)
  kBitwAnd,
  kBitwOr,
  kBitwXor,
  kBitwShiftL,
  kBitwShiftR,
};

// Every op has a device kernel (kernels/cuda/elementwise.cu); xor and the bitwise ops (kXor on,
// kept last) are not fused into cell-wise chains, whose step switch (fused_cellwise.cu) lists
// only the others.
constexpr bool binary_op_fusable(BinaryOp op) { return op < BinaryOp::kXor; }

// The op of a SystemDS opcode ("+", "min", "1-*", ...); false when `opcode` is none of them.
bool binary_op_from_opcode(const std::string& opcode, BinaryOp* op);

// One cell of `op` with SystemDS CP semantics (see binary.cpp for the Java-derived details).
double binary_apply(BinaryOp op, double x, double y);

// SystemDS IntegerDivide / Modulus, exposed for scalar code paths.
double int_divide(double x, double y);
double modulus(double x, double y);

// How the right operand of a matrix-matrix op is broadcast against the left one.
enum class Broadcast {
  kNone,       // same shape
  kColVector,  // (m, n) op (m, 1)
  kRowVector,  // (m, n) op (1, n)
  kOuter,      // (m, 1) op (1, n) -> (m, n)
  kInvalid,
};
// SystemDS only broadcasts the right operand (LibMatrixBincell.isValidDimensionsBinary).
Broadcast binary_broadcast(int64_t a_rows, int64_t a_cols, int64_t b_rows, int64_t b_cols);

// out = op(a, b); the shapes must satisfy binary_broadcast(...) != kInvalid.
MatrixBlock binary_matrix_matrix(BinaryOp op, const MatrixBlock& a, const MatrixBlock& b);
// out = op(a, s), or op(s, a) when scalar_left.
MatrixBlock binary_matrix_scalar(BinaryOp op, const MatrixBlock& a, double s, bool scalar_left);

}  // namespace dmlrt::kernels::cpu
