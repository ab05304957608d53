// f applied to the stored values of a CSR block, on the thread pool: the sparse-safe unary ops and
// matrix-scalar ops whose image of zero is zero (x * 2, abs, round) keep the input's pattern minus
// the cells f maps to zero.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/cpu/parallel.h"
#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// A CSR (rows, cols) block holding f(v) for every stored v of `in` (CSR) where f(v) != 0, in the
// input's order. In parallel over rows: the new values, the kept count per row, then each row's
// kept entries at its offset — disjoint writes, so the same block for any thread count.
template <typename F>
MatrixBlock csr_map_values(const MatrixBlock& in, F f) {
  const int64_t m = in.rows();
  const auto& rp = in.row_ptr();
  const auto& ci = in.col_idx();
  const auto& v = in.csr_values();
  const int64_t nnz = rp[m];
  std::vector<double> y(static_cast<size_t>(nnz));
  parallel_for(0, nnz, kParallelGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t k = lo; k < hi; ++k) y[k] = f(v[k]);
  });
  std::vector<int64_t> row_ptr(static_cast<size_t>(m + 1), 0);
  const int64_t grain = row_grain(std::max<int64_t>(1, nnz / std::max<int64_t>(1, m)));
  parallel_for(0, m, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t kept = 0;
      for (int64_t k = rp[r]; k < rp[r + 1]; ++k) kept += y[k] != 0.0;
      row_ptr[r + 1] = kept;
    }
  });
  for (int64_t r = 0; r < m; ++r) row_ptr[r + 1] += row_ptr[r];
  std::vector<int32_t> col_idx(static_cast<size_t>(row_ptr[m]));
  std::vector<double> values(static_cast<size_t>(row_ptr[m]));
  parallel_for(0, m, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t p = row_ptr[r];
      for (int64_t k = rp[r]; k < rp[r + 1]; ++k) {
        if (y[k] == 0.0) continue;
        col_idx[p] = ci[k];
        values[p++] = y[k];
      }
    }
  });
  return MatrixBlock::csr(m, in.cols(), std::move(row_ptr), std::move(col_idx),
                          std::move(values));
}

}  // namespace dmlrt::kernels::cpu
