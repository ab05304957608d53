// Matrix multiply kernels on host blocks: general products with optional transposed operands (all
// four dense/sparse combinations; dense x dense through OpenBLAS), the self products of tsmm, and
// the fused matrix-vector chains of mmchain. Callers check shapes; results go through
// examine_format().
#pragma once

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// op(a) %*% op(b), where op(x) = t(x) when the flag is set (no transposed copy of a dense
// operand is made). Requires inner dimensions to agree; an inner dimension of 0 gives zeros.
MatrixBlock matmult(const MatrixBlock& a, const MatrixBlock& b, bool trans_a = false,
                    bool trans_b = false);

// tsmm: t(x) %*% x when `left` (SystemDS MMTSJType.LEFT), else x %*% t(x) (RIGHT).
MatrixBlock tsmm(const MatrixBlock& x, bool left);

// mmchain (SystemDS ChainType): with q = x %*% v,
//   kXtXv:  t(x) %*% q
//   kXtwXv: t(x) %*% (w * q)
//   kXtXvy: t(x) %*% (q - w)      (w holds y)
// x (m, n), v (n, 1), w (m, 1) or unused; the result is (n, 1).
enum class ChainType { kXtXv, kXtwXv, kXtXvy };
MatrixBlock mmchain(const MatrixBlock& x, const MatrixBlock& v, const MatrixBlock* w,
                    ChainType type);

// CSR transpose (exposed for tests and other kernels): (m, n) -> (n, m), columns sorted.
MatrixBlock csr_transpose(const MatrixBlock& a);

}  // namespace dmlrt::kernels::cpu
