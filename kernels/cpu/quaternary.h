// CPU kernels of SystemDS's quaternary operators: the weighted factorisation ops its optimizer
// fuses out of U %*% t(V) patterns (wsloss, wsigmoid, wdivmm, wcemm, wumm). Each visits only the
// cells its weights keep (the nonzeros of W or X) and computes dot(U[i,], V[j,]) there, so
// U %*% t(V) is never materialised (SystemDS LibMatrixMult.matrixMultW*).
#pragma once

#include "kernels/cpu/unary.h"
#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// Shapes for every op: U (m, k) and V (n, k) dense or sparse; W and X (m, n). The caller checks
// them.

// SystemDS's WeightsType. kPost: sum(W * (X - UV')^2); kPostNz: sum((X != 0) * (X - UV')^2);
// kPre: sum((X - W * UV')^2); kNone: sum((X - UV')^2). W is unused (may be null) for kPostNz and
// kNone.
enum class WslossType { kPost, kPostNz, kPre, kNone };
double wsloss(const MatrixBlock& x, const MatrixBlock& u, const MatrixBlock& v,
              const MatrixBlock* w, WslossType type);

// SystemDS's WSigmoidType: (m, n) W * f(UV') with f sigmoid(uv), log(sigmoid(uv)),
// sigmoid(-uv), log(sigmoid(-uv)).
enum class WsigmoidType { kBasic, kLog, kMinus, kLogMinus };
MatrixBlock wsigmoid(const MatrixBlock& w, const MatrixBlock& u, const MatrixBlock& v,
                     WsigmoidType type);

// SystemDS's WDivMMType. The cell value at each nonzero w of the first input: w * uv (MULT),
// w / uv (DIV), w / (uv + eps) (DIV_*_EPS), uv - w (MULT_MINUS: weights W != 0, W is X),
// w * (uv - x) (MULT_MINUS_4, x from the fourth input). kMultBasic gives those cells, (m, n);
// the LEFT forms t(t(U) %*% C), (n, k); the RIGHT forms C %*% V, (m, k).
enum class WdivmmType {
  kDivLeft,
  kDivRight,
  kDivLeftEps,
  kDivRightEps,
  kMultBasic,
  kMultLeft,
  kMultRight,
  kMultMinusLeft,
  kMultMinusRight,
  kMultMinus4Left,
  kMultMinus4Right
};
// `x` is needed by the MULT_MINUS_4 forms only; `eps` by the EPS forms only.
MatrixBlock wdivmm(const MatrixBlock& w, const MatrixBlock& u, const MatrixBlock& v,
                   const MatrixBlock* x, double eps, WdivmmType type);

// SystemDS's WCeMMType: sum(X * log(UV' + eps)) over the nonzeros of X (kBasic has eps 0).
enum class WcemmType { kBasic, kBasicEps };
double wcemm(const MatrixBlock& x, const MatrixBlock& u, const MatrixBlock& v, double eps,
             WcemmType type);

// SystemDS's WUMMType: (m, n) W * f(UV') or W / f(UV') at the nonzeros of W, f a cell-wise
// unary op.
enum class WummType { kMult, kDiv };
MatrixBlock wumm(const MatrixBlock& w, const MatrixBlock& u, const MatrixBlock& v, UnaryOp f,
                 WummType type);

}  // namespace dmlrt::kernels::cpu
