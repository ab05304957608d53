// Launchers of the ctable kernel family (host-clean): table(A, B, W) on the device as a scan of
// the cells (errors, sizes) and a scatter with atomicAdd into a dense (rows, cols) output, with the
// CPU kernel's rules (kernels/cpu/ctable.h). Pointers are device pointers; `stream` is a
// cudaStream_t; nothing synchronises. The expand form is in parameterized.h (Note [One entry per
// row]).
//
// Note [GPU ctable summation order]
// The CPU adds the weights of one output cell in input order; the GPU scatter adds them with
// atomicAdd in whatever order the threads arrive, so a cell's floating-point sum may differ in
// its last bits from run to run (and from the CPU's) when weights are fractional. Counts and
// integer-valued weights (the common table(A, B) and table(A, B, 1)) sum exactly below 2^53
// (2^24 in FP32), so those results are bit-identical to the CPU's. A sorted, deterministic
// reduction would cost a sort of every cell; tests compare with a tolerance.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// One input of ctable: p holds the cells in the linear (row-major) order of the shape (a (n, 1)
// column vector paired with a (1, n) shape reads the same), or is null and `scalar` is every cell.
template <typename T>
struct CtableInput {
  const T* p = nullptr;
  double scalar = 0;
};

struct CtableArgs {
  int64_t cells = 0;             // cells of the shape (the first matrix input)
  int64_t dim1 = -1, dim2 = -1;  // output dims given by the plan; < 0: from the data
  bool ignore_zeros = false;
};

// (1) Over every cell: a NaN in a, b or w skips it; with ignore_zeros, so do a = b = 0 (as
// indices, toLong); an index <= 0 is invalid: stats[0] = the first such cell (atomicMin; the
// caller sets it to UINT64_MAX); cells outside dim1 x dim2 are dropped; stats[1] / stats[2] = the
// largest kept row / column index (atomicMax; the caller zeroes them).
template <typename T>
void launch_ctable_scan(CtableInput<T> a, CtableInput<T> b, CtableInput<T> w,
                        const CtableArgs& args, unsigned long long* stats, cudaStream_t stream);

// (2) out (rows, cols) row-major, zeroed by the caller: out[r - 1, c - 1] += w over the kept
// cells (rows, cols at least the largest kept indices). See Note [GPU ctable summation order].
template <typename T>
void launch_ctable_scatter(CtableInput<T> a, CtableInput<T> b, CtableInput<T> w,
                           const CtableArgs& args, int64_t rows, int64_t cols, T* out,
                           cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
