// Matrix multiply kernels; see matmult.h. Dense x dense goes to OpenBLAS (gemm, gemv for vector
// shapes, dot for 1x1 results); products with a CSR operand use row-wise sparse loops and never
// densify it.
#include "kernels/cpu/matmult.h"

#include <cblas.h>

#include <algorithm>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/cpu/parallel.h"
#include "kernels/host_memory.h"

namespace dmlrt::kernels::cpu {
namespace {

blasint as_blas(int64_t v) { return static_cast<blasint>(v); }

// a . b over n cells, in four interleaved sums (a fixed order the compiler can vectorise).
double dot(const double* a, const double* b, int64_t n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    s0 += a[j] * b[j];
    s1 += a[j + 1] * b[j + 1];
    s2 += a[j + 2] * b[j + 2];
    s3 += a[j + 3] * b[j + 3];
  }
  for (; j < n; ++j) s0 += a[j] * b[j];
  return (s0 + s1) + (s2 + s3);
}

// Note [Matrix-vector products on the CPU]
// OpenBLAS's threaded ddot and dgemv split their sums by thread, so their results change with the
// thread count (measured on the transposed dgemv; issue #18 asks for results that do not). The
// vector shapes of ba+* therefore run here: a dot product in fixed chunks summed in chunk order; a
// product whose cells are row dots (M v) one row at a time, in parallel over rows; a product whose
// cells sum over rows (t(M) v) in bands of rows fixed by the shape alone, whose partial vectors are
// summed in band order (Note [Deterministic parallel reductions]). Matrix-matrix products stay with
// OpenBLAS's dgemm, which splits the output, not the sums.
double chunked_dot(const double* a, const double* b, int64_t n) {
  const int64_t chunks = chunk_count(0, n, kParallelGrain);
  std::vector<double> part(static_cast<size_t>(chunks), 0.0);
  parallel_chunks(0, n, kParallelGrain,
                  [&](int64_t c, int64_t lo, int64_t hi) { part[c] = dot(a + lo, b + lo, hi - lo); });
  double s = 0.0;
  for (double p : part) s += p;
  return s;
}

// y (rows) = M x for M (rows, cols) row-major.
void gemv_rows(const double* M, int64_t rows, int64_t cols, const double* x, double* y) {
  parallel_for(0, rows, row_grain(cols), [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i) y[i] = dot(M + i * cols, x, cols);
  });
}

// y (cols) = t(M) x for M (rows, cols) row-major: bands of rows, partials summed in band order.
void gemv_cols(const double* M, int64_t rows, int64_t cols, const double* x, double* y) {
  // At least 256 rows a band and at most ~4 Mi partial cells in all: fixed by the shape.
  const int64_t band = std::max<int64_t>(256, (rows * cols + (int64_t{1} << 22) - 1) >> 22);
  const int64_t bands = chunk_count(0, rows, band);
  std::vector<double> partial(static_cast<size_t>(bands * cols), 0.0);  // (bands, cols)
  parallel_chunks(0, rows, band, [&](int64_t b, int64_t r0, int64_t r1) {
    double* p = partial.data() + b * cols;
    for (int64_t i = r0; i < r1; ++i) {
      const double xi = x[i];
      const double* mi = M + i * cols;
      for (int64_t j = 0; j < cols; ++j) p[j] += xi * mi[j];
    }
  });
  parallel_for(0, cols, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, bands)),
               [&](int64_t c0, int64_t c1) {
    for (int64_t j = c0; j < c1; ++j) {
      double s = 0.0;
      for (int64_t b = 0; b < bands; ++b) s += partial[static_cast<size_t>(b * cols + j)];
      y[j] = s;
    }
  });
}

