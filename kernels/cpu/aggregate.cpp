// Full, row and column aggregates and rowIndexMax/Min on the host. Each op is an accumulator that
// sees every stored value once and then the count of implicit zeros, so sparse inputs are reduced
// over their nonzeros only and give the values the dense form gives.
#include "kernels/cpu/aggregate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/java_math.h"
#include "kernels/cpu/parallel.h"

namespace dmlrt::kernels::cpu {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Cells per partial of a full aggregate: a fixed size, so the result does not depend on the thread
// count (Note [Deterministic parallel reductions] in parallel.cpp). Each accumulator's merge()
// combines the partials in chunk order.
constexpr int64_t kReduceChunk = int64_t{1} << 16;

// Note [Aggregates of empty inputs]
// Verified with SystemDS 3.4: full aggregates of a 0-cell matrix give sum 0, sum of squares 0,
// prod 1, mean NaN, max -Inf, min +Inf and var NaN (what the accumulators below give for zero
// values). Row aggregates of a 0-column matrix and column aggregates of a 0-row matrix give an
// all-zero result for every op (SystemDS returns its empty block), prod/max/min/mean/var included.

struct SumAcc {
  KahanSum k;
  void add(double x) { k.add(x); }
  void merge(const SumAcc& o) { k.merge(o.k); }
  void add_zeros(int64_t) {}
  double result(int64_t) const { return k.sum; }
};

struct SumSqAcc {
  KahanSum k;
  void add(double x) { k.add(x * x); }
  void merge(const SumSqAcc& o) { k.merge(o.k); }
  void add_zeros(int64_t) {}
  double result(int64_t) const { return k.sum; }
};

struct ProdAcc {
  double p = 1.0;
  void add(double x) { p *= x; }
  void merge(const ProdAcc& o) { p *= o.p; }
  // Multiplying by the zero (not returning 0) keeps NaN and Inf * 0 = NaN as the dense form does.
  void add_zeros(int64_t count) {
    if (count > 0) p *= 0.0;
  }
  double result(int64_t) const { return p; }
};

// SystemDS's mean (functionobjects/Mean) is incremental: mean += (x - mean) / count, Kahan-
// compensated; dmlrt follows it so printed digits agree. Implicit zeros and non-finite values
// fall back to sum / n, the IEEE result (SystemDS's incremental form turns [-Inf, 1] into +Inf).
struct MeanAcc {
  KahanSum k, mean;
  double count = 0.0;
  bool zeros = false;
  void add(double x) {
    k.add(x);
    count += 1.0;
    mean.add((x - mean.sum) / count);
  }
  // Two running means weighted by their counts (SystemDS's CM merge for MEAN).
  void merge(const MeanAcc& o) {
    k.merge(o.k);
    zeros = zeros || o.zeros;
    if (o.count == 0.0) return;
    if (count == 0.0) {
      mean = o.mean;
      count = o.count;
      return;
    }
    const double total = count + o.count;
    mean.add((o.mean.sum - mean.sum) * o.count / total);
    count = total;
  }
  void add_zeros(int64_t c) { zeros = zeros || c > 0; }
  // n counts the implicit zeros too; 0 values give 0/0 = NaN as in SystemDS.
  double result(int64_t n) const {
    if (zeros || !std::isfinite(k.sum) || !std::isfinite(mean.sum))
      return k.sum / static_cast<double>(n);
    return count == 0.0 ? std::numeric_limits<double>::quiet_NaN() : mean.sum;
  }
};

struct MaxAcc {
  double m = -kInf;
  void add(double x) { m = java_max(m, x); }
  void merge(const MaxAcc& o) { m = java_max(m, o.m); }
  void add_zeros(int64_t count) {
    if (count > 0) m = java_max(m, 0.0);
  }
  double result(int64_t) const { return m; }
};

struct MinAcc {
  double m = kInf;
  void add(double x) { m = java_min(m, x); }
  void merge(const MinAcc& o) { m = java_min(m, o.m); }
  void add_zeros(int64_t count) {
    if (count > 0) m = java_min(m, 0.0);
  }
  double result(int64_t) const { return m; }
};

// SystemDS's central-moment update (functionobjects/CM, VARIANCE): a Welford-style running mean
// and sum of squared deviations, both Kahan-compensated, in SystemDS's order of operations so the
// printed digits agree. Implicit zeros are merged as one weighted group, as SystemDS does for
// sparse rows, so a sparse input never materialises its zeros.
struct VarAcc {
  double w = 0.0;  // count
  KahanSum mean, m2;
  void add(double x) { add_weighted(x, 1.0); }
  void add_zeros(int64_t zeros) {
    if (zeros > 0) add_weighted(0.0, static_cast<double>(zeros));
  }
  void add_weighted(double x, double w2) {
    if (w == 0.0) {
      w = w2;
      mean = KahanSum{x, 0.0};
      return;
    }
    const double nw = w + w2;
    const double d = x - mean.sum;
    mean.add(w2 * d / nw);
    const double t1 = w * w2 / nw * d;
    m2.add(t1 * d);
    w = nw;
  }
  // Two (count, mean, m2) groups combined as SystemDS's CM merge does (Chan et al.).
  void merge(const VarAcc& o) {
    if (o.w == 0.0) return;
    if (w == 0.0) {
      *this = o;
      return;
    }
    const double nw = w + o.w;
    const double d = o.mean.sum - mean.sum;
    mean.add(o.w * d / nw);
    m2.merge(o.m2);
    m2.add(w * o.w / nw * d * d);
    w = nw;
  }
  // Sample variance; SystemDS gives 0 for a single value and NaN for none.
  double result(int64_t) const {
    if (w == 0.0) return std::numeric_limits<double>::quiet_NaN();
    if (w == 1.0) return 0.0;
    return m2.sum / (w - 1.0);
  }
};

// One chunk of a large full aggregate into its partial `acc` (fresh): the values in order by
// default, in a local accumulator (the partials live in a vector the compiler cannot tell apart
// from the input, so accumulating there stores and reloads it at every cell).
template <class Acc>
void add_chunk(Acc& acc, const double* v, int64_t n) {
  Acc local = acc;
  for (int64_t i = 0; i < n; ++i) local.add(v[i]);
  acc = local;
}

// Sums and sums of squares: four Kahan sums over interleaved cells (cell i to lane i % 4, the
// tail to lane 0), merged in lane order. One compensated sum is a chain of four dependent
// additions per cell; four independent chains keep the floating-point units busy. The partial
// still depends on the chunk's cells alone, not on the thread count.
template <class F>
KahanSum kahan_lanes(const double* v, int64_t n, F f) {
  KahanSum l0, l1, l2, l3;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    l0.add(f(v[i]));
    l1.add(f(v[i + 1]));
    l2.add(f(v[i + 2]));
    l3.add(f(v[i + 3]));
  }
  for (; i < n; ++i) l0.add(f(v[i]));
  l0.merge(l1);
  l2.merge(l3);
  l0.merge(l2);
  return l0;
}
void add_chunk(SumAcc& acc, const double* v, int64_t n) {
  acc.k = kahan_lanes(v, n, [](double x) { return x; });
}
void add_chunk(SumSqAcc& acc, const double* v, int64_t n) {
  acc.k = kahan_lanes(v, n, [](double x) { return x * x; });
}

