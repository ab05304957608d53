// Cell-wise kernel family: binary matrix-matrix (with broadcasting) and matrix-scalar ops, and the
// ternary ifelse / +* / -*. One kernel instantiation per (op, type), so the loop body has no
// per-cell switch; see elementwise.h for the operand shapes.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/scalar_ops.h"

namespace dmlrt::kernels::cuda {
namespace {

using cpu::BinaryOp;
using cpu::Broadcast;
using cpu::TernaryOp;
namespace ops = kernels::ops;

// One cell of Op with SystemDS CP semantics (kernels/cpu/binary.cpp).
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
  else
    return x != kZero ? x - y : kZero;  // kMinusNz
}

// The one op switch of this family.
template <typename F>
void with_binary_op(BinaryOp op, F&& f) {
  detail::dispatch_enum<BinaryOp, BinaryOp::kPlus, BinaryOp::kMinus, BinaryOp::kMult,
                        BinaryOp::kDiv, BinaryOp::kPow, BinaryOp::kMod, BinaryOp::kIntDiv,
                        BinaryOp::kEq, BinaryOp::kNeq, BinaryOp::kLt, BinaryOp::kGt, BinaryOp::kLe,
                        BinaryOp::kGe, BinaryOp::kAnd, BinaryOp::kOr, BinaryOp::kMin,
                        BinaryOp::kMax, BinaryOp::kMinus1Mult, BinaryOp::kMinusNz>(op, f);
}

// No __restrict__ on `out`: the launchers allow in-place updates (out == a).
template <BinaryOp Op, typename T>
__global__ void binary_same_shape_kernel(const T* a, const T* b, T* out, int64_t n) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    out[i] = cell<Op>(a[i], b[i]);
}

// Broadcast forms: the (r, c) of each cell picks the vector element.
template <BinaryOp Op, typename T>
__global__ void binary_broadcast_kernel(const T* a, const T* __restrict__ b, T* out, int64_t rows,
                                        int64_t cols, Broadcast bc) {
  const int64_t n = rows * cols;
  const int64_t start = detail::global_thread(), stride = detail::grid_stride();
  if (start >= n) return;
  detail::RowColWalk w(start, stride, cols);
  for (int64_t i = start; i < n; i += stride, w.advance()) {
    const T x = bc == Broadcast::kOuter ? a[w.r] : a[i];
    const T y = bc == Broadcast::kColVector ? b[w.r] : b[w.c];
    out[i] = cell<Op>(x, y);
  }
}

template <BinaryOp Op, bool kScalarLeft, typename T>
__global__ void binary_scalar_kernel(const T* a, T s, T* out, int64_t n) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    out[i] = kScalarLeft ? cell<Op>(s, a[i]) : cell<Op>(a[i], s);
}

template <TernaryOp Op, typename T>
__global__ void ternary_kernel(CellArg<T> a, CellArg<T> b, CellArg<T> c, T* out, int64_t n) {
  const T sa = static_cast<T>(a.value), sb = static_cast<T>(b.value), sc = static_cast<T>(c.value);
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride()) {
    const T x = a.data ? a.data[i] : sa;
    const T y = b.data ? b.data[i] : sb;
    const T z = c.data ? c.data[i] : sc;
    if constexpr (Op == TernaryOp::kIfElse)
      out[i] = x != T(0) ? y : z;
    else if constexpr (Op == TernaryOp::kPlusMult)
      out[i] = ops::add_rn(x, ops::mul_rn(y, z));
    else
      out[i] = ops::sub_rn(x, ops::mul_rn(y, z));
  }
}

