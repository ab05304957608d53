// rowClassMeet (row_class_meet.h).
//
// Note [rcm label order]
// SystemDS numbers a row's classes in the iteration order of a HashMap<ClassLabel, list> whose
// key hash is 31 * (31 + a) + b (int arithmetic), cleared — keeping its capacity — before each
// row. JavaPairMap follows java.util.HashMap: buckets in index order, each a list in insertion
// order; the index is (h ^ (h >>> 16)) & (capacity - 1); the table starts at 16 buckets and
// doubles when the size exceeds 0.75 * capacity, or when a list reaches 9 nodes while the table
// has fewer than 64 buckets (a resize splits each list keeping its order). Java turns a list of
// 9+ nodes in a table of 64+ buckets into a red-black tree, whose order for these keys (not
// Comparable) falls back to identity hash codes and so differs from run to run in Java itself;
// that case (labels above 31 with many hash collisions in one row) is not reproduced.
// SystemDS's sparse-A path skips only A's stored zeros, so a stored label in (-1, 1) counts as 0
// there but is left out by its dense path; dmlrt follows the dense path for both.
#include "kernels/cpu/row_class_meet.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace dmlrt::kernels::cpu {
namespace {

// Java's (int) cast of a double.
int32_t java_int(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  if (v <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

class JavaPairMap {
 public:
  struct Node {
    int32_t a, b;
    uint32_t hash;
    int next;
    std::vector<int64_t> cols;
  };

  void clear() {  // HashMap.clear(): empty buckets, same capacity
    std::fill(head_.begin(), head_.end(), kNil);
    nodes_.clear();
  }

  void add(int32_t a, int32_t b, int64_t col) {
    const uint32_t h0 = 31u * (31u + static_cast<uint32_t>(a)) + static_cast<uint32_t>(b);
    const uint32_t h = h0 ^ (h0 >> 16);
    if (head_.empty()) resize();
    const size_t i = h & (head_.size() - 1);
    if (head_[i] == kNil) {
      head_[i] = new_node(a, b, h, col);
    } else {
      int p = head_[i];
      for (int bin_count = 0;; ++bin_count) {
        if (nodes_[p].a == a && nodes_[p].b == b) {
          nodes_[p].cols.push_back(col);
          return;
        }
        if (nodes_[p].next == kNil) {
          nodes_[p].next = new_node(a, b, h, col);
          if (bin_count >= 7 && head_.size() < 64) resize();  // treeifyBin on a small table
          break;
        }
        p = nodes_[p].next;
      }
    }
    if (nodes_.size() > head_.size() * 3 / 4) resize();
  }

  template <typename F>
  void for_each(F&& f) const {
    for (int h : head_)
      for (int e = h; e != kNil; e = nodes_[e].next) f(nodes_[e]);
  }

 private:
  static constexpr int kNil = -1;

  int new_node(int32_t a, int32_t b, uint32_t h, int64_t col) {
    nodes_.push_back({a, b, h, kNil, {col}});
    return static_cast<int>(nodes_.size()) - 1;
  }

  // Doubles the table (16 first); each old list goes, in order, to the tails of its two halves.
  void resize() {
    std::vector<int> old = std::move(head_);
    head_.assign(old.empty() ? 16 : old.size() * 2, kNil);
    std::vector<int> tail(head_.size(), kNil);
    for (int h : old) {
      for (int e = h; e != kNil;) {
        const int next = nodes_[e].next;
        const size_t i = nodes_[e].hash & (head_.size() - 1);
        nodes_[e].next = kNil;
        (tail[i] == kNil ? head_[i] : nodes_[tail[i]].next) = e;
        tail[i] = e;
        e = next;
      }
    }
  }

  std::vector<int> head_;
  std::vector<Node> nodes_;
};

}  // namespace

ClassMeet row_class_meet(const MatrixBlock& a, const MatrixBlock& b) {
  const int64_t nr = std::max(a.rows(), b.rows()), nc = std::max(a.cols(), b.cols());
  const int64_t num_cols = std::min(a.cols(), b.cols());
  const bool mv = b.rows() == 1;
  ClassMeet out{MatrixBlock::dense(nr, nc), MatrixBlock::dense(nr, nc)};
  double* dc = out.c.dense_data();
  double* dn = out.n.dense_data();
  JavaPairMap map;
  for (int64_t i = 0; i < a.rows(); ++i) {
    map.clear();
    const int64_t bi = mv ? 0 : i;
    for (int64_t j = 0; j < num_cols; ++j) {
      const int32_t av = java_int(a.get(i, j));
      if (av == 0) continue;
      const int32_t bv = java_int(b.get(bi, j));
      if (bv != 0) map.add(av, bv, j);
    }
    double label = 1;
    map.for_each([&](const JavaPairMap::Node& node) {
      for (int64_t j : node.cols) {
        dc[i * nc + j] = label;
        dn[i * nc + j] = static_cast<double>(node.cols.size());
      }
      ++label;
    });
  }
  out.c.examine_format();
  out.n.examine_format();
  return out;
}

// The same map, fed each row's distinct pairs once: a repeated pair only appends a column, so
// the order depends on the sequence of first occurrences alone.
std::vector<int64_t> class_numbers(const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                                   const std::vector<int64_t>& row_begin) {
  std::vector<int64_t> numbers(a.size(), 0);
  JavaPairMap map;
  for (size_t r = 0; r + 1 < row_begin.size(); ++r) {
    map.clear();
    for (int64_t k = row_begin[r]; k < row_begin[r + 1]; ++k) map.add(a[k], b[k], k);
    int64_t label = 1;
    map.for_each([&](const JavaPairMap::Node& node) { numbers[node.cols.front()] = label++; });
  }
  return numbers;
}

}  // namespace dmlrt::kernels::cpu
