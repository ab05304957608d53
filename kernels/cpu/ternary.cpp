// Cell-wise ternary kernels; see ternary.h. The axpy forms reuse the binary kernels, so sparse
// inputs keep sparse iteration; ifelse is computed densely and then re-examined.
#include "kernels/cpu/ternary.h"

#include <vector>

#include "gpu_context/error.h"
#include "kernels/cpu/binary.h"
#include "kernels/cpu/parallel.h"

namespace dmlrt::kernels::cpu {

double ternary_apply(TernaryOp op, double a, double b, double c) {
  switch (op) {
    case TernaryOp::kIfElse:
      return a != 0.0 ? b : c;
    case TernaryOp::kPlusMult:
      return a + b * c;
    case TernaryOp::kMinusMult:
      return a - b * c;
  }
  return 0.0;
}

namespace {

// Row-major values of a full-shape input, or null for a scalar-like one (whose value is set).
const double* values_of(const TernaryArg& arg, MatrixBlock& holder, double& scalar) {
  if (arg.matrix == nullptr) {
    scalar = arg.value;
    return nullptr;
  }
  if (arg.is_scalar_like()) {
    scalar = arg.matrix->get(0, 0);
    return nullptr;
  }
  if (!arg.matrix->is_sparse()) return arg.matrix->dense_data();  // read in place
  holder = arg.matrix->to_dense();
  return holder.dense_data();
}

}  // namespace

MatrixBlock ternary(TernaryOp op, const TernaryArg& a, const TernaryArg& b, const TernaryArg& c,
                    int64_t rows, int64_t cols) {
  for (const TernaryArg* arg : {&a, &b, &c})
    DMLRT_REQUIRE(
        arg->is_scalar_like() || (arg->matrix->rows() == rows && arg->matrix->cols() == cols),
        ShapeError,
        "ternary operand " << dims_string(arg->matrix->rows(), arg->matrix->cols())
                           << " does not match the output " << dims_string(rows, cols));
  if (rows == 0 || cols == 0) return MatrixBlock::dense(rows, cols);

  // x +- s*y with matrices x and y: two binary passes keep sparse inputs sparse.
  if (op != TernaryOp::kIfElse && !a.is_scalar_like() && b.is_scalar_like() &&
      !c.is_scalar_like()) {
    const double s = b.matrix ? b.matrix->get(0, 0) : b.value;
    const MatrixBlock sy = binary_matrix_scalar(BinaryOp::kMult, *c.matrix, s, false);
    return binary_matrix_matrix(op == TernaryOp::kPlusMult ? BinaryOp::kPlus : BinaryOp::kMinus,
                                *a.matrix, sy);
  }

  MatrixBlock ha, hb, hc;
  double sa = 0, sb = 0, sc = 0;
  const double* pa = values_of(a, ha, sa);
  const double* pb = values_of(b, hb, sb);
  const double* pc = values_of(c, hc, sc);
  MatrixBlock out = MatrixBlock::dense(rows, cols);
  double* o = out.dense_data();  // (rows, cols) row-major
  const int64_t n = rows * cols;
  parallel_for(0, n, kParallelGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      o[i] = ternary_apply(op, pa ? pa[i] : sa, pb ? pb[i] : sb, pc ? pc[i] : sc);
  });
  out.examine_format();
  return out;
}

}  // namespace dmlrt::kernels::cpu
