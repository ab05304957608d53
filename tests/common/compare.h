// Comparison helpers for tests: |got - ref| <= atol + rtol*|ref| on every cell, reporting the max
// error and the first mismatches.
#pragma once

#include <string>
#include <vector>

#include "kernels/matrix_block.h"

namespace dmlrt::test {

struct CompareResult {
  bool ok = true;
  double max_abs_err = 0.0;
  std::string report;  // shape mismatch or the first mismatching cells
};

CompareResult compare(const kernels::MatrixBlock& got, const kernels::MatrixBlock& ref,
                      double atol = 1e-9, double rtol = 1e-9);
// Bit for bit, NaN payloads aside: NaN where ref is NaN, every other cell equal with the same
// sign of zero (a fused or rewritten plan against the plain one).
CompareResult compare_bits(const kernels::MatrixBlock& got, const kernels::MatrixBlock& ref);
// Row-major reference values.
CompareResult compare(const kernels::MatrixBlock& got, int64_t rows, int64_t cols,
                      const std::vector<double>& ref, double atol = 1e-9, double rtol = 1e-9);

// A dense block from row-major values, and the same as CSR.
kernels::MatrixBlock dense_of(int64_t rows, int64_t cols, std::vector<double> values);
kernels::MatrixBlock sparse_of(int64_t rows, int64_t cols, std::vector<double> values);
// sparse_of when `sparse`, else dense_of: one test body over both formats.
kernels::MatrixBlock block_of(bool sparse, int64_t rows, int64_t cols, std::vector<double> values);

// Deterministic pseudo-random (rows, cols) block seeded from `seed` (e.g. the test name hash):
// uniform in [lo, hi) with the given fraction of nonzeros; returned sparse if `as_sparse`.
kernels::MatrixBlock random_block(int64_t rows, int64_t cols, double sparsity, uint64_t seed,
                                  double lo = -1.0, double hi = 1.0, bool as_sparse = false);
uint64_t seed_from(const std::string& test_name);

}  // namespace dmlrt::test

// REQUIRE-style macro that prints the compare report on failure.
#define DMLRT_REQUIRE_CLOSE(got, ...)                                   \
  do {                                                                  \
    const auto dmlrt_cmp_ = ::dmlrt::test::compare(got, __VA_ARGS__);   \
    INFO(dmlrt_cmp_.report);                                            \
    REQUIRE(dmlrt_cmp_.ok);                                             \
  } while (0)
