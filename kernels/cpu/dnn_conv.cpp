// CPU convolutions as im2col + OpenBLAS dgemm, image by image; see Note [CPU convolutions].
#include "kernels/cpu/dnn_conv.h"

#include <cblas.h>

#include <algorithm>
#include <vector>

#include "kernels/cpu/parallel.h"

namespace dmlrt::kernels::cpu {

// Note [CPU convolutions]
// Each image's patches are unrolled into a column matrix col (C*R*S, P*Q): col[(c, r, s)][(p, q)]
// = x[c][p*stride_h - pad_h + r][q*stride_w - pad_w + s], 0 in the padding. Then, per image n:
//   forward          y_n (K, P*Q)      = W (K, C*R*S) col_n
//   backward filter  dW (K, C*R*S)    += dout_n (K, P*Q) col_n^T
//   backward data    dcol (C*R*S, P*Q) = W^T dout_n, scattered back into dx_n (col2im)
// as SystemDS does (LibMatrixDNN's im2col + matrix multiply). The images are independent in the
// forward and backward-data passes: with at least as many images as threads they run in parallel
// (each dgemm on its own thread, OpenBLAS single-threaded), otherwise one after another with
// OpenBLAS's threads splitting each product; dgemm splits its output, not its sums, so the result
// is the same either way. The filter gradient sums over images: images are taken in blocks whose
// size depends on the shape alone (at most 64 blocks), each block's sum in image order, and the
// blocks' sums added in block order (Note [Deterministic parallel reductions]), so results do not
// depend on the thread count. Against the direct loop of earlier versions (kept as the tests'
// reference) only the order of the sums over (c, r, s) and (p, q) differs.
namespace {

// Dense row-major values of b (a copy only when b is CSR).
const double* dense_values(const MatrixBlock& b, MatrixBlock* holder) {
  if (!b.is_sparse()) return b.dense_data();
  *holder = b.to_dense();
  return holder->dense_data();
}

int blas(int64_t v) { return static_cast<int>(v); }

// col (C*R*S, P*Q) of image x (C*H*W).
void im2col(const double* x, const ConvShape& sh, double* col) {
  const int64_t pq = sh.p * sh.q;
  for (int64_t c = 0; c < sh.c; ++c)
    for (int64_t r = 0; r < sh.r; ++r)
      for (int64_t s = 0; s < sh.s; ++s) {
        double* row = col + ((c * sh.r + r) * sh.s + s) * pq;
        for (int64_t p = 0; p < sh.p; ++p) {
          const int64_t hh = p * sh.stride_h - sh.pad_h + r;
          double* out = row + p * sh.q;
          if (hh < 0 || hh >= sh.h) {
            std::fill(out, out + sh.q, 0.0);
            continue;
          }
          const double* in = x + (c * sh.h + hh) * sh.w;
          for (int64_t q = 0; q < sh.q; ++q) {
            const int64_t ww = q * sh.stride_w - sh.pad_w + s;
            out[q] = ww >= 0 && ww < sh.w ? in[ww] : 0.0;
          }
        }
      }
}

// dx (C*H*W) += the patches of dcol (C*R*S, P*Q), in (c, r, s, p, q) order.
void col2im_add(const double* dcol, const ConvShape& sh, double* dx) {
  const int64_t pq = sh.p * sh.q;
  for (int64_t c = 0; c < sh.c; ++c)
    for (int64_t r = 0; r < sh.r; ++r)
      for (int64_t s = 0; s < sh.s; ++s) {
        const double* row = dcol + ((c * sh.r + r) * sh.s + s) * pq;
        for (int64_t p = 0; p < sh.p; ++p) {
          const int64_t hh = p * sh.stride_h - sh.pad_h + r;
          if (hh < 0 || hh >= sh.h) continue;
          double* out = dx + (c * sh.h + hh) * sh.w;
          for (int64_t q = 0; q < sh.q; ++q) {
            const int64_t ww = q * sh.stride_w - sh.pad_w + s;
            if (ww >= 0 && ww < sh.w) out[ww] += row[p * sh.q + q];
          }
        }
      }
}

// Runs per_image(n, col_buffer) for every image: in parallel over images when there are enough of
// them (OpenBLAS single-threaded meanwhile), else in order. col_buffer holds C*R*S*P*Q doubles.
template <typename F>
void for_each_image(const ConvShape& sh, F&& per_image) {
  const size_t col_size = static_cast<size_t>(sh.c * sh.r * sh.s * sh.p * sh.q);
  if (sh.n >= num_threads() && num_threads() > 1) {
    SingleThreadedBlas one;
    parallel_for(0, sh.n, 1, [&](int64_t lo, int64_t hi) {
      std::vector<double> col(col_size);
      for (int64_t n = lo; n < hi; ++n) per_image(n, col.data());
    });
  } else {
    std::vector<double> col(col_size);
    for (int64_t n = 0; n < sh.n; ++n) per_image(n, col.data());
  }
}

bool degenerate(const ConvShape& sh) {
  return sh.n <= 0 || sh.k <= 0 || sh.p <= 0 || sh.q <= 0 || sh.c * sh.r * sh.s <= 0;
}

}  // namespace

void ConvShape::derive_output_size() {
  p = stride_h > 0 ? (h + 2 * pad_h - r) / stride_h + 1 : 0;
  q = stride_w > 0 ? (w + 2 * pad_w - s) / stride_w + 1 : 0;
}

MatrixBlock conv2d(const MatrixBlock& x, const MatrixBlock& w, const ConvShape& sh,
                   const MatrixBlock* bias) {
  MatrixBlock y = MatrixBlock::dense(sh.n, sh.k * sh.p * sh.q);  // (N, K*P*Q) row-major
  const int64_t chw = sh.c * sh.h * sh.w, crs = sh.c * sh.r * sh.s, pq = sh.p * sh.q;
  double* yv = y.dense_data();
  if (!degenerate(sh)) {
    MatrixBlock xh, wh;
    const double* xv = dense_values(x, &xh);  // (N, C*H*W)
    const double* wv = dense_values(w, &wh);  // (K, C*R*S)
    for_each_image(sh, [&](int64_t n, double* col) {
      im2col(xv + n * chw, sh, col);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blas(sh.k), blas(pq), blas(crs), 1.0,
                  wv, blas(crs), col, blas(pq), 0.0, yv + n * sh.k * pq, blas(pq));
    });
  }
  if (bias != nullptr && sh.n > 0 && pq > 0) {
    MatrixBlock bh;
    const double* bv = dense_values(*bias, &bh);  // (K, 1)
    for (int64_t n = 0; n < sh.n; ++n)
      for (int64_t k = 0; k < sh.k; ++k)
        for (int64_t i = 0; i < pq; ++i) yv[(n * sh.k + k) * pq + i] += bv[k];
  }
  y.examine_format();
  return y;
}

