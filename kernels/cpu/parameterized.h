// CPU kernels of SystemDS's parameterized builtins that work on whole matrices: replace,
// contains, rexpand (one-hot expansion of a column vector) and the grouped aggregate of
// aggregate(target=, groups=, fn=). Semantics are SystemDS's CP backend (LibMatrixReorg,
// MatrixBlock.groupedAggOperations), checked against SystemDS 3.4 runs.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// SystemDS's UtilFunctions.toLong: signum(v) * floor(|v| + 2^-53) (truncation toward zero),
// saturating as Java's (long) cast, NaN -> 0.
int64_t java_to_long(double v);

// (m, n) -> (m, n): every cell equal to `pattern` becomes `replacement`; a NaN pattern matches NaN.
MatrixBlock replace(const MatrixBlock& in, double pattern, double replacement);

// True when some cell equals `pattern` (NaN matches NaN).
bool contains(const MatrixBlock& in, double pattern);

// (m, 1) -> (m, max) (dir=cols) or (max, m) (dir=rows): a 1 at column (row) v_i of row (column) i.
// `cast` floors the values first (UtilFunctions.toLong); values above max are dropped; values
// <= 0 (or NaN) throw RuntimeError unless `ignore`, which drops them.
MatrixBlock rexpand(const MatrixBlock& in, double max, bool rows_dir, bool cast, bool ignore);

// lower.tri / upper.tri (m, n) -> (m, n): the cells of the lower (upper) triangle, the diagonal
// included when `diag`, keep their values (`values`) or become 1; every other cell is 0.
// Non-square inputs are allowed. SystemDS's MatrixBlock.extractTriangular has two quirks kept
// here (see Note [Triangle masks of empty rows]).
MatrixBlock extract_triangular(const MatrixBlock& in, bool lower, bool diag, bool values);

// removeEmpty(target, margin, select, empty.return) as LibMatrixReorg.rmempty: (m, n) -> (k, n)
// keeping the rows (rows=true) or columns holding a nonzero (NaN counts), in order. `select`
// (optional, m cells for rows / n for cols, any shape, read row-major) keeps the rows/columns
// whose select cell is nonzero instead. k == 0 becomes 1 (an all-zero row/column) when
// `empty_return`, else the result has 0 rows/columns. An all-zero target without select skips
// the scan: (1 or 0, n). A select that keeps everything returns the target unchanged.
MatrixBlock remove_empty(const MatrixBlock& in, bool rows, bool empty_return,
                         const MatrixBlock* select);

enum class GroupAggFn { kSum, kCount, kMean, kVariance, kCentralMoment, kMin, kMax };
// "sum" "count" "mean" "variance" "centralmoment"; false for anything else.
bool group_agg_fn_from_name(const std::string& name, GroupAggFn* fn);

// target (m, n), groups (m, 1) of ids 1..ngroups, optional weights shaped like target ->
// (ngroups, n). ngroups < 0 means max(groups). Rows whose group id exceeds ngroups are dropped;
// an id < 1 throws RuntimeError. variance is the (weighted) sample variance; centralmoment
// (order 2, 3 or 4) divides by the weight sum, as SystemDS's CM function object; min and max are
// Java's (NaN wins), unweighted. An empty group gives 0, or NaN for centralmoment (SystemDS).
MatrixBlock grouped_aggregate(const MatrixBlock& target, const MatrixBlock& groups,
                              const MatrixBlock* weights, GroupAggFn fn, int order,
                              int64_t ngroups);

// toString(target, rows, cols, decimal, sparse, sep, linesep) as SystemDS's DataConverter: the
// first rows x cols cells (< 0: all), each formatted like java.text.DecimalFormat with exactly
// `decimal` fraction digits (java_fixed_decimal, kernels/cpu/java_format.h), NaN/Infinity as
// Double.toString, -0 printed as 0; dense: `v sep v ... linesep` per row; sparse: one
// `i sep j sep v linesep` (1-based) per nonzero.
std::string to_string(const MatrixBlock& in, int64_t rows, int64_t cols, int decimal, bool sparse,
                      const std::string& sep, const std::string& linesep);

}  // namespace dmlrt::kernels::cpu
