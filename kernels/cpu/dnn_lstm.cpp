// CPU reference LSTM (see dnn_lstm.h and Note [LSTM layouts]): the forward recurrence as
// SystemDS's lstmTile computes it, and the backward pass in the order of its lstmBackwardGeneric
// (reverse time, gradients accumulated step by step from the caches).
#include "kernels/cpu/dnn_lstm.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dmlrt::kernels::cpu {
namespace {

// Dense row-major values of b (a copy only when b is CSR).
std::vector<double> dense_copy(const MatrixBlock& b) {
  if (!b.is_sparse()) return b.dense_values();
  return b.to_dense().dense_values();
}

double sigmoid(double v) { return 1.0 / (std::exp(-v) + 1.0); }

MatrixBlock finished(MatrixBlock b) {
  b.examine_format();
  return b;
}

}  // namespace

LstmForwardResult lstm_forward(const MatrixBlock& x, const MatrixBlock& w, const MatrixBlock& b,
                               const MatrixBlock& out0, const MatrixBlock& c0,
                               bool return_sequences, const LstmDims& dims) {
  const int64_t n_seq = dims.n, steps = dims.t, d = dims.d, m = dims.m, m4 = 4 * m;
  const std::vector<double> xv = dense_copy(x);  // (N, T*D)
  const std::vector<double> wv = dense_copy(w);  // (D+M, 4M)
  const std::vector<double> bv = dense_copy(b);  // (1, 4M)
  std::vector<double> h = dense_copy(out0);      // (N, M): out_{t-1}
  std::vector<double> c = dense_copy(c0);        // (N, M): c_{t-1}

  MatrixBlock out = MatrixBlock::dense(n_seq, return_sequences ? steps * m : m);
  MatrixBlock cache_out = MatrixBlock::dense(steps, n_seq * m);
  MatrixBlock cache_c = MatrixBlock::dense(steps, n_seq * m);
  MatrixBlock cache_ifog = MatrixBlock::dense(steps, n_seq * m4);
  double* outv = out.dense_data();
  std::vector<double> gates(static_cast<size_t>(m4));  // one sequence's pre-activations
  for (int64_t t = 0; t < steps; ++t) {
    double* co = cache_out.dense_data() + t * n_seq * m;
    double* cc = cache_c.dense_data() + t * n_seq * m;
    double* cg = cache_ifog.dense_data() + t * n_seq * m4;
    for (int64_t s = 0; s < n_seq; ++s) {
      // gates = b + x_t W[0:D] + out_{t-1} W[D:D+M]
      for (int64_t k = 0; k < m4; ++k) gates[k] = bv[k];
      const double* xt = xv.data() + s * steps * d + t * d;
      for (int64_t j = 0; j < d; ++j)
        for (int64_t k = 0; k < m4; ++k) gates[k] += xt[j] * wv[j * m4 + k];
      double* hs = h.data() + s * m;
      for (int64_t j = 0; j < m; ++j)
        for (int64_t k = 0; k < m4; ++k) gates[k] += hs[j] * wv[(d + j) * m4 + k];
      double* cs = c.data() + s * m;
      for (int64_t j = 0; j < m; ++j) {
        const double ig = sigmoid(gates[j]), fg = sigmoid(gates[m + j]),
                     og = sigmoid(gates[2 * m + j]), gg = std::tanh(gates[3 * m + j]);
        const double cn = cs[j] * fg + ig * gg;
        const double o = std::tanh(cn) * og;
        cs[j] = cn;
        hs[j] = o;
        if (return_sequences) outv[s * steps * m + t * m + j] = o;
        co[s * m + j] = o;
        cc[s * m + j] = cn;
        double* g = cg + s * m4;
        g[j] = ig;
        g[m + j] = fg;
        g[2 * m + j] = og;
        g[3 * m + j] = gg;
      }
    }
  }
  if (!return_sequences) std::copy(h.begin(), h.end(), outv);
  LstmForwardResult r;
  r.out = finished(std::move(out));
  r.cy = finished(MatrixBlock::dense(n_seq, m, std::move(c)));
  r.cache_out = finished(std::move(cache_out));
  r.cache_c = finished(std::move(cache_c));
  r.cache_ifog = finished(std::move(cache_ifog));
  return r;
}