MatrixBlock conv2d_backward_filter(const MatrixBlock& x, const MatrixBlock& dout,
                                   const ConvShape& sh) {
  const int64_t chw = sh.c * sh.h * sh.w, crs = sh.c * sh.r * sh.s, pq = sh.p * sh.q;
  MatrixBlock dw = MatrixBlock::dense(sh.k, crs);  // (K, C*R*S) row-major
  if (degenerate(sh)) {
    dw.examine_format();
    return dw;
  }
  MatrixBlock xh, dh;
  const double* xv = dense_values(x, &xh);     // (N, C*H*W)
  const double* dv = dense_values(dout, &dh);  // (N, K*P*Q)
  // At most 64 partial sums, fewer for big filters (32 Mi doubles of partials at most): the
  // block size depends on the shape alone.
  const size_t kcrs = static_cast<size_t>(sh.k * crs);
  const int64_t max_blocks =
      std::clamp<int64_t>(static_cast<int64_t>((size_t{32} << 20) / kcrs), 1, 64);
  const int64_t block = (sh.n + max_blocks - 1) / max_blocks;  // images per partial sum
  const int64_t blocks = chunk_count(0, sh.n, block);
  std::vector<double> partial(static_cast<size_t>(blocks) * kcrs, 0.0);
  const size_t col_size = static_cast<size_t>(crs * pq);
  const auto run_block = [&](int64_t b, int64_t lo, int64_t hi) {
    std::vector<double> col(col_size);
    double* acc = partial.data() + static_cast<size_t>(b) * kcrs;
    for (int64_t n = lo; n < hi; ++n) {
      im2col(xv + n * chw, sh, col.data());
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, blas(sh.k), blas(crs), blas(pq), 1.0,
                  dv + n * sh.k * pq, blas(pq), col.data(), blas(pq), 1.0, acc, blas(crs));
    }
  };
  if (blocks >= num_threads() && num_threads() > 1) {
    SingleThreadedBlas one;
    parallel_chunks(0, sh.n, block, run_block);
  } else {
    for (int64_t b = 0; b < blocks; ++b) run_block(b, b * block, std::min(sh.n, (b + 1) * block));
  }
  double* dwv = dw.dense_data();
  for (int64_t b = 0; b < blocks; ++b) {  // block order
    const double* p = partial.data() + static_cast<size_t>(b) * kcrs;
    for (size_t i = 0; i < kcrs; ++i) dwv[i] += p[i];
  }
  dw.examine_format();
  return dw;
}

MatrixBlock conv2d_backward_data(const MatrixBlock& w, const MatrixBlock& dout,
                                 const ConvShape& sh) {
  const int64_t chw = sh.c * sh.h * sh.w, crs = sh.c * sh.r * sh.s, pq = sh.p * sh.q;
  MatrixBlock dx = MatrixBlock::dense(sh.n, chw);  // (N, C*H*W) row-major
  if (!degenerate(sh)) {
    MatrixBlock wh, dh;
    const double* wv = dense_values(w, &wh);     // (K, C*R*S)
    const double* dv = dense_values(dout, &dh);  // (N, K*P*Q)
    double* dxv = dx.dense_data();
    for_each_image(sh, [&](int64_t n, double* dcol) {
      cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, blas(crs), blas(pq), blas(sh.k), 1.0,
                  wv, blas(crs), dv + n * sh.k * pq, blas(pq), 0.0, dcol, blas(pq));
      col2im_add(dcol, sh, dxv + n * chw);
    });
  }
  dx.examine_format();
  return dx;
}

}  // namespace dmlrt::kernels::cpu