// (m, n) = op(a) (m, k) %*% op(b) (k, n), both dense row-major.
MatrixBlock dense_dense(const MatrixBlock& a, const MatrixBlock& b, bool ta, bool tb, int64_t m,
                        int64_t n, int64_t k) {
  MatrixBlock c = MatrixBlock::dense(m, n);
  const double* A = a.dense_data();
  const double* B = b.dense_data();
  double* C = c.dense_data();  // (m, n) row-major
  // See Note [OpenBLAS under a memory limit]: gemm may map work buffers.
  if (m > 1 && n > 1) check_blas_headroom("matrix multiply (OpenBLAS)");
  if (m == 1 && n == 1) {
    // Both operands are contiguous k-vectors whatever the transpose flags.
    C[0] = chunked_dot(A, B, k);  // Note [Matrix-vector products on the CPU]
  } else if (n == 1) {
    // (m, 1) = op(a) b: a stored (m, k) gives row dots, stored (k, m) sums over its rows.
    if (ta)
      gemv_cols(A, a.rows(), a.cols(), B, C);
    else
      gemv_rows(A, a.rows(), a.cols(), B, C);
  } else if (m == 1) {
    // (1, n) = a^T op(b): b stored (n, k) gives row dots, stored (k, n) sums over its rows.
    if (tb)
      gemv_rows(B, b.rows(), b.cols(), A, C);
    else
      gemv_cols(B, b.rows(), b.cols(), A, C);
  } else {
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                as_blas(m), as_blas(n), as_blas(k), 1.0, A, as_blas(a.cols()), B, as_blas(b.cols()),
                0.0, C, as_blas(n));
  }
  return c;
}

// a (m, k) CSR, op(b) (k, n) dense. Zero cells of `a` contribute nothing (as SystemDS's sparse
// matmult: 0 * Inf in b is skipped, not NaN).
MatrixBlock sparse_dense(const MatrixBlock& a, const MatrixBlock& b, bool tb, int64_t n) {
  const int64_t m = a.rows();
  MatrixBlock c = MatrixBlock::dense(m, n);
  double* C = c.dense_data();  // (m, n) row-major
  const double* B = b.dense_data();
  const auto& rp = a.row_ptr();
  const int32_t* ci = a.col_idx().data();
  const double* av = a.csr_values().data();
  const int64_t ldb = b.cols();
  // Output rows are independent (each summed in the same order whatever the split).
  const int64_t nnz_per_row = std::max<int64_t>(1, rp[m] / std::max<int64_t>(m, 1));
  parallel_for(0, m, row_grain(nnz_per_row * n), [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i) {
      double* crow = C + i * n;
      if (!tb) {
        for (int64_t p = rp[i]; p < rp[i + 1]; ++p) {
          const double v = av[p];
          const double* brow = B + static_cast<int64_t>(ci[p]) * ldb;
          for (int64_t j = 0; j < n; ++j) crow[j] += v * brow[j];
        }
      } else {
        // op(b) = t(b), b (n, k): c[i, j] = a[i, :] . b[j, :]
        for (int64_t j = 0; j < n; ++j) {
          const double* brow = B + j * ldb;
          double s = 0.0;
          for (int64_t p = rp[i]; p < rp[i + 1]; ++p) s += av[p] * brow[ci[p]];
          crow[j] = s;
        }
      }
    }
  });
  return c;
}

// op(a) (m, k) dense, b (k, n) CSR.
MatrixBlock dense_sparse(const MatrixBlock& a, const MatrixBlock& b, bool ta, int64_t m,
                         int64_t k) {
  const int64_t n = b.cols();
  MatrixBlock c = MatrixBlock::dense(m, n);
  double* C = c.dense_data();  // (m, n) row-major
  const double* A = a.dense_data();
  const auto& rp = b.row_ptr();
  const int32_t* ci = b.col_idx().data();
  const double* bv = b.csr_values().data();
  if (!ta) {
    for (int64_t i = 0; i < m; ++i) {
      const double* arow = A + i * k;
      double* crow = C + i * n;
      for (int64_t kk = 0; kk < k; ++kk) {
        const double x = arow[kk];
        if (x == 0.0) continue;
        for (int64_t p = rp[kk]; p < rp[kk + 1]; ++p) crow[ci[p]] += x * bv[p];
      }
    }
  } else {
    // op(a) = t(a), a (k, m): row kk of a scales row kk of b into every output row.
    for (int64_t kk = 0; kk < k; ++kk) {
      const double* arow = A + kk * m;
      for (int64_t p = rp[kk]; p < rp[kk + 1]; ++p) {
        const int64_t j = ci[p];
        const double v = bv[p];
        for (int64_t i = 0; i < m; ++i) C[i * n + j] += arow[i] * v;
      }
    }
  }
  return c;
}