LstmBackwardResult lstm_backward(const MatrixBlock& x, const MatrixBlock& w,
                                 const MatrixBlock& out0, const MatrixBlock& c0,
                                 bool return_sequences, const MatrixBlock& dout,
                                 const MatrixBlock& dc, const MatrixBlock& cache_out,
                                 const MatrixBlock& cache_c, const MatrixBlock& cache_ifog,
                                 const LstmDims& dims) {
  const int64_t n_seq = dims.n, steps = dims.t, d = dims.d, m = dims.m, m4 = 4 * m;
  const std::vector<double> xv = dense_copy(x);           // (N, T*D)
  const std::vector<double> wv = dense_copy(w);           // (D+M, 4M)
  const std::vector<double> h0 = dense_copy(out0);        // (N, M)
  const std::vector<double> cv0 = dense_copy(c0);         // (N, M)
  const std::vector<double> dov = dense_copy(dout);       // (N, T*M) or (N, M)
  const std::vector<double> co = dense_copy(cache_out);   // (T, N*M)
  const std::vector<double> cc = dense_copy(cache_c);     // (T, N*M)
  const std::vector<double> cg = dense_copy(cache_ifog);  // (T, N*4M)

  std::vector<double> dh(static_cast<size_t>(n_seq * m), 0.0);  // dL/dout_t flowing back
  if (!return_sequences) dh = dov;
  std::vector<double> dct = dense_copy(dc);                     // dL/dc_t
  std::vector<double> dgates(static_cast<size_t>(n_seq * m4));  // (N, 4M) pre-activation grads
  MatrixBlock dx = MatrixBlock::dense(n_seq, steps * d);
  std::vector<double> dw(static_cast<size_t>((d + m) * m4), 0.0);
  std::vector<double> db(static_cast<size_t>(m4), 0.0);
  double* dxv = dx.dense_data();
  for (int64_t t = steps - 1; t >= 0; --t) {
    if (return_sequences)
      for (int64_t s = 0; s < n_seq; ++s)
        for (int64_t j = 0; j < m; ++j) dh[s * m + j] += dov[s * steps * m + t * m + j];
    const double* ct = cc.data() + t * n_seq * m;
    const double* cprev = t == 0 ? cv0.data() : cc.data() + (t - 1) * n_seq * m;
    const double* hprev = t == 0 ? h0.data() : co.data() + (t - 1) * n_seq * m;
    const double* gt = cg.data() + t * n_seq * m4;
    for (int64_t s = 0; s < n_seq; ++s)
      for (int64_t j = 0; j < m; ++j) {
        const int64_t e = s * m + j;
        const double* g = gt + s * m4;
        const double ig = g[j], fg = g[m + j], og = g[2 * m + j], gg = g[3 * m + j];
        const double th = std::tanh(ct[e]);
        dct[e] += og * ((1.0 - th * th) * dh[e]);
        const double d_o = th * dh[e], d_f = cprev[e] * dct[e], d_i = gg * dct[e],
                     d_g = ig * dct[e];
        double* dg = dgates.data() + s * m4;
        dg[j] = ig * (1.0 - ig) * d_i;
        dg[m + j] = fg * (1.0 - fg) * d_f;
        dg[2 * m + j] = og * (1.0 - og) * d_o;
        dg[3 * m + j] = (1.0 - gg * gg) * d_g;
      }
    for (int64_t s = 0; s < n_seq; ++s) {
      const double* dg = dgates.data() + s * m4;
      const double* xt = xv.data() + s * steps * d + t * d;
      const double* hs = hprev + s * m;
      // dW += [x_t, out_{t-1}]^T dgates; db += colSums(dgates)
      for (int64_t j = 0; j < d; ++j)
        for (int64_t k = 0; k < m4; ++k) dw[j * m4 + k] += xt[j] * dg[k];
      for (int64_t j = 0; j < m; ++j)
        for (int64_t k = 0; k < m4; ++k) dw[(d + j) * m4 + k] += hs[j] * dg[k];
      for (int64_t k = 0; k < m4; ++k) db[k] += dg[k];
      // [dX_t, dout_{t-1}] = dgates W^T
      for (int64_t j = 0; j < d; ++j) {
        double acc = 0.0;
        for (int64_t k = 0; k < m4; ++k) acc += dg[k] * wv[j * m4 + k];
        dxv[s * steps * d + t * d + j] = acc;
      }
      for (int64_t j = 0; j < m; ++j) {
        double acc = 0.0;
        for (int64_t k = 0; k < m4; ++k) acc += dg[k] * wv[(d + j) * m4 + k];
        dh[s * m + j] = acc;
      }
      for (int64_t j = 0; j < m; ++j) dct[s * m + j] *= gt[s * m4 + m + j];  // dc_{t-1} = f dc_t
    }
  }
  LstmBackwardResult r;
  r.dx = finished(std::move(dx));
  r.dw = finished(MatrixBlock::dense(d + m, m4, std::move(dw)));
  r.db = finished(MatrixBlock::dense(1, m4, std::move(db)));
  r.dout0 = finished(MatrixBlock::dense(n_seq, m, std::move(dh)));
  r.dc0 = finished(MatrixBlock::dense(n_seq, m, std::move(dct)));
  return r;
}

}  // namespace dmlrt::kernels::cpu
