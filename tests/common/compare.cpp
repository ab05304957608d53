// Test comparison helpers; see compare.h.
#include "common/compare.h"

#include <cmath>
#include <random>
#include <sstream>

namespace dmlrt::test {
namespace {

bool same_shape(const kernels::MatrixBlock& got, const kernels::MatrixBlock& ref,
                CompareResult* r) {
  if (got.rows() == ref.rows() && got.cols() == ref.cols()) return true;
  r->ok = false;
  r->report = "shape mismatch: got " + got.shape_string() + ", expected " + ref.shape_string();
  return false;
}

}  // namespace

CompareResult compare(const kernels::MatrixBlock& got, const kernels::MatrixBlock& ref,
                      double atol, double rtol) {
  CompareResult r;
  if (!same_shape(got, ref, &r)) return r;
  std::ostringstream os;
  int shown = 0;
  for (int64_t i = 0; i < ref.rows(); ++i)
    for (int64_t j = 0; j < ref.cols(); ++j) {
      const double g = got.get(i, j), e = ref.get(i, j);
      bool same = (std::isnan(g) && std::isnan(e)) || g == e;
      const double err = std::fabs(g - e);
      if (!same && !(err <= atol + rtol * std::fabs(e))) {
        r.ok = false;
        if (shown++ < 8) os << "  [" << i << "," << j << "] got " << g << " expected " << e << "\n";
      }
      if (!same && std::isfinite(err) && err > r.max_abs_err) r.max_abs_err = err;
    }
  std::ostringstream head;
  head.precision(17);
  head << "max abs error " << r.max_abs_err << (r.ok ? "" : "; first mismatches:\n") << os.str();
  r.report = head.str();
  return r;
}

CompareResult compare_bits(const kernels::MatrixBlock& got, const kernels::MatrixBlock& ref) {
  CompareResult r;
  if (!same_shape(got, ref, &r)) return r;
  std::ostringstream os;
  os.precision(17);
  int shown = 0;
  for (int64_t i = 0; i < ref.rows(); ++i)
    for (int64_t j = 0; j < ref.cols(); ++j) {
      const double g = got.get(i, j), e = ref.get(i, j);
      const bool same =
          (std::isnan(g) && std::isnan(e)) || (g == e && std::signbit(g) == std::signbit(e));
      if (same) continue;
      r.ok = false;
      if (shown++ < 8) os << "  [" << i << "," << j << "] got " << g << " expected " << e << "\n";
    }
  r.report = r.ok ? "identical" : "cells differ:\n" + os.str();
  return r;
}

CompareResult compare(const kernels::MatrixBlock& got, int64_t rows, int64_t cols,
                      const std::vector<double>& ref, double atol, double rtol) {
  return compare(got, kernels::MatrixBlock::dense(rows, cols, ref), atol, rtol);
}

kernels::MatrixBlock dense_of(int64_t rows, int64_t cols, std::vector<double> values) {
  return kernels::MatrixBlock::dense(rows, cols, std::move(values));
}

kernels::MatrixBlock sparse_of(int64_t rows, int64_t cols, std::vector<double> values) {
  return kernels::MatrixBlock::dense(rows, cols, std::move(values)).to_sparse();
}

kernels::MatrixBlock block_of(bool sparse, int64_t rows, int64_t cols, std::vector<double> values) {
  return sparse ? sparse_of(rows, cols, std::move(values)) : dense_of(rows, cols, std::move(values));
}

uint64_t seed_from(const std::string& test_name) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : test_name) h = (h ^ c) * 1099511628211ull;
  return h;
}

kernels::MatrixBlock random_block(int64_t rows, int64_t cols, double sparsity, uint64_t seed,
                                  double lo, double hi, bool as_sparse) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> val(lo, hi);
  std::uniform_real_distribution<double> keep(0.0, 1.0);
  std::vector<double> v(static_cast<size_t>(rows * cols), 0.0);
  for (auto& x : v) {
    if (keep(gen) < sparsity) {
      double d = val(gen);
      x = d == 0.0 ? 0.5 : d;
    }
  }
  auto b = kernels::MatrixBlock::dense(rows, cols, std::move(v));
  return as_sparse ? b.to_sparse() : b;
}

}  // namespace dmlrt::test
