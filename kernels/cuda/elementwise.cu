// Cell-wise kernel family: binary matrix-matrix (with broadcasting) and matrix-scalar ops, and the
// ternary ifelse / +* / -*. One kernel instantiation per (op, type), so the loop body has no
// per-cell switch; contiguous operands move as 16-byte vectors (Note [Vectorised cell access] in
// kernel_utils.cuh). See elementwise.h for the operand shapes.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/cell_ops.cuh"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/scalar_ops.h"

namespace dmlrt::kernels::cuda {
namespace {

using cpu::BinaryOp;
using cpu::Broadcast;
using cpu::TernaryOp;
namespace ops = kernels::ops;

using cellops::cell;

// The one op switch of this family.
template <typename F>
void with_binary_op(BinaryOp op, F&& f) {
  detail::dispatch_enum<BinaryOp, BinaryOp::kPlus, BinaryOp::kMinus, BinaryOp::kMult,
                        BinaryOp::kDiv, BinaryOp::kPow, BinaryOp::kMod, BinaryOp::kIntDiv,
                        BinaryOp::kEq, BinaryOp::kNeq, BinaryOp::kLt, BinaryOp::kGt, BinaryOp::kLe,
                        BinaryOp::kGe, BinaryOp::kAnd, BinaryOp::kOr, BinaryOp::kMin,
                        BinaryOp::kMax, BinaryOp::kMinus1Mult, BinaryOp::kMinusNz, BinaryOp::kXor,
                        BinaryOp::kBitwAnd, BinaryOp::kBitwOr, BinaryOp::kBitwXor,
                        BinaryOp::kBitwShiftL, BinaryOp::kBitwShiftR>(op, f);
}

// Same-shape, matrix-scalar and ternary cells go through the vectorised map of kernel_utils.cuh
// (Note [Vectorised cell access]): FP32 moved 4 bytes per load, which left X+Y at 70 % and
// max(X,0) at 48 % of the copy bandwidth on the H200; 16-byte vectors, two per operand per thread,
// are expected to bring FP32 to the ~99 % FP64 X+Y had, and FP64 max(X,0) (82 %) up with it.
template <BinaryOp Op, typename T>
struct BinaryCell {
  __device__ T operator()(T x, T y) const { return cell<Op>(x, y); }
};

template <BinaryOp Op, bool kScalarLeft, typename T>
struct ScalarCell {
  T s;
  __device__ T operator()(T x) const { return kScalarLeft ? cell<Op>(s, x) : cell<Op>(x, s); }
};

template <TernaryOp Op, typename T>
struct TernaryCell {
  __device__ T operator()(T x, T y, T z) const { return cellops::ternary_cell<Op>(x, y, z); }
};

// Broadcast forms: the (r, c) of each cell picks the vector element. No __restrict__ on `a` or
// `out`: the launchers allow in-place updates (out == a).
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

// Broadcast forms with cols a multiple of the vector width and every pointer 16-byte aligned:
// each 16-byte vector lies in one row, so it takes one vector (row vector, or `a` of the
// same-shape side) or one splatted element (column vector, `a` of the outer form) per operand.
template <BinaryOp Op, typename T>
__global__ void binary_broadcast_vec_kernel(const T* a, const T* __restrict__ b, T* out,
                                            int64_t rows, int64_t cols, Broadcast bc) {
  constexpr int kW = detail::Vec16<T>::kWidth;
  constexpr int kU = detail::kCellUnroll<2>;
  const int64_t vcols = cols / kW, nvec = rows * vcols;
  const int64_t t = detail::global_thread(), stride = detail::grid_stride();
  for (int64_t v0 = t; v0 < nvec; v0 += stride * kU) {
    detail::Vec16<T> x[kU], y[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int64_t v = v0 + u * stride;
      if (v < nvec) {
        const int64_t r = v / vcols, cv = v - r * vcols;
        x[u] = bc == Broadcast::kOuter ? detail::splat16(a[r]) : detail::load_vec16(a + v * kW);
        y[u] =
            bc == Broadcast::kColVector ? detail::splat16(b[r]) : detail::load_vec16(b + cv * kW);
      }
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int64_t v = v0 + u * stride;
      if (v < nvec) {
        detail::Vec16<T> z;
#pragma unroll
        for (int e = 0; e < kW; ++e) z.v[e] = cell<Op>(x[u].v[e], y[u].v[e]);
        detail::store_vec16(out + v * kW, z);
      }
    }
  }
}

template <typename T>
void binary_mm(BinaryOp op, Broadcast bc, const T* a, const T* b, T* out, int64_t rows,
               int64_t cols, cudaStream_t stream) {
  DMLRT_REQUIRE(bc != Broadcast::kInvalid, RuntimeError,
                "binary kernel: invalid broadcast for " << rows << "x" << cols);
  const int64_t n = rows * cols;
  if (n == 0) return;
  const bool vec_broadcast = cols % detail::kVecWidth<T> == 0 && detail::is_aligned16(a) &&
                             detail::is_aligned16(b) && detail::is_aligned16(out);
  const int grid =
      detail::grid_for(vec_broadcast ? (n / detail::kVecWidth<T> + detail::kCellUnroll<2> - 1) /
                                           detail::kCellUnroll<2>
                                     : n);
  with_binary_op(op, [&](auto tag) {
    constexpr BinaryOp kOp = decltype(tag)::value;
    if (bc == Broadcast::kNone)
      detail::launch_cellwise(detail::CellOperands<T, 2>{{a, b}, {T(0), T(0)}}, out, n,
                              BinaryCell<kOp, T>{}, stream);
    else if (vec_broadcast)
      binary_broadcast_vec_kernel<kOp, T>
          <<<grid, detail::kThreads, 0, stream>>>(a, b, out, rows, cols, bc);
    else
      binary_broadcast_kernel<kOp, T>
          <<<grid, detail::kThreads, 0, stream>>>(a, b, out, rows, cols, bc);
  });
  DMLRT_CHECK_CTX(cudaGetLastError(), "binary op=" << static_cast<int>(op)
                                                   << " broadcast=" << static_cast<int>(bc) << " "
                                                   << rows << "x" << cols);
}

template <typename T>
void binary_ms(BinaryOp op, const T* a, double s, bool scalar_left, T* out, int64_t n,
               cudaStream_t stream) {
  if (n == 0) return;
  const T st = static_cast<T>(s);
  const detail::CellOperands<T, 1> cells{{a}, {T(0)}};
  with_binary_op(op, [&](auto tag) {
    constexpr BinaryOp kOp = decltype(tag)::value;
    if (scalar_left)
      detail::launch_cellwise(cells, out, n, ScalarCell<kOp, true, T>{st}, stream);
    else
      detail::launch_cellwise(cells, out, n, ScalarCell<kOp, false, T>{st}, stream);
  });
  DMLRT_CHECK_CTX(cudaGetLastError(), "binary scalar op=" << static_cast<int>(op) << " n=" << n);
}

template <typename T>
void ternary(TernaryOp op, CellArg<T> a, CellArg<T> b, CellArg<T> c, T* out, int64_t n,
             cudaStream_t stream) {
  if (n == 0) return;
  const detail::CellOperands<T, 3> cells{
      {a.data, b.data, c.data},
      {static_cast<T>(a.value), static_cast<T>(b.value), static_cast<T>(c.value)}};
  detail::dispatch_enum<TernaryOp, TernaryOp::kIfElse, TernaryOp::kPlusMult, TernaryOp::kMinusMult>(
      op, [&](auto tag) {
        detail::launch_cellwise(cells, out, n, TernaryCell<decltype(tag)::value, T>{}, stream);
      });
  DMLRT_CHECK_CTX(cudaGetLastError(), "ternary op=" << static_cast<int>(op) << " n=" << n);
}

}  // namespace

void launch_binary_matrix_matrix(cpu::BinaryOp op, cpu::Broadcast bc, const double* a,
                                 const double* b, double* out, int64_t rows, int64_t cols,
                                 cudaStream_t stream) {
  binary_mm(op, bc, a, b, out, rows, cols, stream);
}
void launch_binary_matrix_matrix(cpu::BinaryOp op, cpu::Broadcast bc, const float* a,
                                 const float* b, float* out, int64_t rows, int64_t cols,
                                 cudaStream_t stream) {
  binary_mm(op, bc, a, b, out, rows, cols, stream);
}
void launch_binary_matrix_scalar(cpu::BinaryOp op, const double* a, double s, bool scalar_left,
                                 double* out, int64_t n, cudaStream_t stream) {
  binary_ms(op, a, s, scalar_left, out, n, stream);
}
void launch_binary_matrix_scalar(cpu::BinaryOp op, const float* a, double s, bool scalar_left,
                                 float* out, int64_t n, cudaStream_t stream) {
  binary_ms(op, a, s, scalar_left, out, n, stream);
}
void launch_ternary(cpu::TernaryOp op, CellArg<double> a, CellArg<double> b, CellArg<double> c,
                    double* out, int64_t n, cudaStream_t stream) {
  ternary(op, a, b, c, out, n, stream);
}
void launch_ternary(cpu::TernaryOp op, CellArg<float> a, CellArg<float> b, CellArg<float> c,
                    float* out, int64_t n, cudaStream_t stream) {
  ternary(op, a, b, c, out, n, stream);
}

}  // namespace dmlrt::kernels::cuda
