// CPU kernel of countDistinct / countDistinctApprox (SystemDS's LibMatrixCountDistinct and its
// KMV sketch): the number of distinct values of a matrix, of each row, or of each column.
#pragma once

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

enum class CountDistinctDir { kAll, kRow, kCol };

// kAll: (1, 1); kRow: (m, 1); kCol: (1, n). Values are distinct as Java Doubles (0.0 and -0.0
// differ; NaNs are one value). SystemDS's quirks are kept, see Note [countDistinct as SystemDS
// counts]: an input with no non-zero or of one cell gives a (1, 1) block holding 1 in every
// direction; a sparse input's rows/columns count their stored values only (not the zeros).
// approx = countDistinctApprox: exact below 1024 non-zeros (per row/column for kRow/kCol), the
// KMV estimate above.
MatrixBlock count_distinct(const MatrixBlock& in, CountDistinctDir dir, bool approx);

}  // namespace dmlrt::kernels::cpu
