// Right and left indexing on dense and CSR blocks; see indexing.h.
#include "kernels/cpu/indexing.h"

#include <algorithm>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/cpu/parallel.h"

namespace dmlrt::kernels::cpu {
namespace {

void check_range(const MatrixBlock& b, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  DMLRT_REQUIRE(
      0 <= r0 && r0 <= r1 && r1 <= b.rows() && 0 <= c0 && c0 <= c1 && c1 <= b.cols(), ShapeError,
      "index range [" << r0 << ", " << r1 << ") x [" << c0 << ", " << c1 << ") out of bounds for a "
                      << dims_string(b.rows(), b.cols()) << " matrix");
}

// [lo, hi) positions of a CSR row's entries whose column lies in [c0, c1).
inline std::pair<int64_t, int64_t> csr_span(const MatrixBlock& b, int64_t r, int64_t c0,
                                            int64_t c1) {
  const auto& rp = b.row_ptr();
  const auto& ci = b.col_idx();
  auto begin = ci.begin() + rp[r], end = ci.begin() + rp[r + 1];
  auto lo = std::lower_bound(begin, end, static_cast<int32_t>(c0));
  auto hi = std::lower_bound(lo, end, static_cast<int32_t>(c1));
  return {lo - ci.begin(), hi - ci.begin()};
}

// Nonzeros of `b` inside rows [r0, r1) x columns [c0, c1).
int64_t nnz_in_range(const MatrixBlock& b, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  int64_t n = 0;
  if (b.is_sparse()) {
    const auto& v = b.csr_values();
    for (int64_t r = r0; r < r1; ++r) {
      const auto [lo, hi] = csr_span(b, r, c0, c1);
      for (int64_t k = lo; k < hi; ++k) n += (v[k] != 0.0);
    }
  } else {
    const double* a = b.dense_data();
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = c0; c < c1; ++c) n += (a[r * b.cols() + c] != 0.0);
  }
  return n;
}

}  // namespace

MatrixBlock slice(const MatrixBlock& in, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  check_range(in, r0, r1, c0, c1);
  const int64_t p = r1 - r0, q = c1 - c0;
  if (!in.is_sparse()) {
    MatrixBlock out = MatrixBlock::dense(p, q, 0.0);  // (p, q) row-major
    const double* a = in.dense_data();
    double* b = out.dense_data();
    // Rows are copied independently (disjoint writes: any split gives the same block).
    parallel_for(0, p, row_grain(q), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r)
        std::copy(a + (r0 + r) * in.cols() + c0, a + (r0 + r) * in.cols() + c1, b + r * q);
    });
    out.examine_format();
    return out;
  }
  const auto& ci = in.col_idx();
  const auto& v = in.csr_values();
  std::vector<int64_t> row_ptr(static_cast<size_t>(p + 1), 0);
  std::vector<int32_t> col_idx;
  std::vector<double> values;
  for (int64_t r = 0; r < p; ++r) {
    const auto [lo, hi] = csr_span(in, r0 + r, c0, c1);
    for (int64_t k = lo; k < hi; ++k) {
      if (v[k] == 0.0) continue;
      col_idx.push_back(static_cast<int32_t>(ci[k] - c0));
      values.push_back(v[k]);
    }
    row_ptr[static_cast<size_t>(r + 1)] = static_cast<int64_t>(values.size());
  }
  MatrixBlock out =
      MatrixBlock::csr(p, q, std::move(row_ptr), std::move(col_idx), std::move(values));
  out.examine_format();
  return out;
}