template <typename T>
void binary_mm(BinaryOp op, Broadcast bc, const T* a, const T* b, T* out, int64_t rows,
               int64_t cols, void* stream) {
  DMLRT_REQUIRE(bc != Broadcast::kInvalid, RuntimeError,
                "binary kernel: invalid broadcast for " << rows << "x" << cols);
  const int64_t n = rows * cols;
  if (n == 0) return;
  const int grid = detail::grid_for(n);
  with_binary_op(op, [&](auto tag) {
    constexpr BinaryOp kOp = decltype(tag)::value;
    if (bc == Broadcast::kNone)
      binary_same_shape_kernel<kOp, T>
          <<<grid, detail::kThreads, 0, detail::as_stream(stream)>>>(a, b, out, n);
    else
      binary_broadcast_kernel<kOp, T>
          <<<grid, detail::kThreads, 0, detail::as_stream(stream)>>>(a, b, out, rows, cols, bc);
  });
  DMLRT_CUDA_CHECK_CTX(cudaGetLastError(), "binary op=" << static_cast<int>(op)
                                                        << " broadcast=" << static_cast<int>(bc)
                                                        << " " << rows << "x" << cols);
}

template <typename T>
void binary_ms(BinaryOp op, const T* a, double s, bool scalar_left, T* out, int64_t n,
               void* stream) {
  if (n == 0) return;
  const int grid = detail::grid_for(n);
  const T st = static_cast<T>(s);
  with_binary_op(op, [&](auto tag) {
    constexpr BinaryOp kOp = decltype(tag)::value;
    if (scalar_left)
      binary_scalar_kernel<kOp, true, T>
          <<<grid, detail::kThreads, 0, detail::as_stream(stream)>>>(a, st, out, n);
    else
      binary_scalar_kernel<kOp, false, T>
          <<<grid, detail::kThreads, 0, detail::as_stream(stream)>>>(a, st, out, n);
  });
  DMLRT_CUDA_CHECK_CTX(cudaGetLastError(),
                       "binary scalar op=" << static_cast<int>(op) << " n=" << n);
}

template <typename T>
void ternary(TernaryOp op, CellArg<T> a, CellArg<T> b, CellArg<T> c, T* out, int64_t n,
             void* stream) {
  if (n == 0) return;
  const int grid = detail::grid_for(n);
  detail::dispatch_enum<TernaryOp, TernaryOp::kIfElse, TernaryOp::kPlusMult, TernaryOp::kMinusMult>(
      op, [&](auto tag) {
        ternary_kernel<decltype(tag)::value, T>
            <<<grid, detail::kThreads, 0, detail::as_stream(stream)>>>(a, b, c, out, n);
      });
  DMLRT_CUDA_CHECK_CTX(cudaGetLastError(), "ternary op=" << static_cast<int>(op) << " n=" << n);
}

}  // namespace

void launch_binary_matrix_matrix(cpu::BinaryOp op, cpu::Broadcast bc, const double* a,
                                 const double* b, double* out, int64_t rows, int64_t cols,
                                 void* stream) {
  binary_mm(op, bc, a, b, out, rows, cols, stream);
}
void launch_binary_matrix_matrix(cpu::BinaryOp op, cpu::Broadcast bc, const float* a,
                                 const float* b, float* out, int64_t rows, int64_t cols,
                                 void* stream) {
  binary_mm(op, bc, a, b, out, rows, cols, stream);
}
void launch_binary_matrix_scalar(cpu::BinaryOp op, const double* a, double s, bool scalar_left,
                                 double* out, int64_t n, void* stream) {
  binary_ms(op, a, s, scalar_left, out, n, stream);
}
void launch_binary_matrix_scalar(cpu::BinaryOp op, const float* a, double s, bool scalar_left,
                                 float* out, int64_t n, void* stream) {
  binary_ms(op, a, s, scalar_left, out, n, stream);
}
void launch_ternary(cpu::TernaryOp op, CellArg<double> a, CellArg<double> b, CellArg<double> c,
                    double* out, int64_t n, void* stream) {
  ternary(op, a, b, c, out, n, stream);
}
void launch_ternary(cpu::TernaryOp op, CellArg<float> a, CellArg<float> b, CellArg<float> c,
                    float* out, int64_t n, void* stream) {
  ternary(op, a, b, c, out, n, stream);
}

}  // namespace dmlrt::kernels::cuda
