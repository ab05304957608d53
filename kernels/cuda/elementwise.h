// Launchers of the cell-wise kernel family (host-clean): binary ops of DESIGN.md §4 on dense
// operands (same shape, right row/column vector, column x row outer, matrix-scalar either way) and
// the ternary ifelse / +* / -*. Cell semantics are the CPU backend's (kernels/cpu/binary.h,
// ternary.h), via kernels/scalar_ops.h. Pointers are device pointers; `stream` is a cudaStream_t.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"
#include "kernels/cpu/binary.h"
#include "kernels/cpu/ternary.h"

namespace dmlrt::kernels::cuda {

// out (rows, cols) row-major = op(a, b), with the operand shapes of `bc`:
//   kNone      a (rows, cols), b (rows, cols)
//   kColVector a (rows, cols), b (rows, 1)
//   kRowVector a (rows, cols), b (1, cols)
//   kOuter     a (rows, 1),    b (1, cols)
// `out` may alias `a` or (for kNone) `b`. kInvalid is rejected with RuntimeError.
void launch_binary_matrix_matrix(cpu::BinaryOp op, cpu::Broadcast bc, const double* a,
                                 const double* b, double* out, int64_t rows, int64_t cols,
                                 cudaStream_t stream);
void launch_binary_matrix_matrix(cpu::BinaryOp op, cpu::Broadcast bc, const float* a,
                                 const float* b, float* out, int64_t rows, int64_t cols,
                                 cudaStream_t stream);

// out[i] = op(a[i], s), or op(s, a[i]) when scalar_left, for n cells (s is rounded to the element
// type first). `out` may alias `a`.
void launch_binary_matrix_scalar(cpu::BinaryOp op, const double* a, double s, bool scalar_left,
                                 double* out, int64_t n, cudaStream_t stream);
void launch_binary_matrix_scalar(cpu::BinaryOp op, const float* a, double s, bool scalar_left,
                                 float* out, int64_t n, cudaStream_t stream);

// One operand of a ternary op: n cells at `data`, or the scalar `value` when `data` is null
// (the caller passes a 1x1 matrix's value as a scalar, as SystemDS does).
template <typename T>
struct CellArg {
  const T* data = nullptr;
  double value = 0.0;
};

// out[i] = op(a, b, c) for n cells: ifelse (a != 0 ? b : c, NaN counts as true), +* (a + b*c),
// -* (a - b*c), products rounded before the sum as on the CPU. Every matrix operand has n cells.
void launch_ternary(cpu::TernaryOp op, CellArg<double> a, CellArg<double> b, CellArg<double> c,
                    double* out, int64_t n, cudaStream_t stream);
void launch_ternary(cpu::TernaryOp op, CellArg<float> a, CellArg<float> b, CellArg<float> c,
                    float* out, int64_t n, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
