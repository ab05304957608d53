// Launcher of the einsum kernel family (host-clean): one thread per output cell sums the product
// of the operands over the contracted letters in the CPU kernel's order (kernels/cpu/einsum.h).
// Pointers are device pointers; `stream` is a cudaStream_t; nothing synchronises.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// The largest equation the kernel takes; the GPU run leaves larger ones to the CPU.
constexpr int kEinsumMaxOperands = 4;
constexpr int kEinsumMaxLetters = 8;

// An equation laid out on dense row-major operands. Letters are numbered in the CPU's loop-nest
// order (EinsumLayout::letters); `stride[k][l]` is how far operand k's offset moves when letter l
// grows by one: a term "ij" of an (m, n) operand has i -> n, j -> 1, a repeated "ii" (its
// diagonal) i -> n + 1, a vector's one letter 1, and a letter the term lacks 0.
struct EinsumParams {
  int operands = 0;
  int64_t stride[kEinsumMaxOperands][kEinsumMaxLetters] = {};
  // The output's letters (rows, cols) and their ranges; -1 for an absent axis (a column vector
  // has no col letter, a scalar neither), whose range is 1.
  int row_letter = -1, col_letter = -1;
  int64_t rows = 1, cols = 1;
  // The contracted letters (those not in the output) in loop-nest order, the last fastest, with
  // their ranges.
  int sum_letters = 0;
  int sum_letter[kEinsumMaxLetters] = {};
  int64_t sum_range[kEinsumMaxLetters] = {};
};

// out (rows, cols) row-major: every cell written, also where a contracted range is 0 (then 0).
// `in` holds p.operands device pointers, each (rows, cols) row-major as its term says. Products
// and sums are in double for both element types, as the CPU computes them.
void launch_einsum(const EinsumParams& p, const double* const* in, double* out,
                   cudaStream_t stream);
void launch_einsum(const EinsumParams& p, const float* const* in, float* out, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
