// Direct-loop CPU references for spatial batch normalisation (see dnn_batchnorm.h). Plain loops
// over dense copies, one channel at a time: these are the references the GPU kernels
// (kernels/cuda/dnn_batchnorm.cu) are checked against.
//
// Note [Batch-norm semantics]
// SystemDS 3.4's CP kernel (LibMatrixDNN.batchNorm2D / batchNorm2DBackward) is the reference, and
// the arithmetic below follows its formulas term by term, with two exceptions:
//  * Running variance. SystemDS writes ema_var_upd = mu*ema_var + (1-mu)*MEAN: it blends in the
//    batch mean, not the variance (a bug; its own DML layer nn/layers/batch_norm2d_old.dml and its
//    GPU path blend in a variance). dmlrt blends in the batch's biased (population) variance, the
//    same variance that normalises the batch, as that DML layer does (docs/deviations.md).
//  * The batch variance is computed in two passes (the mean, then the mean squared deviation);
//    SystemDS's E[x^2] - mean^2 loses every digit when |mean| >> std. Both agree to rounding on
//    ordinary data (the dnn_batchnorm conformance case).
// Test mode returns the running statistics unchanged in outputs 2 and 3, the running mean as
// the saved mean and 1/sqrt(running var + eps) as the saved inverse variance (as SystemDS does).
// The backward pass uses the saved mean and inverse variance as given; its dmean term includes
// the variance branch sum(-2/M * (x - mean)), which is zero only when the saved mean is the
// batch's own. eps is not used by the backward pass (SystemDS ignores it too). With an empty
// batch (N*HW = 0) the batch statistics are 0/0 = NaN, as IEEE arithmetic gives.
#include "kernels/cpu/dnn_batchnorm.h"

#include <cmath>
#include <utility>
#include <vector>

namespace dmlrt::kernels::cpu {
namespace {

std::vector<double> dense_copy(const MatrixBlock& m) {
  return m.is_sparse() ? m.to_dense().dense_values() : m.dense_values();
}

MatrixBlock finish(int64_t rows, int64_t cols, std::vector<double> v) {
  MatrixBlock out = MatrixBlock::dense(rows, cols, std::move(v));
  out.examine_format();
  return out;
}

// Cell (n, c, hw) of an (n, c*hw) row-major image batch.
inline size_t cell(int64_t n, int64_t c, int64_t hw_index, int64_t channels, int64_t hw) {
  return static_cast<size_t>((n * channels + c) * hw + hw_index);
}

// out = (x - mean[c]) * inv_var[c] * scale[c] + bias[c] for every cell of channel c.
MatrixBlock normalise(const std::vector<double>& x, int64_t n, int64_t c, int64_t hw,
                      const std::vector<double>& mean, const std::vector<double>& inv_var,
                      const std::vector<double>& scale, const std::vector<double>& bias) {
  std::vector<double> out(x.size());  // (n, c*hw) row-major
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t j = 0; j < hw; ++j) {
        const size_t k = cell(i, ch, j, c, hw);
        out[k] = (x[k] - mean[ch]) * inv_var[ch] * scale[ch] + bias[ch];
      }
  return finish(n, c * hw, std::move(out));
}

}  // namespace

BatchNormForward batch_norm2d_train(const MatrixBlock& x, const MatrixBlock& scale,
                                    const MatrixBlock& bias, const MatrixBlock& run_mean,
                                    const MatrixBlock& run_var, double eps, double mu) {
  const int64_t n = x.rows(), c = scale.rows(), hw = x.cols() / c;
  const std::vector<double> in = dense_copy(x);  // (n, c*hw) row-major
  const std::vector<double> rm = dense_copy(run_mean), rv = dense_copy(run_var);
  const double count = static_cast<double>(n * hw);
  std::vector<double> mean(c), inv_var(c), new_mean(c), new_var(c);
  for (int64_t ch = 0; ch < c; ++ch) {
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < hw; ++j) sum += in[cell(i, ch, j, c, hw)];
    const double m = sum / count;
    double sq = 0.0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < hw; ++j) {
        const double d = in[cell(i, ch, j, c, hw)] - m;
        sq += d * d;
      }
    const double var = sq / count;  // biased (population) variance
    mean[ch] = m;
    inv_var[ch] = 1.0 / std::sqrt(var + eps);
    new_mean[ch] = mu * rm[ch] + (1 - mu) * m;
    new_var[ch] = mu * rv[ch] + (1 - mu) * var;
  }
  BatchNormForward r;
  r.out = normalise(in, n, c, hw, mean, inv_var, dense_copy(scale), dense_copy(bias));
  r.run_mean = finish(c, 1, std::move(new_mean));
  r.run_var = finish(c, 1, std::move(new_var));
  r.save_mean = finish(c, 1, std::move(mean));
  r.save_inv_var = finish(c, 1, std::move(inv_var));
  return r;
}