// The stored values (dense cells or CSR nonzeros) in chunks of kReduceChunk, one partial each,
// merged in chunk order; a sparse input's implicit zeros are added last, as one group. An input
// of one chunk or less is reduced in order, as SystemDS's sequential loop does.
template <class Acc>
double reduce_all(const MatrixBlock& in) {
  const std::vector<double>& v = in.is_sparse() ? in.csr_values() : in.dense_values();
  const auto count = static_cast<int64_t>(v.size());
  Acc acc;
  if (count <= kReduceChunk) {
    for (double x : v) acc.add(x);
  } else {
    std::vector<Acc> parts(static_cast<size_t>(chunk_count(0, count, kReduceChunk)));
    parallel_chunks(0, count, kReduceChunk, [&](int64_t c, int64_t lo, int64_t hi) {
      add_chunk(parts[static_cast<size_t>(c)], v.data() + lo, hi - lo);
    });
    for (const Acc& p : parts) acc.merge(p);
  }
  if (in.is_sparse()) acc.add_zeros(in.size() - count);
  return acc.result(in.size());
}

template <class Acc>
MatrixBlock reduce_rows(const MatrixBlock& in) {
  const int64_t m = in.rows(), n = in.cols();
  std::vector<double> out(static_cast<size_t>(m), 0.0);  // (m, 1)
  if (n > 0) {  // See Note [Aggregates of empty inputs]
    // Rows are independent: split over rows, each row reduced as before.
    parallel_for(0, m, row_grain(n), [&](int64_t r0, int64_t r1) {
      for (int64_t i = r0; i < r1; ++i) {
        Acc acc;
        if (in.is_sparse()) {
          const int64_t b = in.row_ptr()[i], e = in.row_ptr()[i + 1];
          for (int64_t k = b; k < e; ++k) acc.add(in.csr_values()[k]);
          acc.add_zeros(n - (e - b));
        } else {
          const double* a = in.dense_data() + i * n;
          for (int64_t j = 0; j < n; ++j) acc.add(a[j]);
        }
        out[static_cast<size_t>(i)] = acc.result(n);
      }
    });
  }
  MatrixBlock r = MatrixBlock::dense(m, 1, std::move(out));
  r.examine_format();
  return r;
}