// a (m, k) CSR x b (k, n) CSR -> CSR (Gustavson, dense row accumulator).
MatrixBlock sparse_sparse(const MatrixBlock& a, const MatrixBlock& b) {
  const int64_t m = a.rows(), n = b.cols();
  std::vector<double> acc(static_cast<size_t>(n), 0.0);
  std::vector<char> used(static_cast<size_t>(n), 0);
  std::vector<int32_t> touched;
  std::vector<int64_t> row_ptr{0};
  row_ptr.reserve(static_cast<size_t>(m + 1));
  std::vector<int32_t> col_idx;
  std::vector<double> values;
  const auto& arp = a.row_ptr();
  const auto& brp = b.row_ptr();
  const int32_t* aci = a.col_idx().data();
  const int32_t* bci = b.col_idx().data();
  const double* av = a.csr_values().data();
  const double* bv = b.csr_values().data();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = arp[i]; p < arp[i + 1]; ++p) {
      const int64_t kk = aci[p];
      const double x = av[p];
      for (int64_t q = brp[kk]; q < brp[kk + 1]; ++q) {
        const int32_t j = bci[q];
        if (!used[j]) {
          used[j] = 1;
          touched.push_back(j);
        }
        acc[j] += x * bv[q];
      }
    }
    std::sort(touched.begin(), touched.end());
    for (int32_t j : touched) {
      if (acc[j] != 0.0) {
        col_idx.push_back(j);
        values.push_back(acc[j]);
      }
      acc[j] = 0.0;
      used[j] = 0;
    }
    touched.clear();
    row_ptr.push_back(static_cast<int64_t>(values.size()));
  }
  return MatrixBlock::csr(m, n, std::move(row_ptr), std::move(col_idx), std::move(values));
}

// Note [mmchain on the CPU]
// For a dense x, each band of kChainRows rows computes its cells of q = x %*% v and then its
// partial t(x_band) %*% q_band while the band is still in cache, so x is read from memory once
// (two dgemv calls read it twice). The partials, one per band of a fixed size, are summed in band
// order (Note [Deterministic parallel reductions] in parallel.cpp): the result does not depend on
// the thread count, which OpenBLAS's threaded dgemv does not promise.
constexpr int64_t kChainRows = 256;

// Dense copy of a vector operand's values (any layout; v is small).
std::vector<double> dense_vector(const MatrixBlock& v) { return v.to_dense().dense_values(); }

}  // namespace

MatrixBlock csr_transpose(const MatrixBlock& a) {
  const int64_t m = a.rows(), n = a.cols();
  const auto& rp = a.row_ptr();
  const auto& ci = a.col_idx();
  const auto& av = a.csr_values();
  std::vector<int64_t> row_ptr(static_cast<size_t>(n + 1), 0);
  for (int32_t c : ci) ++row_ptr[static_cast<size_t>(c) + 1];
  for (int64_t j = 0; j < n; ++j) row_ptr[j + 1] += row_ptr[j];
  std::vector<int64_t> next(row_ptr.begin(), row_ptr.end() - 1);
  std::vector<int32_t> col_idx(ci.size());
  std::vector<double> values(av.size());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = rp[i]; p < rp[i + 1]; ++p) {
      const int64_t dst = next[ci[p]]++;
      col_idx[dst] = static_cast<int32_t>(i);
      values[dst] = av[p];
    }
  return MatrixBlock::csr(n, m, std::move(row_ptr), std::move(col_idx), std::move(values));
}

MatrixBlock matmult(const MatrixBlock& a_in, const MatrixBlock& b_in, bool trans_a, bool trans_b) {
  const int64_t m = trans_a ? a_in.cols() : a_in.rows();
  const int64_t k = trans_a ? a_in.rows() : a_in.cols();
  const int64_t k2 = trans_b ? b_in.cols() : b_in.rows();
  const int64_t n = trans_b ? b_in.rows() : b_in.cols();
  DMLRT_REQUIRE(
      k == k2, ShapeError,
      "matmult: inner dimensions differ: " << dims_string(m, k) << " %*% " << dims_string(k2, n));
  if (m == 0 || n == 0 || k == 0) return MatrixBlock::dense(m, n);  // empty sums are 0

  // A transposed CSR operand is transposed explicitly (O(nnz)); dense ones go to BLAS as is.
  MatrixBlock a_t, b_t;
  const MatrixBlock* a = &a_in;
  const MatrixBlock* b = &b_in;
  if (a->is_sparse() && trans_a) {
    a_t = csr_transpose(*a);
    a = &a_t;
    trans_a = false;
  }
  if (b->is_sparse() && trans_b) {
    b_t = csr_transpose(*b);
    b = &b_t;
    trans_b = false;
  }
  MatrixBlock c;
  if (!a->is_sparse() && !b->is_sparse())
    c = dense_dense(*a, *b, trans_a, trans_b, m, n, k);
  else if (a->is_sparse() && !b->is_sparse())
    c = sparse_dense(*a, *b, trans_b, n);
  else if (!a->is_sparse())
    c = dense_sparse(*a, *b, trans_a, m, k);
  else
    c = sparse_sparse(*a, *b);
  c.examine_format();
  return c;
}

