// One cell of each cell-wise op on the device (.cu only): the binary ops of kernels/cpu/binary.h,
// the unary builtins of kernels/cpu/unary.h and the ternaries of kernels/cpu/ternary.h, with
// SystemDS CP semantics through
// kernels/scalar_ops.h. The cell-wise kernels (elementwise.cu, unary.cu) and the fused cell-wise
// programs (fused_cellwise.cu) evaluate the same functions, so a fused chain computes the bits the
// separate kernels would.
#pragma once

#include <cmath>

#include "kernels/cpu/binary.h"
#include "kernels/cpu/ternary.h"
#include "kernels/cpu/unary.h"
#include "kernels/scalar_ops.h"

namespace dmlrt::kernels::cuda::cellops {

using cpu::BinaryOp;
using cpu::TernaryOp;
using cpu::UnaryOp;
namespace ops = kernels::ops;

// UtilFunctions.toInt, which the bitw* ops apply to their operands, as kernels/cpu/binary.cpp's
// java_to_int: in double whatever T (an FP32 cell widens exactly), truncation toward zero after
// an epsilon nudge of |v|, then Java's saturating (int) cast with NaN -> 0.
__device__ __forceinline__ int32_t java_to_int(double v) {
  const double t = (v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0)) * floor(fabs(v) + 0x1p-53);
  if (isnan(t)) return 0;
  if (t >= 2147483647.0) return 2147483647;
  if (t <= -2147483648.0) return -2147483647 - 1;
  return static_cast<int32_t>(t);
}

// One cell of binary Op with SystemDS CP semantics (kernels/cpu/binary.cpp).
template <BinaryOp Op, typename T>
__device__ __forceinline__ T cell(T x, T y) {
  constexpr T kOne = T(1), kZero = T(0);
  if constexpr (Op == BinaryOp::kPlus)
    return x + y;
  else if constexpr (Op == BinaryOp::kMinus)
    return x - y;
  else if constexpr (Op == BinaryOp::kMult)
    return x * y;
  else if constexpr (Op == BinaryOp::kDiv)
    return x / y;
  else if constexpr (Op == BinaryOp::kPow)
    return ops::java_pow(x, y);
  else if constexpr (Op == BinaryOp::kMod)
    return ops::modulus(x, y);
  else if constexpr (Op == BinaryOp::kIntDiv)
    return ops::int_divide(x, y);
  else if constexpr (Op == BinaryOp::kEq)
    return x == y ? kOne : kZero;
  else if constexpr (Op == BinaryOp::kNeq)
    return x != y ? kOne : kZero;
  else if constexpr (Op == BinaryOp::kLt)
    return x < y ? kOne : kZero;
  else if constexpr (Op == BinaryOp::kGt)
    return x > y ? kOne : kZero;
  else if constexpr (Op == BinaryOp::kLe)
    return x <= y ? kOne : kZero;
  else if constexpr (Op == BinaryOp::kGe)
    return x >= y ? kOne : kZero;
  else if constexpr (Op == BinaryOp::kAnd)
    return ops::truthy(x) && ops::truthy(y) ? kOne : kZero;
  else if constexpr (Op == BinaryOp::kOr)
    return ops::truthy(x) || ops::truthy(y) ? kOne : kZero;
  else if constexpr (Op == BinaryOp::kMin)
    return ops::java_min(x, y);
  else if constexpr (Op == BinaryOp::kMax)
    return ops::java_max(x, y);
  else if constexpr (Op == BinaryOp::kMinus1Mult)
    return ops::sub_rn(kOne, ops::mul_rn(x, y));
  else if constexpr (Op == BinaryOp::kXor)
    return ops::truthy(x) != ops::truthy(y) ? kOne : kZero;
  else if constexpr (Op == BinaryOp::kBitwAnd)
    return T(java_to_int(x) & java_to_int(y));
  else if constexpr (Op == BinaryOp::kBitwOr)
    return T(java_to_int(x) | java_to_int(y));
  else if constexpr (Op == BinaryOp::kBitwXor)
    return T(java_to_int(x) ^ java_to_int(y));
  else if constexpr (Op == BinaryOp::kBitwShiftL)  // Java's int shift: the count mod 32
    return T(static_cast<int32_t>(static_cast<uint32_t>(java_to_int(x)) << (java_to_int(y) & 31)));
  else if constexpr (Op == BinaryOp::kBitwShiftR)
    return T(java_to_int(x) >> (java_to_int(y) & 31));
  else
    return x != kZero ? x - y : kZero;  // kMinusNz
}