template <class Acc>
MatrixBlock reduce_cols(const MatrixBlock& in) {
  const int64_t m = in.rows(), n = in.cols();
  std::vector<double> out(static_cast<size_t>(n), 0.0);  // (1, n)
  if (m > 0) {  // See Note [Aggregates of empty inputs]
    std::vector<Acc> accs(static_cast<size_t>(n));
    if (in.is_sparse()) {
      std::vector<int64_t> stored(static_cast<size_t>(n), 0);
      const auto& ci = in.col_idx();
      const auto& v = in.csr_values();
      for (size_t k = 0; k < v.size(); ++k) {
        accs[ci[k]].add(v[k]);
        ++stored[ci[k]];
      }
      for (int64_t j = 0; j < n; ++j) accs[j].add_zeros(m - stored[j]);
    } else {
      // Split over blocks of columns (at least 8, so neighbouring blocks rarely share a cache
      // line of accumulators); each column still sees the rows in order.
      const double* a = in.dense_data();  // (m, n) row-major
      parallel_for(0, n, std::max<int64_t>(8, kParallelGrain / m), [&](int64_t j0, int64_t j1) {
        for (int64_t i = 0; i < m; ++i) {
          const double* row = a + i * n;
          for (int64_t j = j0; j < j1; ++j) accs[j].add(row[j]);
        }
      });
    }
    for (int64_t j = 0; j < n; ++j) out[static_cast<size_t>(j)] = accs[j].result(m);
  }
  MatrixBlock r = MatrixBlock::dense(1, n, std::move(out));
  r.examine_format();
  return r;
}

template <template <class> class Reduce, class Ret>
Ret dispatch(const MatrixBlock& in, AggOp op) {
  switch (op) {
    case AggOp::kSum: return Reduce<SumAcc>::run(in);
    case AggOp::kSumSq: return Reduce<SumSqAcc>::run(in);
    case AggOp::kProd: return Reduce<ProdAcc>::run(in);
    case AggOp::kMean: return Reduce<MeanAcc>::run(in);
    case AggOp::kMax: return Reduce<MaxAcc>::run(in);
    case AggOp::kMin: return Reduce<MinAcc>::run(in);
    case AggOp::kVar: return Reduce<VarAcc>::run(in);
  }
  return Reduce<SumAcc>::run(in);
}

template <class Acc>
struct AllR {
  static double run(const MatrixBlock& in) { return reduce_all<Acc>(in); }
};
template <class Acc>
struct RowsR {
  static MatrixBlock run(const MatrixBlock& in) { return reduce_rows<Acc>(in); }
};
template <class Acc>
struct ColsR {
  static MatrixBlock run(const MatrixBlock& in) { return reduce_cols<Acc>(in); }
};

