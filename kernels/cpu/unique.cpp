// unique, uniquer, uniquec on host blocks.
#include "kernels/cpu/unique.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace dmlrt::kernels::cpu {
namespace {

// Note [Java HashSet order]
// SystemDS returns a HashSet<Double>'s iteration order, which is deterministic, and this class
// follows java.util.HashMap's algorithm to reproduce it: buckets in index order, each bucket a
// linked list walked from its head. The index is spread(Double.hashCode(v)) & (capacity - 1),
// spread(h) = h ^ (h >>> 16), Double.hashCode the xor of doubleToLongBits' halves. The table
// starts at 16 buckets and doubles when the size exceeds 0.75 * capacity (a resize splits each
// list keeping its order). A new key is appended to its list; when a list reaches 9 nodes the
// table doubles if it has fewer than 64 buckets, else the bucket becomes a red-black tree
// (ordered by hash, then Double.compare): a tree's list has each new node linked right after its
// tree parent and the root moved to the head after every insertion (moveRootToFront); a resize
// splits a tree's list in order and untreeifies a part of 6 or fewer nodes, or re-treeifies a
// part when both parts are non-empty. Integer values reach trees from about 256 distinct ones.
class JavaDoubleHashSet {
 public:
  void clear() {  // as HashSet.clear(): empties the buckets, keeps the capacity
    std::fill(head_.begin(), head_.end(), kNil);
    std::fill(tree_.begin(), tree_.end(), false);
    nodes_.clear();
  }

  void add(double v) {
    const uint64_t bits = java_bits(v);
    const uint32_t h0 = static_cast<uint32_t>(bits ^ (bits >> 32));
    const int32_t h = static_cast<int32_t>(h0 ^ (h0 >> 16));
    if (head_.empty()) resize();
    const size_t i = index(h);
    int p = head_[i];
    if (p == kNil) {
      head_[i] = new_node(bits, v, h, kNil);
    } else if (nodes_[p].bits == bits) {
      return;
    } else if (tree_[i]) {
      if (!put_tree_val(i, bits, v, h)) return;
    } else {
      for (int bin_count = 0;; ++bin_count) {
        const int e = nodes_[p].next;
        if (e == kNil) {
          const int x = new_node(bits, v, h, kNil);
          nodes_[p].next = x;
          if (bin_count >= 7) treeify_bin(h);
          break;
        }
        if (nodes_[e].bits == bits) return;
        p = e;
      }
    }
    if (nodes_.size() > head_.size() * 3 / 4) resize();
  }

  size_t size() const { return nodes_.size(); }

  template <typename F>
  void for_each(F&& f) const {
    for (int b : head_)
      for (int e = b; e != kNil; e = nodes_[e].next) f(nodes_[e].value);
  }

 private:
  static constexpr int kNil = -1;

  struct Node {
    uint64_t bits;
    double value;
    int32_t hash;
    int next, prev = kNil, parent = kNil, left = kNil, right = kNil;
    bool red = false;
  };

  // Double.doubleToLongBits: every NaN is the canonical one.
  static uint64_t java_bits(double v) {
    if (v != v) return 0x7ff8000000000000ULL;
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  }

  // Double.compare: -0.0 < 0.0, NaN above everything.
  static int java_compare(double a, double b) {
    if (a < b) return -1;
    if (a > b) return 1;
    const uint64_t x = java_bits(a), y = java_bits(b);
    return x == y ? 0 : (static_cast<int64_t>(x) < static_cast<int64_t>(y) ? -1 : 1);
  }

  size_t index(int32_t h) const { return static_cast<uint32_t>(h) & (head_.size() - 1); }

  int new_node(uint64_t bits, double v, int32_t h, int next) {
    nodes_.push_back(Node{bits, v, h, next});
    return static_cast<int>(nodes_.size() - 1);
  }

  // Tree order of key (h, v) against node p: HashMap compares hashes, then compareTo.
  int dir_of(int32_t h, double v, int p) const {
    const int32_t ph = nodes_[p].hash;
    if (ph > h) return -1;
    if (ph < h) return 1;
    return java_compare(v, nodes_[p].value);
  }

  int rotate_left(int root, int p) {
    const int r = nodes_[p].right;
    if (r == kNil) return root;
    const int rl = nodes_[p].right = nodes_[r].left;
    if (rl != kNil) nodes_[rl].parent = p;
    const int pp = nodes_[r].parent = nodes_[p].parent;
    if (pp == kNil) {
      root = r;
      nodes_[r].red = false;
    } else if (nodes_[pp].left == p) {
      nodes_[pp].left = r;
    } else {
      nodes_[pp].right = r;
    }
    nodes_[r].left = p;
    nodes_[p].parent = r;
    return root;
  }