MatrixBlock tsmm(const MatrixBlock& x, bool left) {
  if (x.is_sparse()) return matmult(x, x, left, !left);
  const int64_t n = left ? x.cols() : x.rows();
  const int64_t kdim = left ? x.rows() : x.cols();
  MatrixBlock c = MatrixBlock::dense(n, n);
  if (n == 0 || kdim == 0) return c;
  double* C = c.dense_data();  // (n, n) row-major, symmetric
  check_blas_headroom("tsmm (OpenBLAS dsyrk)");  // See Note [OpenBLAS under a memory limit]
  cblas_dsyrk(CblasRowMajor, CblasUpper, left ? CblasTrans : CblasNoTrans, as_blas(n),
              as_blas(kdim), 1.0, x.dense_data(), as_blas(x.cols()), 0.0, C, as_blas(n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < i; ++j) C[i * n + j] = C[j * n + i];
  c.examine_format();
  return c;
}

MatrixBlock mmchain(const MatrixBlock& x, const MatrixBlock& v_in, const MatrixBlock* w_in,
                    ChainType type) {
  const int64_t m = x.rows(), n = x.cols();
  MatrixBlock r = MatrixBlock::dense(n, 1);
  if (m == 0 || n == 0) return r;
  const std::vector<double> v = dense_vector(v_in);  // (n)
  const std::vector<double> w =
      type != ChainType::kXtXv ? dense_vector(*w_in) : std::vector<double>();  // (m)
  double* out = r.dense_data();                                                 // (n)
  // q_i = x_i . v, then w applied: the middle vector of the chain, one cell per row.
  auto scale = [&](int64_t i, double q) {
    if (type == ChainType::kXtwXv) return w[static_cast<size_t>(i)] * q;
    if (type == ChainType::kXtXvy) return q - w[static_cast<size_t>(i)];
    return q;
  };
  if (!x.is_sparse()) {
    // See Note [mmchain on the CPU].
    const double* X = x.dense_data();  // (m, n) row-major
    const int64_t bands = chunk_count(0, m, kChainRows);
    std::vector<double> partial(static_cast<size_t>(bands * n), 0.0);  // (bands, n)
    parallel_chunks(0, m, kChainRows, [&](int64_t band, int64_t r0, int64_t r1) {
      double* p = partial.data() + band * n;
      for (int64_t i = r0; i < r1; ++i) {
        const double* xi = X + i * n;
        const double q = scale(i, dot(xi, v.data(), n));
        for (int64_t j = 0; j < n; ++j) p[j] += q * xi[j];
      }
    });
    for (int64_t b = 0; b < bands; ++b) {
      const double* p = partial.data() + b * n;
      for (int64_t j = 0; j < n; ++j) out[j] += p[j];
    }
  } else {
    const auto& rp = x.row_ptr();
    const auto& ci = x.col_idx();
    const auto& xv = x.csr_values();
    std::vector<double> q(static_cast<size_t>(m), 0.0);  // (m)
    const int64_t nnz_per_row = std::max<int64_t>(1, rp[m] / m);
    parallel_for(0, m, row_grain(nnz_per_row), [&](int64_t r0, int64_t r1) {
      for (int64_t i = r0; i < r1; ++i) {
        double s = 0.0;
        for (int64_t p = rp[i]; p < rp[i + 1]; ++p) s += xv[p] * v[ci[p]];
        q[i] = scale(i, s);
      }
    });
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = rp[i]; p < rp[i + 1]; ++p) out[ci[p]] += xv[p] * q[i];
  }
  r.examine_format();
  return r;
}

}  // namespace dmlrt::kernels::cpu