// `better(x, best)` is SystemDS's `>=` (max) or `<=` (min): ties move the index to the later
// position, and NaN never compares true, so NaN cells are skipped.
template <class Better>
MatrixBlock row_index(const MatrixBlock& in, double init, Better better) {
  const int64_t m = in.rows(), n = in.cols();
  std::vector<double> out(static_cast<size_t>(m), 0.0);  // (m, 1); 0 for n == 0 as SystemDS
  if (n > 0) {
    parallel_for(0, m, row_grain(n), [&](int64_t r0, int64_t r1) {
      for (int64_t i = r0; i < r1; ++i) {
        int64_t best_idx = 0;  // an all-NaN row keeps index 0 (1-based 1)
        double best = init;
        if (in.is_sparse()) {
          // The dense scan ends at the last position holding the extreme non-NaN value; find that
          // value over the stored cells and (if any) the implicit zeros, then its last position.
          const int64_t b = in.row_ptr()[i], e = in.row_ptr()[i + 1];
          const auto& ci = in.col_idx();
          const auto& v = in.csr_values();
          bool found = false;
          for (int64_t k = b; k < e; ++k) {
            if (better(v[k], best)) {
              best = v[k];
              found = true;
            }
          }
          const bool has_zeros = (e - b) < n;
          if (has_zeros && better(0.0, best)) {
            best = 0.0;
            found = true;
          }
          if (found) {
            for (int64_t k = b; k < e; ++k)
              if (v[k] == best) best_idx = ci[k];
            if (has_zeros && best == 0.0) {
              // The last column not stored in this row (col_idx is sorted).
              int64_t last_zero = n - 1;
              for (int64_t k = e - 1; k >= b && ci[k] == last_zero; --k) --last_zero;
              if (last_zero > best_idx) best_idx = last_zero;
            }
          }
        } else {
          const double* a = in.dense_data() + i * n;
          for (int64_t j = 0; j < n; ++j) {
            if (better(a[j], best)) {
              best = a[j];
              best_idx = j;
            }
          }
        }
        out[static_cast<size_t>(i)] = static_cast<double>(best_idx + 1);
      }
    });
  }
  MatrixBlock r = MatrixBlock::dense(m, 1, std::move(out));
  r.examine_format();
  return r;
}

}  // namespace

double aggregate_all(const MatrixBlock& in, AggOp op) { return dispatch<AllR, double>(in, op); }

MatrixBlock aggregate_rows(const MatrixBlock& in, AggOp op) {
  return dispatch<RowsR, MatrixBlock>(in, op);
}

MatrixBlock aggregate_cols(const MatrixBlock& in, AggOp op) {
  return dispatch<ColsR, MatrixBlock>(in, op);
}

MatrixBlock row_index_max(const MatrixBlock& in) {
  return row_index(in, -kInf, [](double x, double best) { return x >= best; });
}

MatrixBlock row_index_min(const MatrixBlock& in) {
  return row_index(in, kInf, [](double x, double best) { return x <= best; });
}

double trace(const MatrixBlock& in) {
  KahanSum k;
  const int64_t n = std::min(in.rows(), in.cols());
  if (!in.is_sparse()) {
    const double* a = in.dense_data();  // (n, n) row-major
    for (int64_t i = 0; i < n; ++i) k.add(a[i * in.cols() + i]);
    return k.sum;
  }
  // Stored diagonal cells only; an implicit zero adds nothing.
  const auto& rp = in.row_ptr();
  const auto& ci = in.col_idx();
  const auto& v = in.csr_values();
  for (int64_t i = 0; i < n; ++i) {
    const auto b = ci.begin() + rp[i], e = ci.begin() + rp[i + 1];
    const auto it = std::lower_bound(b, e, static_cast<int32_t>(i));
    if (it != e && *it == i) k.add(v[static_cast<size_t>(it - ci.begin())]);
  }
  return k.sum;
}

}  // namespace dmlrt::kernels::cpu
