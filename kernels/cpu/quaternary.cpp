// CPU kernels of the quaternary operators (quaternary.h). U and V are read dense; the weights'
// nonzeros drive every loop, as SystemDS's sparse-safe kernels do (a zero weight contributes
// nothing even where log or a division by UV' would give NaN).
#include "kernels/cpu/quaternary.h"

#include <cmath>
#include <memory>

namespace dmlrt::kernels::cpu {
namespace {

// Row-major dense view of a block: the block itself when dense, else a converted copy.
struct DenseView {
  explicit DenseView(const MatrixBlock& b) {
    if (b.is_sparse()) {
      copy = b.to_dense();
      data = copy.dense_data();
    } else {
      data = b.dense_data();
    }
    cols = b.cols();
  }
  double at(int64_t i, int64_t j) const { return data[i * cols + j]; }
  const double* row(int64_t i) const { return data + i * cols; }
  MatrixBlock copy;
  const double* data = nullptr;
  int64_t cols = 0;
};

// dot(U[i,], V[j,]) over the common rank k.
double dot(const DenseView& u, const DenseView& v, int64_t i, int64_t j, int64_t k) {
  const double* a = u.row(i);
  const double* b = v.row(j);
  double s = 0.0;
  for (int64_t l = 0; l < k; ++l) s += a[l] * b[l];
  return s;
}

// Calls f(i, j, value) for each nonzero of `b`, row by row.
template <typename F>
void for_each_nonzero(const MatrixBlock& b, F&& f) {
  if (b.is_sparse()) {
    const auto& rp = b.row_ptr();
    const auto& ci = b.col_idx();
    const auto& val = b.csr_values();
    for (int64_t i = 0; i < b.rows(); ++i)
      for (int64_t p = rp[i]; p < rp[i + 1]; ++p)
        if (val[p] != 0.0) f(i, static_cast<int64_t>(ci[p]), val[p]);
    return;
  }
  const double* d = b.dense_data();
  for (int64_t i = 0; i < b.rows(); ++i)
    for (int64_t j = 0; j < b.cols(); ++j)
      if (d[i * b.cols() + j] != 0.0) f(i, j, d[i * b.cols() + j]);
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

double wsloss(const MatrixBlock& x, const MatrixBlock& u, const MatrixBlock& v,
              const MatrixBlock* w, WslossType type) {
  const DenseView du(u), dv(v);
  const int64_t k = u.cols();
  double sum = 0.0;
  switch (type) {
    case WslossType::kPost: {
      const DenseView dx(x);
      for_each_nonzero(*w, [&](int64_t i, int64_t j, double wij) {
        const double d = dx.at(i, j) - dot(du, dv, i, j, k);
        sum += wij * d * d;
      });
      break;
    }
    case WslossType::kPostNz:
      for_each_nonzero(x, [&](int64_t i, int64_t j, double xij) {
        const double d = xij - dot(du, dv, i, j, k);
        sum += d * d;
      });
      break;
    case WslossType::kPre:
    case WslossType::kNone: {
      const DenseView dx(x);
      const bool pre = type == WslossType::kPre;
      std::unique_ptr<DenseView> dw(pre ? new DenseView(*w) : nullptr);
      for (int64_t i = 0; i < x.rows(); ++i)
        for (int64_t j = 0; j < x.cols(); ++j) {
          double uv;
          if (pre) {
            const double wij = dw->at(i, j);
            uv = wij != 0.0 ? wij * dot(du, dv, i, j, k) : 0.0;
          } else {
            uv = dot(du, dv, i, j, k);
          }
          const double d = dx.at(i, j) - uv;
          sum += d * d;
        }
      break;
    }
  }
  return sum;
}

MatrixBlock wsigmoid(const MatrixBlock& w, const MatrixBlock& u, const MatrixBlock& v,
                     WsigmoidType type) {
  const DenseView du(u), dv(v);
  const int64_t k = u.cols();
  MatrixBlock out = MatrixBlock::dense(w.rows(), w.cols());
  double* o = out.dense_data();
  const bool minus = type == WsigmoidType::kMinus || type == WsigmoidType::kLogMinus;
  const bool log = type == WsigmoidType::kLog || type == WsigmoidType::kLogMinus;
  for_each_nonzero(w, [&](int64_t i, int64_t j, double wij) {
    const double uv = dot(du, dv, i, j, k);
    const double s = sigmoid(minus ? -uv : uv);
    o[i * w.cols() + j] = wij * (log ? std::log(s) : s);
  });
  out.examine_format();
  return out;
}

MatrixBlock wdivmm(const MatrixBlock& w, const MatrixBlock& u, const MatrixBlock& v,
                   const MatrixBlock* x, double eps, WdivmmType type) {
  using T = WdivmmType;
  const DenseView du(u), dv(v);
  const int64_t k = u.cols();
  const bool left = type == T::kDivLeft || type == T::kDivLeftEps || type == T::kMultLeft ||
                    type == T::kMultMinusLeft || type == T::kMultMinus4Left;
  const bool basic = type == T::kMultBasic;
  std::unique_ptr<DenseView> dx;
  if (type == T::kMultMinus4Left || type == T::kMultMinus4Right) dx.reset(new DenseView(*x));
  // (m, n) for MULT_BASIC, (n, k) for LEFT, (m, k) for RIGHT.
  MatrixBlock out = basic  ? MatrixBlock::dense(w.rows(), w.cols())
                    : left ? MatrixBlock::dense(w.cols(), k)
                           : MatrixBlock::dense(w.rows(), k);
  double* o = out.dense_data();
  for_each_nonzero(w, [&](int64_t i, int64_t j, double wij) {
    const double uv = dot(du, dv, i, j, k);
    double c = 0.0;
    switch (type) {
      case T::kDivLeft:
      case T::kDivRight:
        c = wij / uv;
        break;
      case T::kDivLeftEps:
      case T::kDivRightEps:
        c = wij / (uv + eps);
        break;
      case T::kMultBasic:
      case T::kMultLeft:
      case T::kMultRight:
        c = wij * uv;
        break;
      case T::kMultMinusLeft:
      case T::kMultMinusRight:
        c = uv - wij;
        break;
      case T::kMultMinus4Left:
      case T::kMultMinus4Right:
        c = wij * (uv - dx->at(i, j));
        break;
    }
    if (basic) {
      o[i * w.cols() + j] = c;
    } else if (left) {  // row j of t(t(U) %*% C) gathers C[i, j] * U[i, ]
      const double* ui = du.row(i);
      double* oj = o + j * k;
      for (int64_t l = 0; l < k; ++l) oj[l] += c * ui[l];
    } else {  // row i of C %*% V gathers C[i, j] * V[j, ]
      const double* vj = dv.row(j);
      double* oi = o + i * k;
      for (int64_t l = 0; l < k; ++l) oi[l] += c * vj[l];
    }
  });
  out.examine_format();
  return out;
}

double wcemm(const MatrixBlock& x, const MatrixBlock& u, const MatrixBlock& v, double eps,
             WcemmType type) {
  const DenseView du(u), dv(v);
  const int64_t k = u.cols();
  const bool with_eps = type == WcemmType::kBasicEps;
  double sum = 0.0;
  for_each_nonzero(x, [&](int64_t i, int64_t j, double xij) {
    const double uv = dot(du, dv, i, j, k);
    sum += xij * std::log(with_eps ? uv + eps : uv);
  });
  return sum;
}

MatrixBlock wumm(const MatrixBlock& w, const MatrixBlock& u, const MatrixBlock& v, UnaryOp f,
                 WummType type) {
  const DenseView du(u), dv(v);
  const int64_t k = u.cols();
  MatrixBlock out = MatrixBlock::dense(w.rows(), w.cols());
  double* o = out.dense_data();
  for_each_nonzero(w, [&](int64_t i, int64_t j, double wij) {
    const double fuv = apply_unary(f, dot(du, dv, i, j, k));
    o[i * w.cols() + j] = type == WummType::kMult ? wij * fuv : wij / fuv;
  });
  out.examine_format();
  return out;
}

}  // namespace dmlrt::kernels::cpu
