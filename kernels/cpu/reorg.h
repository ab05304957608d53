// Reorganisation ops on the CPU: transpose, reshape (by row or by column), diag (vector to
// diagonal matrix and back) and row reversal, on dense and CSR blocks. Results are in the format
// SystemDS would pick (examine_format); shapes are checked by the caller.
#pragma once

#include <cstdint>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// (m, n) -> (n, m).
MatrixBlock transpose(const MatrixBlock& in);

// (m, n) -> (rows, cols) with rows*cols == m*n. byrow: cells keep their row-major order (DML's
// matrix(X, rows, cols) default); otherwise their column-major order (byrow=FALSE).
MatrixBlock reshape(const MatrixBlock& in, int64_t rows, int64_t cols, bool byrow);

// (n, 1) -> (n, n) with the vector on the diagonal; (n, n) -> (n, 1) holding the diagonal.
// Any other shape throws ShapeError.
MatrixBlock diag(const MatrixBlock& in);

// (m, n) -> (m, n) with the rows in reverse order (DML's rev).
MatrixBlock reverse_rows(const MatrixBlock& in);

// (m, n) -> (m, n) with row i moved to row (i + shift) mod m (DML's roll; a negative shift rolls
// up). Keeps the input's format.
MatrixBlock roll_rows(const MatrixBlock& in, int64_t shift);

}  // namespace dmlrt::kernels::cpu
