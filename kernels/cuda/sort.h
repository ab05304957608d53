// Sort-based device ops (host-clean launchers; CUB radix sorts in sort.cu): order() (rsort), qsort
// with and without weights, the tables and picks of qpick (quantiles, median, IQM), and the
// (segment, value) grouping behind unique/uniquer/uniquec and countDistinct (uacd, uacdr, uacdc,
// and the KMV estimates of uacdap, uacdapr, uacdapc).
// Pointers are device pointers; T is double or float; `stream` is a cudaStream_t. Launchers never
// synchronise: what a caller needs on the host (counts, picked values) it copies back itself.
// CUB's temporary storage and every buffer the ops need come from a Scratch (Note [Device
// scratch]). See Note [GPU sort keys].
//
// Note [GPU sort keys]
// Every value is sorted as a uint64 key that orders like Java's Double.compare, the order of the
// CPU kernels (kernels/cpu/sort.cpp, unique.cpp, count_distinct.cpp): NaN is canonicalised (all
// NaNs are one value, above +Inf), negative values have all bits flipped and the others only the
// sign bit, so -0.0 < 0.0 and equal keys are exactly Java-equal Doubles. A float input is widened
// to double first (exact, order-preserving). CUB's radix sort is stable, so ties keep their input
// order as std::stable_sort does on the CPU; decreasing order sorts the complemented keys
// ascending (ties still in input order, as SystemDS's decreasing sort).
#pragma once

#include <cstdint>
#include <vector>

#include "gpu_context/cuda_types.h"
#include "kernels/cuda/scratch.h"