  int rotate_right(int root, int p) {
    const int l = nodes_[p].left;
    if (l == kNil) return root;
    const int lr = nodes_[p].left = nodes_[l].right;
    if (lr != kNil) nodes_[lr].parent = p;
    const int pp = nodes_[l].parent = nodes_[p].parent;
    if (pp == kNil) {
      root = l;
      nodes_[l].red = false;
    } else if (nodes_[pp].right == p) {
      nodes_[pp].right = l;
    } else {
      nodes_[pp].left = l;
    }
    nodes_[l].right = p;
    nodes_[p].parent = l;
    return root;
  }

  int balance_insertion(int root, int x) {
    nodes_[x].red = true;
    for (;;) {
      int xp = nodes_[x].parent, xpp;
      if (xp == kNil) {
        nodes_[x].red = false;
        return x;
      }
      if (!nodes_[xp].red || (xpp = nodes_[xp].parent) == kNil) return root;
      const int xppl = nodes_[xpp].left;
      if (xp == xppl) {
        const int xppr = nodes_[xpp].right;
        if (xppr != kNil && nodes_[xppr].red) {
          nodes_[xppr].red = false;
          nodes_[xp].red = false;
          nodes_[xpp].red = true;
          x = xpp;
        } else {
          if (x == nodes_[xp].right) {
            x = xp;
            root = rotate_left(root, x);
            xp = nodes_[x].parent;
            xpp = xp == kNil ? kNil : nodes_[xp].parent;
          }
          if (xp != kNil) {
            nodes_[xp].red = false;
            if (xpp != kNil) {
              nodes_[xpp].red = true;
              root = rotate_right(root, xpp);
            }
          }
        }
      } else {
        if (xppl != kNil && nodes_[xppl].red) {
          nodes_[xppl].red = false;
          nodes_[xp].red = false;
          nodes_[xpp].red = true;
          x = xpp;
        } else {
          if (x == nodes_[xp].left) {
            x = xp;
            root = rotate_right(root, x);
            xp = nodes_[x].parent;
            xpp = xp == kNil ? kNil : nodes_[xp].parent;
          }
          if (xp != kNil) {
            nodes_[xp].red = false;
            if (xpp != kNil) {
              nodes_[xpp].red = true;
              root = rotate_left(root, xpp);
            }
          }
        }
      }
    }
  }

  void move_root_to_front(int root) {
    const size_t i = index(nodes_[root].hash);
    const int first = head_[i];
    if (root == first) return;
    head_[i] = root;
    const int rp = nodes_[root].prev, rn = nodes_[root].next;
    if (rn != kNil) nodes_[rn].prev = rp;
    if (rp != kNil) nodes_[rp].next = rn;
    if (first != kNil) nodes_[first].prev = root;
    nodes_[root].next = first;
    nodes_[root].prev = kNil;
  }

  // Builds the tree of bucket i from its list order (TreeNode.treeify).
  void treeify(size_t i) {
    int root = kNil;
    for (int x = head_[i], next; x != kNil; x = next) {
      next = nodes_[x].next;
      nodes_[x].left = nodes_[x].right = kNil;
      if (root == kNil) {
        nodes_[x].parent = kNil;
        nodes_[x].red = false;
        root = x;
        continue;
      }
      for (int p = root;;) {
        const int dir = dir_of(nodes_[x].hash, nodes_[x].value, p);
        const int xp = p;
        p = dir <= 0 ? nodes_[p].left : nodes_[p].right;
        if (p == kNil) {
          nodes_[x].parent = xp;
          (dir <= 0 ? nodes_[xp].left : nodes_[xp].right) = x;
          root = balance_insertion(root, x);
          break;
        }
      }
    }
    move_root_to_front(root);
  }

  void treeify_bin(int32_t h) {
    if (head_.size() < 64) {
      resize();
      return;
    }
    const size_t i = index(h);
    int prev = kNil;
    for (int e = head_[i]; e != kNil; e = nodes_[e].next) {
      nodes_[e].prev = prev;
      prev = e;
    }
    tree_[i] = true;
    treeify(i);
  }

