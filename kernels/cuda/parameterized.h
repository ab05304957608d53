// Launchers of the parameterized-builtin kernel family (host-clean): contains, replace (dense, and
// CSR with the compaction a replacement by 0 needs) and the one-entry-per-row CSR builder of
// rexpand and table(seq(1, m), v, w) (ctableexpand), with the CPU kernels' rules
// (kernels/cpu/parameterized.h, kernels/cpu/ctable.h). Pointers are device pointers; `stream` is
// a cudaStream_t; nothing synchronises. T is double or float; patterns and values are compared
// in double, as the CPU compares the (float-rounded) host values.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// *found = 1 when one of the n values equals `pattern` (a NaN pattern matches NaN); the caller
// zeroes *found before. Nothing is launched for n == 0.
template <typename T>
void launch_contains(const T* v, int64_t n, double pattern, int32_t* found, cudaStream_t stream);

// out[i] = in[i] matches pattern ? replacement : in[i] for n values (out may be in).
template <typename T>
void launch_replace(const T* in, int64_t n, double pattern, double replacement, T* out,
                    cudaStream_t stream);

// replace(pattern != 0, replacement 0) of an (m, ?) int32 CSR: the matching entries are dropped.
// (1) out_rp[0] = 0 and out_rp[r + 1] = the entries of row r that stay; (2) the caller scans
// out_rp + 1 in place (launch_csr_scan, csr_ops.h) and reads nnz = out_rp[m]; (3) the fill copies
// the staying entries in row order.
template <typename T>
void launch_replace_csr_counts(const int32_t* rp, const T* v, int64_t m, double pattern,
                               int32_t* out_rp, cudaStream_t stream);
template <typename T>
void launch_replace_csr_fill(const int32_t* rp, const int32_t* ci, const T* v, int64_t m,
                             double pattern, const int32_t* out_rp, int32_t* out_ci, T* out_v,
                             cudaStream_t stream);

// Note [One entry per row]
// rexpand(v, max, dir=cols) and table(seq(1, m), v, w) have at most one entry in output row i,
// at column c_i - 1 where c_i is v_i as an index; dir=rows and table(v, seq(1, m), w) are their
// transposes (the caller transposes the CSR: cuSPARSE csr2csc, columns sorted as on the CPU).
// (1) onehot_flags sets out_rp[0] = 0 and out_rp[i + 1] = 1 for the rows that get an entry, and
// folds into `stats` (two uint64, the caller sets [0] = UINT64_MAX and [1] = 0) the first row
// with an invalid value ([0], atomicMin) and, for ctableexpand, the largest in-range index ([1],
// atomicMax);
// (2) the caller scans out_rp + 1 (launch_csr_scan) and reads nnz = out_rp[m] with the stats
// (the one synchronisation: the output's shape and errors depend on the data); (3) onehot_fill
// writes the entries. Rows follow the CPU kernels exactly:
//   kRexpandCast / kRexpandTrunc: c = toLong(v) / trunc(v); NaN or c <= 0 is invalid (the caller
//     raises it or, with ignore=true, drops it); c > limit is dropped; the value is 1.
//   kCtableExpand: a NaN v or weight is skipped; c = toLong(v) <= 0 is invalid; c > limit
//     (limit >= 0) is dropped; the largest kept c is stats[1]; the value is the weight, and a
//     zero weight gives no entry (the CPU drops zeros).
enum class OneHotMode { kRexpandCast, kRexpandTrunc, kCtableExpand };

struct OneHotArgs {
  OneHotMode mode = OneHotMode::kRexpandCast;
  int64_t m = 0;       // cells of v
  int64_t limit = -1;  // dropped above this index; < 0: nothing dropped
  // ctableexpand's weights: w (m cells) or, when null, w_scalar for every row.
  double w_scalar = 1.0;
};

template <typename T>
void launch_onehot_flags(const T* v, const T* w, const OneHotArgs& args, int32_t* out_rp,
                         unsigned long long* stats, cudaStream_t stream);
template <typename T>
void launch_onehot_fill(const T* v, const T* w, const OneHotArgs& args, const int32_t* out_rp,
                        int32_t* out_ci, T* out_v, cudaStream_t stream);

// Note [GPU grouped aggregates]
// aggregate(target, groups, fn=sum|count|mean, [weights], [ngroups]) as kernels/cpu
// grouped_aggregate: (1) group_ids_scan folds into `stats` (two uint64; the caller sets [0] =
// UINT64_MAX, [1] = 0) the first row whose id (Java's saturating (int) cast, NaN -> 0) is < 1
// ([0]) and the largest id ([1]); the caller reads them back (errors, and k = max id when ngroups
// is not given); (2) grouped_sums adds w * x and w of every cell of a row with id <= k into
// (k, n) double sums (atomicAdd: the order of the additions varies, see Note [GPU ctable
// summation order] in ctable.h; double accumulators also for FP32 data; with k <= 8 a thread
// first sums a column over a run of rows per group in registers); (3) grouped_finish
// writes the (k, n) result: the sums, the weight sums (count), or sum / weight (mean; 0 for an
// empty group, as the CPU).
enum class GroupFinish { kSum, kCount, kMean };

template <typename T>
void launch_group_ids_scan(const T* groups, int64_t m, unsigned long long* stats,
                           cudaStream_t stream);
// x, w (m, n) row-major (w null: weight 1), groups (m); sum and wsum (k, n) zeroed by the caller;
// wsum may be null when fn is kSum.
template <typename T>
void launch_grouped_sums(const T* x, const T* w, const T* groups, int64_t m, int64_t n, int64_t k,
                         double* sum, double* wsum, cudaStream_t stream);
template <typename T>
void launch_grouped_finish(const double* sum, const double* wsum, int64_t cells, GroupFinish fn,
                           T* out, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
