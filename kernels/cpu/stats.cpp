// cov, cm, tak+* and tack+* on host blocks.
#include "kernels/cpu/stats.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/cpu/java_math.h"
#include "kernels/cpu/parallel.h"

namespace dmlrt::kernels::cpu {
namespace {

std::vector<double> dense_copy(const MatrixBlock& b) {
  if (!b.is_sparse()) return b.dense_values();
  return b.to_dense().dense_values();
}

void require_column(const char* op, const MatrixBlock& v, int64_t m, const char* what) {
  DMLRT_REQUIRE(v.cols() == 1 && v.rows() == m, ShapeError,
                op << ": " << what << " must be a column vector of " << m << " rows, got "
                   << dims_string(v.rows(), v.cols()));
}

// Shape shared by the matrix inputs (ShapeError when they differ).
void common_shape(const char* op, const TernaryAggArg* const* args, int64_t* m, int64_t* n) {
  const MatrixBlock* s = nullptr;
  for (int i = 0; i < 3; ++i) {
    const MatrixBlock* x = args[i]->matrix;
    if (!x) continue;
    if (!s) s = x;
    DMLRT_REQUIRE(x->rows() == s->rows() && x->cols() == s->cols(), ShapeError,
                  op << ": inputs must have the same dimensions, got "
                     << dims_string(s->rows(), s->cols()) << " and "
                     << dims_string(x->rows(), x->cols()));
  }
  DMLRT_REQUIRE(s != nullptr, RuntimeError, op << ": no matrix input");
  *m = s->rows();
  *n = s->cols();
}

}  // namespace

double covariance(const MatrixBlock& x, const MatrixBlock& y, const MatrixBlock* w) {
  DMLRT_REQUIRE(x.cols() == 1, ShapeError,
                "cov: covariance can be computed only on 1-dimensional column matrices, got "
                    << dims_string(x.rows(), x.cols()));
  const int64_t m = x.rows();
  require_column("cov", y, m, "the second input");
  if (w) require_column("cov", *w, m, "the weights");
  const std::vector<double> xv = dense_copy(x), yv = dense_copy(y);
  const std::vector<double> wv = w ? dense_copy(*w) : std::vector<double>(static_cast<size_t>(m), 1.0);
  KahanSum sw, sx, sy;
  for (int64_t i = 0; i < m; ++i) {
    sw.add(wv[i]);
    sx.add(wv[i] * xv[i]);
    sy.add(wv[i] * yv[i]);
  }
  const double mx = sx.sum / sw.sum, my = sy.sum / sw.sum;
  KahanSum c;
  for (int64_t i = 0; i < m; ++i) c.add(wv[i] * (xv[i] - mx) * (yv[i] - my));
  return c.sum / (sw.sum - 1.0);
}

double central_moment(const MatrixBlock& x, const MatrixBlock* w, int order) {
  DMLRT_REQUIRE(x.cols() == 1, ShapeError,
                "cm: central moments can be computed only on column vectors, got "
                    << dims_string(x.rows(), x.cols()));
  DMLRT_REQUIRE(order == 0 || (order >= 2 && order <= 4), RuntimeError,
                "cm: order must be 0 (mean), 2, 3 or 4, got " << order);
  const int64_t m = x.rows();
  if (w) require_column("cm", *w, m, "the weights");
  const std::vector<double> xv = dense_copy(x);
  const std::vector<double> wv = w ? dense_copy(*w) : std::vector<double>(static_cast<size_t>(m), 1.0);
  if (order == 0) {
    // mean(X, W): SystemDS's running update (CM MEAN), the first cell taken as is.
    if (m == 0) return 0.0;
    KahanSum mean;
    mean.sum = xv[0];
    double sw = wv[0];
    for (int64_t i = 1; i < m; ++i) {
      const double nw = sw + wv[i];
      mean.add(wv[i] * (xv[i] - mean.sum) / nw);
      sw = nw;
    }
    return mean.sum;
  }
  KahanSum sw, sx;
  for (int64_t i = 0; i < m; ++i) {
    sw.add(wv[i]);
    sx.add(wv[i] * xv[i]);
  }
  const double mean = sx.sum / sw.sum;
  KahanSum c;
  for (int64_t i = 0; i < m; ++i) c.add(wv[i] * std::pow(xv[i] - mean, order));
  return c.sum / sw.sum;
}

namespace {

// Row-major cells of the three inputs: a dense matrix is read in place, a sparse one densified
// into `hold`, a scalar is null (its value is args[i]->scalar).
void cell_pointers(const TernaryAggArg* const* args, std::vector<double>* hold,
                   const double** ptr) {
  for (int i = 0; i < 3; ++i) {
    const MatrixBlock* x = args[i]->matrix;
    ptr[i] = nullptr;
    if (!x) continue;
    if (x->is_sparse()) {
      hold[i] = dense_copy(*x);
      ptr[i] = hold[i].data();
    } else {
      ptr[i] = x->dense_data();
    }
  }
}

// Cells per Kahan partial of tak+* (see Note [Deterministic parallel reductions] in parallel.cpp).
constexpr int64_t kProductChunk = int64_t{1} << 16;

}  // namespace

double sum_product3(const TernaryAggArg& a, const TernaryAggArg& b, const TernaryAggArg& c) {
  const TernaryAggArg* args[3] = {&a, &b, &c};
  int64_t m = 0, n = 0;
  common_shape("tak+*", args, &m, &n);
  std::vector<double> hold[3];
  const double* d[3];
  cell_pointers(args, hold, d);
  auto add_range = [&](KahanSum& s, int64_t lo, int64_t hi) {
    for (int64_t k = lo; k < hi; ++k) {
      double p = 1.0;
      for (int i = 0; i < 3; ++i) p *= d[i] ? d[i][k] : args[i]->scalar;
      s.add(p);
    }
  };
  KahanSum s;
  const int64_t cells = m * n;
  if (cells <= kProductChunk) {
    add_range(s, 0, cells);
    return s.sum;
  }
  std::vector<KahanSum> parts(static_cast<size_t>(chunk_count(0, cells, kProductChunk)));
  parallel_chunks(0, cells, kProductChunk, [&](int64_t ch, int64_t lo, int64_t hi) {
    add_range(parts[static_cast<size_t>(ch)], lo, hi);
  });
  for (const KahanSum& p : parts) s.merge(p);
  return s.sum;
}

MatrixBlock col_sum_product3(const TernaryAggArg& a, const TernaryAggArg& b,
                             const TernaryAggArg& c) {
  const TernaryAggArg* args[3] = {&a, &b, &c};
  int64_t m = 0, n = 0;
  common_shape("tack+*", args, &m, &n);
  std::vector<double> hold[3];
  const double* d[3];
  cell_pointers(args, hold, d);
  std::vector<KahanSum> s(static_cast<size_t>(n));
  // Blocks of columns in parallel; each column still sees the rows in order.
  parallel_for(0, n, std::max<int64_t>(8, kParallelGrain / std::max<int64_t>(m, 1)),
               [&](int64_t j0, int64_t j1) {
                 for (int64_t r = 0; r < m; ++r)
                   for (int64_t j = j0; j < j1; ++j) {
                     const int64_t k = r * n + j;
                     double p = 1.0;
                     for (int i = 0; i < 3; ++i) p *= d[i] ? d[i][k] : args[i]->scalar;
                     s[static_cast<size_t>(j)].add(p);
                   }
               });
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) out[static_cast<size_t>(j)] = s[static_cast<size_t>(j)].sum;
  MatrixBlock res = MatrixBlock::dense(1, n, std::move(out));
  res.examine_format();
  return res;
}

}  // namespace dmlrt::kernels::cpu
