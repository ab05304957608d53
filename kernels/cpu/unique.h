// CPU kernel of unique() (SystemDS's LibMatrixSketch.getUniqueValues): the distinct values of a
// matrix, of each row, or of each column, in the order SystemDS produces them.
#pragma once

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

enum class UniqueDir { kAll, kRow, kCol };

// kAll: (d, 1), the d distinct values of `in` (row-major scan). kRow: (m, dmax), row i's
// distinct values left-aligned, zero-padded to the widest row. kCol: (dmax, n), likewise by
// column. Values are distinct as Java Doubles (0.0 and -0.0 differ; NaNs are one value) and come
// in the iteration order of the java.util.HashSet<Double> SystemDS collects them in (see Note
// [Java HashSet order] in unique.cpp); per row/column the set is cleared, keeping its capacity.
MatrixBlock unique_values(const MatrixBlock& in, UniqueDir dir);

}  // namespace dmlrt::kernels::cpu