MatrixBlock assign_range(const MatrixBlock& target, const MatrixBlock& rhs, int64_t r0,
                         int64_t c0) {
  const int64_t p = rhs.rows(), q = rhs.cols();
  check_range(target, r0, r0 + p, c0, c0 + q);
  const int64_t m = target.rows(), n = target.cols();
  const int64_t out_nnz = target.nnz() - nnz_in_range(target, r0, r0 + p, c0, c0 + q) + rhs.nnz();

  if (target.is_sparse() && MatrixBlock::prefers_sparse(m, n, out_nnz)) {
    // Row-wise merge: target entries left of the range, rhs row, target entries right of it.
    const auto& tci = target.col_idx();
    const auto& tv = target.csr_values();
    const auto& trp = target.row_ptr();
    std::vector<int64_t> row_ptr(static_cast<size_t>(m + 1), 0);
    std::vector<int32_t> col_idx;
    std::vector<double> values;
    col_idx.reserve(static_cast<size_t>(out_nnz));
    values.reserve(static_cast<size_t>(out_nnz));
    auto keep = [&](int64_t k) {
      if (tv[k] == 0.0) return;
      col_idx.push_back(tci[k]);
      values.push_back(tv[k]);
    };
    for (int64_t r = 0; r < m; ++r) {
      if (r < r0 || r >= r0 + p) {
        for (int64_t k = trp[r]; k < trp[r + 1]; ++k) keep(k);
      } else {
        const auto [lo, hi] = csr_span(target, r, c0, c0 + q);
        for (int64_t k = trp[r]; k < lo; ++k) keep(k);
        const int64_t rr = r - r0;
        if (rhs.is_sparse()) {
          const auto& rrp = rhs.row_ptr();
          for (int64_t k = rrp[rr]; k < rrp[rr + 1]; ++k) {
            if (rhs.csr_values()[k] == 0.0) continue;
            col_idx.push_back(static_cast<int32_t>(c0 + rhs.col_idx()[k]));
            values.push_back(rhs.csr_values()[k]);
          }
        } else {
          const double* a = rhs.dense_data() + rr * q;
          for (int64_t c = 0; c < q; ++c) {
            if (a[c] == 0.0) continue;
            col_idx.push_back(static_cast<int32_t>(c0 + c));
            values.push_back(a[c]);
          }
        }
        for (int64_t k = hi; k < trp[r + 1]; ++k) keep(k);
      }
      row_ptr[static_cast<size_t>(r + 1)] = static_cast<int64_t>(values.size());
    }
    MatrixBlock out =
        MatrixBlock::csr(m, n, std::move(row_ptr), std::move(col_idx), std::move(values));
    out.examine_format();
    return out;
  }

  MatrixBlock out = target.to_dense();  // (m, n) row-major copy
  double* b = out.dense_data();
  if (rhs.is_sparse()) {
    for (int64_t r = 0; r < p; ++r)
      std::fill(b + (r0 + r) * n + c0, b + (r0 + r) * n + c0 + q, 0.0);
    const auto& rrp = rhs.row_ptr();
    for (int64_t r = 0; r < p; ++r)
      for (int64_t k = rrp[r]; k < rrp[r + 1]; ++k)
        b[(r0 + r) * n + c0 + rhs.col_idx()[k]] = rhs.csr_values()[k];
  } else {
    const double* a = rhs.dense_data();
    parallel_for(0, p, row_grain(q), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) std::copy(a + r * q, a + (r + 1) * q, b + (r0 + r) * n + c0);
    });
  }
  out.examine_format();
  return out;
}

MatrixBlock assign_scalar(const MatrixBlock& target, double value, int64_t r0, int64_t r1,
                          int64_t c0, int64_t c1) {
  check_range(target, r0, r1, c0, c1);
  const int64_t p = r1 - r0, q = c1 - c0;
  // A constant block in the rhs form reuses assign_range's sparse merge; an all-zero one is CSR
  // so that zeroing cells of a sparse target stays sparse.
  MatrixBlock rhs =
      value == 0.0 ? MatrixBlock::empty_sparse(p, q) : MatrixBlock::dense(p, q, value);
  return assign_range(target, rhs, r0, c0);
}

}  // namespace dmlrt::kernels::cpu
