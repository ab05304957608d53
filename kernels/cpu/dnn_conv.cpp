// CPU reference convolutions: direct loops over dense copies of the inputs. All three ops walk
// the same (n, k, p, q, c, r, s) nest and skip taps that fall into the zero padding, so forward,
// backward-filter and backward-data agree with each other by construction.
#include "kernels/cpu/dnn_conv.h"

#include <vector>

namespace dmlrt::kernels::cpu {
namespace {

// Dense row-major values of b (a copy only when b is CSR).
std::vector<double> dense_copy(const MatrixBlock& b) {
  if (!b.is_sparse()) return b.dense_values();
  return b.to_dense().dense_values();
}

// Calls f(n, k, p, q, c, r, s, x_index, w_index, y_index) for every tap inside the image.
template <typename F>
void for_each_tap(const ConvShape& sh, F&& f) {
  const int64_t chw = sh.c * sh.h * sh.w, crs = sh.c * sh.r * sh.s, kpq = sh.k * sh.p * sh.q;
  for (int64_t n = 0; n < sh.n; ++n)
    for (int64_t k = 0; k < sh.k; ++k)
      for (int64_t p = 0; p < sh.p; ++p)
        for (int64_t q = 0; q < sh.q; ++q) {
          const int64_t yi = n * kpq + (k * sh.p + p) * sh.q + q;
          for (int64_t c = 0; c < sh.c; ++c)
            for (int64_t r = 0; r < sh.r; ++r) {
              const int64_t hh = p * sh.stride_h - sh.pad_h + r;
              if (hh < 0 || hh >= sh.h) continue;
              for (int64_t s = 0; s < sh.s; ++s) {
                const int64_t ww = q * sh.stride_w - sh.pad_w + s;
                if (ww < 0 || ww >= sh.w) continue;
                f(n * chw + (c * sh.h + hh) * sh.w + ww, k * crs + (c * sh.r + r) * sh.s + s, yi);
              }
            }
        }
}

}  // namespace

void ConvShape::derive_output_size() {
  p = stride_h > 0 ? (h + 2 * pad_h - r) / stride_h + 1 : 0;
  q = stride_w > 0 ? (w + 2 * pad_w - s) / stride_w + 1 : 0;
}

MatrixBlock conv2d(const MatrixBlock& x, const MatrixBlock& w, const ConvShape& sh,
                   const MatrixBlock* bias) {
  const std::vector<double> xv = dense_copy(x);                  // (N, C*H*W) row-major
  const std::vector<double> wv = dense_copy(w);                  // (K, C*R*S) row-major
  MatrixBlock y = MatrixBlock::dense(sh.n, sh.k * sh.p * sh.q);  // (N, K*P*Q) row-major
  double* yv = y.dense_data();
  for_each_tap(sh, [&](int64_t xi, int64_t wi, int64_t yi) { yv[yi] += xv[xi] * wv[wi]; });
  if (bias != nullptr) {
    const std::vector<double> bv = dense_copy(*bias);  // (K, 1)
    const int64_t pq = sh.p * sh.q;
    for (int64_t n = 0; n < sh.n; ++n)
      for (int64_t k = 0; k < sh.k; ++k)
        for (int64_t i = 0; i < pq; ++i) yv[(n * sh.k + k) * pq + i] += bv[k];
  }
  y.examine_format();
  return y;
}

MatrixBlock conv2d_backward_filter(const MatrixBlock& x, const MatrixBlock& dout,
                                   const ConvShape& sh) {
  const std::vector<double> xv = dense_copy(x);                   // (N, C*H*W) row-major
  const std::vector<double> dv = dense_copy(dout);                // (N, K*P*Q) row-major
  MatrixBlock dw = MatrixBlock::dense(sh.k, sh.c * sh.r * sh.s);  // (K, C*R*S) row-major
  double* dwv = dw.dense_data();
  for_each_tap(sh, [&](int64_t xi, int64_t wi, int64_t yi) { dwv[wi] += xv[xi] * dv[yi]; });
  dw.examine_format();
  return dw;
}

MatrixBlock conv2d_backward_data(const MatrixBlock& w, const MatrixBlock& dout,
                                 const ConvShape& sh) {
  const std::vector<double> wv = dense_copy(w);                   // (K, C*R*S) row-major
  const std::vector<double> dv = dense_copy(dout);                // (N, K*P*Q) row-major
  MatrixBlock dx = MatrixBlock::dense(sh.n, sh.c * sh.h * sh.w);  // (N, C*H*W) row-major
  double* dxv = dx.dense_data();
  for_each_tap(sh, [&](int64_t xi, int64_t wi, int64_t yi) { dxv[xi] += wv[wi] * dv[yi]; });
  dx.examine_format();
  return dx;
}

}  // namespace dmlrt::kernels::cpu