BatchNormForward batch_norm2d_test(const MatrixBlock& x, const MatrixBlock& scale,
                                   const MatrixBlock& bias, const MatrixBlock& run_mean,
                                   const MatrixBlock& run_var, double eps) {
  const int64_t n = x.rows(), c = scale.rows(), hw = x.cols() / c;
  const std::vector<double> rm = dense_copy(run_mean), rv = dense_copy(run_var);
  std::vector<double> inv_var(c);
  for (int64_t ch = 0; ch < c; ++ch) inv_var[ch] = 1.0 / std::sqrt(rv[ch] + eps);
  BatchNormForward r;
  r.out = normalise(dense_copy(x), n, c, hw, rm, inv_var, dense_copy(scale), dense_copy(bias));
  r.run_mean = finish(c, 1, rm);
  r.run_var = finish(c, 1, rv);
  r.save_mean = finish(c, 1, rm);
  r.save_inv_var = finish(c, 1, std::move(inv_var));
  return r;
}

BatchNormBackward batch_norm2d_backward(const MatrixBlock& x, const MatrixBlock& dout,
                                        const MatrixBlock& scale, const MatrixBlock& save_mean,
                                        const MatrixBlock& save_inv_var) {
  const int64_t n = x.rows(), c = scale.rows(), hw = x.cols() / c;
  const std::vector<double> in = dense_copy(x), d = dense_copy(dout);  // (n, c*hw) row-major
  const std::vector<double> s = dense_copy(scale), mean = dense_copy(save_mean),
                            iv = dense_copy(save_inv_var);
  const double inv_m = 1.0 / static_cast<double>(n * hw);  // 1/M, M = N*HW cells per channel
  std::vector<double> dx(in.size()), dscale(c), dbias(c);
  for (int64_t ch = 0; ch < c; ++ch) {
    // sum(dout), sum(centered * dout) and sum(centered) over the channel's N*HW cells.
    double sum_d = 0.0, sum_cd = 0.0, sum_c = 0.0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < hw; ++j) {
        const size_t k = cell(i, ch, j, c, hw);
        const double centered = in[k] - mean[ch];
        sum_d += d[k];
        sum_cd += centered * d[k];
        sum_c += centered;
      }
    dbias[ch] = sum_d;
    dscale[ch] = iv[ch] * sum_cd;
    // dnorm = dout * scale; dvar = sum(-1/2 * centered * inv_var^3 * dnorm);
    // dmean = sum(-dnorm * inv_var) + dvar * sum(-2/M * centered).
    const double dvar = -0.5 * iv[ch] * iv[ch] * iv[ch] * s[ch] * sum_cd;
    const double dmean = -s[ch] * iv[ch] * sum_d + dvar * (-2.0 * inv_m * sum_c);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < hw; ++j) {
        const size_t k = cell(i, ch, j, c, hw);
        const double centered = in[k] - mean[ch];
        dx[k] = d[k] * s[ch] * iv[ch] + inv_m * dmean + 2.0 * inv_m * centered * dvar;
      }
  }
  BatchNormBackward r;
  r.dx = finish(n, c * hw, std::move(dx));
  r.dscale = finish(c, 1, std::move(dscale));
  r.dbias = finish(c, 1, std::move(dbias));
  return r;
}

}  // namespace dmlrt::kernels::cpu