namespace dmlrt::kernels::cuda {

// ---- rsort ------------------------------------------------------------------------------------

// perm (m): the source row of each output row of x (m, n) row-major sorted stably by the 0-based
// columns `by` (lexicographically; an LSD sequence of stable sorts, last column first).
template <typename T>
void sort_rows_permutation(const T* x, int64_t m, int64_t n, const std::vector<int64_t>& by,
                           bool decreasing, int64_t* perm, Scratch& scratch, cudaStream_t stream);
// out (m, n) row-major: row i is x's row perm[i].
template <typename T>
void launch_gather_rows(const T* x, int64_t m, int64_t n, const int64_t* perm, T* out,
                        cudaStream_t stream);
// out (m): perm[i] + 1 (1-based row indices, exact up to 2^24 in float, 2^53 in double).
template <typename T>
void launch_one_based(const int64_t* perm, int64_t m, T* out, cudaStream_t stream);

// ---- qsort ------------------------------------------------------------------------------------

// out (m): x (m) ascending in Java order (qsort without weights).
template <typename T>
void sort_values(const T* x, int64_t m, T* out, Scratch& scratch, cudaStream_t stream);
// *count = the number of x != 0 (NaN counts), exactly (integer atomics).
template <typename T>
void launch_count_nonzero(const T* x, int64_t m, unsigned long long* count, cudaStream_t stream);
// SystemDS's weighted qsort table (kernels/cpu/sort.h sort_weighted): table (nonzeros + 1, 2)
// row-major: (value, weight) of every nonzero value and one row (0, summed weight of the zeros,
// -0.0 included), sorted stably by value. `nonzeros` is launch_count_nonzero's count.
template <typename T>
void sort_weighted(const T* x, const T* w, int64_t m, int64_t nonzeros, T* table, Scratch& scratch,
                   cudaStream_t stream);

// ---- qpick ------------------------------------------------------------------------------------

// A (value, weight) table in double, its running weight (cum) and the running maximum of cum
// (cmax, monotone even for negative weights: the first row where cmax >= p is the first where
// cum >= p, the row the CPU's linear walk stops at). All k entries long.
struct PickTable {
  double* val = nullptr;
  double* wt = nullptr;
  double* cum = nullptr;
  double* cmax = nullptr;
  int64_t k = 0;
};
PickTable alloc_pick_table(int64_t k, Scratch& scratch);
// pick_value's table of a (m) column (kernels/cpu/sort.cpp): its nonzero values in order, weight
// 1, with one row (0, m - nonzeros) before the first value that is not negative. t.k must be
// nonzeros + 1.
template <typename T>
void build_zero_row_table(const T* x, int64_t m, int64_t nonzeros, const PickTable& t,
                          Scratch& scratch, cudaStream_t stream);
// The table of qsort's weighted output x (k, 2) row-major.
template <typename T>
void build_weighted_table(const T* x, const PickTable& t, cudaStream_t stream);
// The table of sorted values x (m) with weight 1 each (IQM without weights).
template <typename T>
void build_unit_table(const T* x, const PickTable& t, cudaStream_t stream);
// *first = the first row whose weight is not an integer (floor(w) < w), or ~0ull.
void launch_first_noninteger(const PickTable& t, unsigned long long* first, cudaStream_t stream);
// *sum = the total weight.
void sum_weights(const PickTable& t, double* sum, Scratch& scratch, cudaStream_t stream);
// Fills cum and cmax from the weights.
void scan_weights(const PickTable& t, Scratch& scratch, cudaStream_t stream);
// *out = pick_weighted_value(table, q, average) of kernels/cpu/sort.cpp for total weight W
// (average already combined with "W is even" by the caller, as the CPU does). One thread.
template <typename Out>
void launch_pick(const PickTable& t, double W, double q, bool average, Out* out,
                 cudaStream_t stream);
// IQM in two steps around a host read: bounds[0..1] = the rows (i25, i75) of the CPU's walk;
// then *out = the interquartile mean, with the sum of val * wt over rows (i25, i75].
void launch_iqm_bounds(const PickTable& t, double W, int64_t* bounds, cudaStream_t stream);
void iqm_finish(const PickTable& t, double W, int64_t i25, int64_t i75, double* out,
                Scratch& scratch, cudaStream_t stream);

// ---- unique and countDistinct -----------------------------------------------------------------

// keys[i] = the Java key of x[i] (Note [GPU sort keys]), count values in x's order.
template <typename T>
void launch_java_keys(const T* x, int64_t count, uint64_t* keys, cudaStream_t stream);
// keys[c * m + r] = the key of x[r * n + c]: column-major order, one column after the other.
template <typename T>
void launch_java_keys_colmajor(const T* x, int64_t m, int64_t n, uint64_t* keys,
                               cudaStream_t stream);
// *slot = key(+0.0) when some x == 0 (-0.0 included), else unchanged (the caller sets it first).
template <typename T>
void launch_mark_zero(const T* x, int64_t count, uint64_t* slot, cudaStream_t stream);
// *dst = *src (one key), or key(+0.0) when src is null.
void launch_set_key(uint64_t* dst, const uint64_t* src, cudaStream_t stream);
// seg[i] = i / inner (by_row) or i % inner (by column) for `count` row-major cells.
void launch_index_segments(int64_t count, int64_t inner, bool by_row, int64_t* seg,
                           cudaStream_t stream);
// seg[p] = the row (by_row) or the column of CSR entry p; I is int32_t or int64_t.
template <typename I>
void launch_csr_segments(const I* row_ptr, const I* col_idx, int64_t m, int64_t nnz, bool by_row,
                         int64_t* seg, cudaStream_t stream);
// perm (count): the positions 0..count-1 ordered by (seg[p], keys[p], p) — seg null means one
// segment; num_segs bounds the segment ids (fewer radix passes).
void sort_by_segment_and_key(const uint64_t* keys, const int64_t* seg, int64_t count,
                             int64_t num_segs, int64_t* perm, Scratch& scratch,
                             cudaStream_t stream);
// counts (num_segs, zeroed here): the distinct keys of each segment of the sorted perm.
void launch_count_distinct(const uint64_t* keys, const int64_t* seg, const int64_t* perm,
                           int64_t count, unsigned long long* counts, int64_t num_segs,
                           cudaStream_t stream);
// countDistinctApprox (KMV, kernels/kmv.h): keys[i] = the Java key of x[i]'s hash bucket in
// [1, M - 1], count values in x's order (the CPU's kmv_all hashes the same stored values).
template <typename T>
void launch_kmv_bucket_keys(const T* x, int64_t count, int32_t M, uint64_t* keys,
                            cudaStream_t stream);
// est (num_segs): the KMV estimate of each segment of the sorted perm, segment s being the sorted
// positions [s * len, (s + 1) * len) — the k smallest distinct keys of each, the k-th one's value
// and kmv::estimate(distinct, k, kth, D, M).
void kmv_estimates(const uint64_t* keys, const int64_t* seg, const int64_t* perm, int64_t num_segs,
                   int64_t len, int64_t k, int64_t D, int32_t M, double* est, Scratch& scratch,
                   cudaStream_t stream);
// out[i] = est[i] as T.
template <typename T>
void launch_estimates_to_values(const double* est, int64_t n, T* out, cudaStream_t stream);
// out[i] = counts[i] as T.
template <typename T>
void launch_counts_to_values(const unsigned long long* counts, int64_t n, T* out,
                             cudaStream_t stream);
// positions (room for count; the first *num are set, num on the device): the first position of
// every distinct (seg, key) of the sorted perm, ascending — so grouped by segment (when segments
// are ascending in position), each group in first-occurrence order.
void select_first_positions(const uint64_t* keys, const int64_t* seg, const int64_t* perm,
                            int64_t count, int64_t* positions, int64_t* num, Scratch& scratch,
                            cudaStream_t stream);
// out[i] = the double value of keys[positions[i]] (NaN canonical).
void launch_values_at(const uint64_t* keys, const int64_t* positions, int64_t count, double* out,
                      cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
