// N-ary cell-wise kernels; see nary.h. The accumulator is dense (the result of a sum of several
// matrices is rarely sparser than its inputs); sparse inputs are walked row by row over their CSR.
#include "kernels/cpu/nary.h"

#include <limits>

#include "gpu_context/error.h"
#include "kernels/cpu/java_math.h"

namespace dmlrt::kernels::cpu {

double nary_init(NaryOp op) {
  switch (op) {
    case NaryOp::kPlus:
      return 0.0;
    case NaryOp::kMult:
      return 1.0;
    case NaryOp::kMin:
      return std::numeric_limits<double>::infinity();
    case NaryOp::kMax:
      return -std::numeric_limits<double>::infinity();
  }
  return 0.0;
}

double nary_apply(NaryOp op, double acc, double x) {
  switch (op) {
    case NaryOp::kPlus:
      return acc + x;
    case NaryOp::kMult:
      return acc * x;
    case NaryOp::kMin:
      return java_min(acc, x);
    case NaryOp::kMax:
      return java_max(acc, x);
  }
  return acc;
}

namespace {

template <NaryOp Op>
void fold_into(double* acc, const MatrixBlock& m) {  // acc: (rows, cols) row-major
  const int64_t rows = m.rows(), cols = m.cols();
  if (!m.is_sparse()) {
    const double* a = m.dense_data();
    for (int64_t k = 0; k < rows * cols; ++k) acc[k] = nary_apply(Op, acc[k], a[k]);
    return;
  }
  const auto& rp = m.row_ptr();
  const auto& ci = m.col_idx();
  const auto& v = m.csr_values();
  for (int64_t i = 0; i < rows; ++i) {
    double* row = acc + i * cols;
    if constexpr (Op == NaryOp::kPlus) {  // zeros leave a sum unchanged: touch the non-zeros only
      for (int64_t p = rp[i]; p < rp[i + 1]; ++p) row[ci[p]] += v[p];
    } else {
      int64_t p = rp[i];
      for (int64_t j = 0; j < cols; ++j) {
        const double x = (p < rp[i + 1] && ci[p] == j) ? v[p++] : 0.0;
        row[j] = nary_apply(Op, row[j], x);
      }
    }
  }
}

template <NaryOp Op>
void fold_all(double* acc, const std::vector<const MatrixBlock*>& mats) {
  for (const MatrixBlock* m : mats) fold_into<Op>(acc, *m);
}

}  // namespace

MatrixBlock nary(NaryOp op, const std::vector<const MatrixBlock*>& mats,
                 const std::vector<double>& scalars) {
  DMLRT_REQUIRE(!mats.empty(), RuntimeError, "nary: no matrix operand");
  const int64_t rows = mats[0]->rows(), cols = mats[0]->cols();
  for (const MatrixBlock* m : mats)
    DMLRT_REQUIRE(m->rows() == rows && m->cols() == cols, ShapeError,
                  "nary: matrix operands differ in shape: " << rows << "x" << cols << " and "
                                                            << m->rows() << "x" << m->cols());
  double init = nary_init(op);
  for (double s : scalars) init = nary_apply(op, init, s);
  MatrixBlock out = MatrixBlock::dense(rows, cols, init);
  double* acc = out.dense_data();
  switch (op) {
    case NaryOp::kPlus:
      fold_all<NaryOp::kPlus>(acc, mats);
      break;
    case NaryOp::kMult:
      fold_all<NaryOp::kMult>(acc, mats);
      break;
    case NaryOp::kMin:
      fold_all<NaryOp::kMin>(acc, mats);
      break;
    case NaryOp::kMax:
      fold_all<NaryOp::kMax>(acc, mats);
      break;
  }
  out.examine_format();
  return out;
}

}  // namespace dmlrt::kernels::cpu
