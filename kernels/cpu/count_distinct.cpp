// countDistinct / countDistinctApprox on host blocks (count_distinct.h).
#include "kernels/cpu/count_distinct.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <set>
#include <unordered_set>
#include <vector>

#include "kernels/kmv.h"

namespace dmlrt::kernels::cpu {
namespace {

// Note [countDistinct as SystemDS counts]
// SystemDS 3.4 (LibMatrixCountDistinct.estimateDistinctValues) answers 1 in a (1, 1) block for an
// input with no non-zero or of one cell, whatever the direction (rowCountDistinct of a 3x4 zero
// matrix is the 1x1 matrix [1]). Otherwise it counts exactly (a HashSet<Double>) when the
// non-zeros per counted unit (all / per row on average / per column on average) are below 1024,
// always for countDistinct and also for countDistinctApprox; only above that does the approximate
// op use its KMV sketch (kmv_* below). The exact count of the whole matrix adds the value 0 when
// there are fewer non-zeros than cells; a dense row or column counts all its cells, but a sparse
// one only its stored values, so the same matrix counts its zeros dense and not sparse. dmlrt
// keeps all of this; the block's format is dmlrt's, which follows SystemDS's sparse rule
// (MatrixBlock::prefers_sparse), so the two agree where both pick the same format.

using kmv::java_bits;

using BitsSet = std::unordered_set<uint64_t>;

// Calls f(row, col, value) for every stored value (every cell of a dense block).
template <typename F>
void for_each_stored(const MatrixBlock& in, F&& f) {
  if (in.is_sparse()) {
    const auto& rp = in.row_ptr();
    const auto& ci = in.col_idx();
    const auto& v = in.csr_values();
    for (int64_t r = 0; r < in.rows(); ++r)
      for (int64_t p = rp[r]; p < rp[r + 1]; ++p) f(r, static_cast<int64_t>(ci[p]), v[p]);
  } else {
    const double* a = in.dense_data();
    for (int64_t r = 0; r < in.rows(); ++r)
      for (int64_t c = 0; c < in.cols(); ++c) f(r, c, a[r * in.cols() + c]);
  }
}

MatrixBlock exact(const MatrixBlock& in, CountDistinctDir dir) {
  switch (dir) {
    case CountDistinctDir::kAll: {
      BitsSet s;
      if (in.nnz() < in.size()) s.insert(java_bits(0.0));
      for_each_stored(in, [&](int64_t, int64_t, double v) { s.insert(java_bits(v)); });
      return MatrixBlock::dense(1, 1, static_cast<double>(s.size()));
    }
    case CountDistinctDir::kRow: {
      std::vector<BitsSet> s(in.rows());
      for_each_stored(in, [&](int64_t r, int64_t, double v) { s[r].insert(java_bits(v)); });
      std::vector<double> out(in.rows());
      for (int64_t r = 0; r < in.rows(); ++r) out[r] = static_cast<double>(s[r].size());
      return MatrixBlock::dense(in.rows(), 1, std::move(out));
    }
    case CountDistinctDir::kCol: {
      std::vector<BitsSet> s(in.cols());
      for_each_stored(in, [&](int64_t, int64_t c, double v) { s[c].insert(java_bits(v)); });
      std::vector<double> out(in.cols());
      for (int64_t c = 0; c < in.cols(); ++c) out[c] = static_cast<double>(s[c].size());
      return MatrixBlock::dense(1, in.cols(), std::move(out));
    }
  }
  return {};
}

// Java's Double.compare order (NaN last, -0.0 before 0.0), the order of SystemDS's
// PriorityQueue<Double>.
struct JavaDoubleLess {
  bool operator()(double a, double b) const {
    if (a < b) return true;
    if (a > b) return false;
    return static_cast<int64_t>(java_bits(a)) < static_cast<int64_t>(java_bits(b));
  }
};

// The k smallest distinct values offered (SystemDS's SmallestPriorityQueue keeps exactly these).
class KSmallest {
 public:
  explicit KSmallest(int64_t k) : k_(k) {}
  void add(double v) {
    if (static_cast<int64_t>(s_.size()) < k_) {
      s_.insert(v);
    } else if (JavaDoubleLess()(v, *s_.rbegin()) && !s_.count(v)) {
      s_.insert(v);
      s_.erase(std::prev(s_.end()));
    }
  }
  // KMVSketch's estimate (kernels/kmv.h).
  double estimate(int64_t D, int32_t M) const {
    return kmv::estimate(static_cast<int64_t>(s_.size()), k_, s_.empty() ? 0.0 : *s_.rbegin(), D,
                         M);
  }
  void clear() { s_.clear(); }

 private:
  int64_t k_;
  std::set<double, JavaDoubleLess> s_;
};

// The whole matrix: hashes of the stored values into [1, M - 1].
MatrixBlock kmv_all(const MatrixBlock& in) {
  const int64_t D = in.nnz() + 1;
  const int32_t M = kmv::sketch_m(D);
  KSmallest spq(kmv::sketch_k(D));
  for_each_stored(in, [&](int64_t, int64_t, double v) { spq.add(kmv::bucket(v, M)); });
  return MatrixBlock::dense(1, 1, spq.estimate(D, M));
}

// Per row (per column): SystemDS's row/column KMV keeps the k smallest cell values themselves,
// zeros included, not their hashes; reproduced as it is.
MatrixBlock kmv_lines(const MatrixBlock& in, bool rows) {
  const int64_t lines = rows ? in.rows() : in.cols(), len = rows ? in.cols() : in.rows();
  const int64_t D = static_cast<int64_t>(std::floor(in.nnz() / static_cast<double>(lines))) + 1;
  const int32_t M = kmv::sketch_m(D);
  KSmallest spq(kmv::sketch_k(D));
  std::vector<double> out(lines);
  for (int64_t i = 0; i < lines; ++i) {
    spq.clear();
    for (int64_t j = 0; j < len; ++j) spq.add(rows ? in.get(i, j) : in.get(j, i));
    out[i] = spq.estimate(D, M);
  }
  return rows ? MatrixBlock::dense(lines, 1, std::move(out))
              : MatrixBlock::dense(1, lines, std::move(out));
}

}  // namespace

MatrixBlock count_distinct(const MatrixBlock& in, CountDistinctDir dir, bool approx) {
  const int64_t nnz = in.nnz();
  if (in.size() == 1 || nnz == 0) return MatrixBlock::dense(1, 1, 1.0);
  constexpr int64_t kMinimumSize = 1024;  // LibMatrixCountDistinct.minimumSize
  const int64_t per_unit =
      dir == CountDistinctDir::kAll
          ? nnz
          : static_cast<int64_t>(std::floor(
                nnz / static_cast<double>(dir == CountDistinctDir::kRow ? in.rows() : in.cols())));
  if (!approx || per_unit < kMinimumSize) return exact(in, dir);
  if (dir == CountDistinctDir::kAll) return kmv_all(in);
  const MatrixBlock dense = in.is_sparse() ? in.to_dense() : MatrixBlock();
  return kmv_lines(in.is_sparse() ? dense : in, dir == CountDistinctDir::kRow);
}

}  // namespace dmlrt::kernels::cpu
