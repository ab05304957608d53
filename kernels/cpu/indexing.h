// Range indexing on the CPU: X[rows, cols] (right indexing) and X[rows, cols] = Y / = s (left
// indexing) on dense and CSR blocks. Ranges are 0-based and half-open here; the instructions
// translate DML's 1-based inclusive indices and check the bounds.
#pragma once

#include <cstdint>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// (m, n) -> (r1-r0, c1-c0): rows [r0, r1), columns [c0, c1) of `in`.
MatrixBlock slice(const MatrixBlock& in, int64_t r0, int64_t r1, int64_t c0, int64_t c1);

// A copy of `target` (m, n) with the (p, q) block at (r0, c0) replaced by `rhs` (p, q).
MatrixBlock assign_range(const MatrixBlock& target, const MatrixBlock& rhs, int64_t r0, int64_t c0);

// A copy of `target` with rows [r0, r1) x columns [c0, c1) set to `value`.
MatrixBlock assign_scalar(const MatrixBlock& target, double value, int64_t r0, int64_t r1,
                          int64_t c0, int64_t c1);

}  // namespace dmlrt::kernels::cpu