// One cell of unary Op (kernels/cpu/unary.cpp apply_unary).
template <UnaryOp Op, typename T>
__device__ __forceinline__ T unary_cell(T x) {
  if constexpr (Op == UnaryOp::kExp)
    return exp(x);
  else if constexpr (Op == UnaryOp::kLog)
    return log(x);
  else if constexpr (Op == UnaryOp::kAbs)
    return fabs(x);
  else if constexpr (Op == UnaryOp::kSqrt)
    return sqrt(x);
  else if constexpr (Op == UnaryOp::kRound)
    return ops::java_round(x);
  else if constexpr (Op == UnaryOp::kFloor)
    return floor(x);
  else if constexpr (Op == UnaryOp::kCeil)
    return ceil(x);
  else if constexpr (Op == UnaryOp::kSin)
    return sin(x);
  else if constexpr (Op == UnaryOp::kCos)
    return cos(x);
  else if constexpr (Op == UnaryOp::kTan)
    return tan(x);
  else if constexpr (Op == UnaryOp::kSinh)
    return sinh(x);
  else if constexpr (Op == UnaryOp::kCosh)
    return cosh(x);
  else if constexpr (Op == UnaryOp::kTanh)
    return tanh(x);
  else if constexpr (Op == UnaryOp::kAsin)
    return asin(x);
  else if constexpr (Op == UnaryOp::kAcos)
    return acos(x);
  else if constexpr (Op == UnaryOp::kAtan)
    return atan(x);
  else if constexpr (Op == UnaryOp::kSign)
    return ops::java_signum(x);
  else if constexpr (Op == UnaryOp::kSigmoid)
    return ops::sigmoid(x);
  else if constexpr (Op == UnaryOp::kNot)
    return x == T(0) ? T(1) : T(0);  // !NaN == 0
  else if constexpr (Op == UnaryOp::kSquare)
    return x * x;
  else if constexpr (Op == UnaryOp::kTimes2)
    return x + x;
  else if constexpr (Op == UnaryOp::kIsNan)
    return isnan(x) ? T(1) : T(0);
  else if constexpr (Op == UnaryOp::kIsInf)
    return isinf(x) ? T(1) : T(0);
  else if constexpr (Op == UnaryOp::kIsNa)
    return isnan(x) ? T(1) : T(0);
  else if constexpr (Op == UnaryOp::kSprop)
    return x * (T(1) - x);
  else if constexpr (Op == UnaryOp::kPlogp)
    return x == T(0) ? T(0) : x * log(x);
  else if constexpr (Op == UnaryOp::kLogNz)
    return x == T(0) ? T(0) : log(x);
  else
    static_assert(Op == UnaryOp::kExp, "a unary op without a device value (see DMLRT_UNARY_OPS)");
}

// One cell of ternary Op: ifelse, and +* / -* with the product and the sum rounded separately
// (no contraction into an FMA), as kernels/cpu/ternary.cpp computes them.
template <TernaryOp Op, typename T>
__device__ __forceinline__ T ternary_cell(T x, T y, T z) {
  if constexpr (Op == TernaryOp::kIfElse)
    return x != T(0) ? y : z;
  else if constexpr (Op == TernaryOp::kPlusMult)
    return ops::add_rn(x, ops::mul_rn(y, z));
  else
    return ops::sub_rn(x, ops::mul_rn(y, z));
}

}  // namespace dmlrt::kernels::cuda::cellops