  // TreeNode.putTreeVal: false when the key is there.
  bool put_tree_val(size_t i, uint64_t bits, double v, int32_t h) {
    int root = head_[i];
    while (nodes_[root].parent != kNil) root = nodes_[root].parent;
    for (int p = root;;) {
      if (nodes_[p].hash == h && nodes_[p].bits == bits) return false;
      const int dir = dir_of(h, v, p);
      const int xp = p;
      p = dir <= 0 ? nodes_[p].left : nodes_[p].right;
      if (p == kNil) {
        const int xpn = nodes_[xp].next;
        const int x = new_node(bits, v, h, xpn);
        (dir <= 0 ? nodes_[xp].left : nodes_[xp].right) = x;
        nodes_[xp].next = x;
        nodes_[x].parent = nodes_[x].prev = xp;
        if (xpn != kNil) nodes_[xpn].prev = x;
        move_root_to_front(balance_insertion(root, x));
        return true;
      }
    }
  }

  // Links the nodes of `part` (in order) as bucket j's list; a tree when asked.
  void place(size_t j, const std::vector<int>& part, bool as_tree, bool rebuild) {
    int prev = kNil;
    for (int e : part) {
      nodes_[e].prev = prev;
      nodes_[e].next = kNil;
      if (prev != kNil) nodes_[prev].next = e;
      prev = e;
    }
    head_[j] = part.front();
    tree_[j] = as_tree;
    if (as_tree && rebuild) treeify(j);
  }

  void resize() {
    const size_t old_cap = head_.size(), cap = old_cap == 0 ? 16 : old_cap * 2;
    std::vector<int> old_head(cap, kNil);
    std::vector<bool> old_tree(cap, false);
    old_head.swap(head_);
    old_tree.swap(tree_);
    for (size_t j = 0; j < old_cap; ++j) {
      std::vector<int> lo, hi;
      for (int e = old_head[j]; e != kNil; e = nodes_[e].next)
        ((static_cast<uint32_t>(nodes_[e].hash) & old_cap) == 0 ? lo : hi).push_back(e);
      if (!old_tree[j]) {
        if (!lo.empty()) place(j, lo, false, false);
        if (!hi.empty()) place(j + old_cap, hi, false, false);
        continue;
      }
      // TreeNode.split: a part keeps the old tree when the other is empty.
      if (!lo.empty()) place(j, lo, lo.size() > 6, !hi.empty());
      if (!hi.empty()) place(j + old_cap, hi, hi.size() > 6, !lo.empty());
    }
  }

  std::vector<int> head_;   // first node of each bucket
  std::vector<bool> tree_;  // whether the bucket is a tree bin
  std::vector<Node> nodes_;
};

}  // namespace

MatrixBlock unique_values(const MatrixBlock& in, UniqueDir dir) {
  const int64_t m = in.rows(), n = in.cols();
  const MatrixBlock d = in.is_sparse() ? in.to_dense() : in;
  auto at = [&](int64_t i, int64_t j) { return d.get(i, j); };
  JavaDoubleHashSet set;
  if (dir == UniqueDir::kAll) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) set.add(at(i, j));
    std::vector<double> out;
    out.reserve(set.size());
    set.for_each([&](double v) { out.push_back(v); });
    const auto d_rows = static_cast<int64_t>(out.size());
    MatrixBlock res = MatrixBlock::dense(d_rows, 1, std::move(out));
    res.examine_format();
    return res;
  }
  // Row and column: the outer index walks rows (kRow) or columns (kCol); a first pass finds the
  // widest set, as SystemDS, so that the set's capacity evolves as there.
  const bool by_row = dir == UniqueDir::kRow;
  const int64_t outer = by_row ? m : n, inner = by_row ? n : m;
  auto fill = [&](int64_t o) {
    set.clear();
    for (int64_t k = 0; k < inner; ++k) set.add(by_row ? at(o, k) : at(k, o));
  };
  size_t width = 0;
  for (int64_t o = 0; o < outer; ++o) {
    fill(o);
    width = std::max(width, set.size());
  }
  const int64_t w = static_cast<int64_t>(width);
  const int64_t rows = by_row ? m : w, cols = by_row ? w : n;
  std::vector<double> out(static_cast<size_t>(rows * cols), 0.0);  // row-major
  for (int64_t o = 0; o < outer; ++o) {
    fill(o);
    int64_t pos = 0;
    set.for_each([&](double v) {
      out[static_cast<size_t>(by_row ? o * cols + pos : pos * cols + o)] = v;
      ++pos;
    });
  }
  MatrixBlock res = MatrixBlock::dense(rows, cols, std::move(out));
  res.examine_format();
  return res;
}

}  // namespace dmlrt::kernels::cpu
