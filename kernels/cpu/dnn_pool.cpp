// CPU DNN pooling and per-channel ops (see dnn_pool.h): direct loops over dense copies, the
// pooling ops in parallel over images (each image writes its own output row, in the same order
// as one thread would, so results do not depend on the thread count).
#include "kernels/cpu/dnn_pool.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/parallel.h"

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

// Calls f(in_index, out_index) for every real (non-padding) cell of every window; indices are
// offsets into one image row: in = ch*h*w + y*w + x, out = ch*p*q + py*q + px. Cells are visited
// window by window in row-major order, which the first-maximum rule relies on.
template <typename F>
void for_each_window(const PoolShape& sh, F&& f_window) {
  const int64_t p = sh.p(), q = sh.q();
  for (int64_t ch = 0; ch < sh.c; ++ch)
    for (int64_t py = 0; py < p; ++py)
      for (int64_t px = 0; px < q; ++px) f_window(ch, py, px, ch * p * q + py * q + px);
}

// Runs f(i) for every image i of n, in parallel over images (`cells` per image set the grain).
template <typename F>
void for_each_image(int64_t n, int64_t cells, F&& f) {
  parallel_for(0, n, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(cells, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t i = lo; i < hi; ++i) f(i);
               });
}

}  // namespace

MatrixBlock max_pool(const MatrixBlock& x, const PoolShape& sh, bool relu) {
  const std::vector<double> in = dense_copy(x);  // (n, c*h*w) row-major
  const int64_t p = sh.p(), q = sh.q(), chw = sh.c * sh.h * sh.w, cpq = sh.c * p * q;
  std::vector<double> out(static_cast<size_t>(sh.n * cpq));  // (n, c*p*q) row-major
  for_each_image(sh.n, cpq * sh.r * sh.s, [&](int64_t i) {
    const double* img = in.data() + i * chw;
    for_each_window(sh, [&](int64_t ch, int64_t py, int64_t px, int64_t o) {
      // relu_maxpooling starts from 0 (= max over max(x, 0)); SystemDS's max uses Math.max,
      // which propagates NaN.
      double m = relu ? 0.0 : -std::numeric_limits<double>::infinity();
      for (int64_t a = 0; a < sh.r; ++a) {
        const int64_t y = py * sh.stride_h - sh.pad_h + a;
        if (y < 0 || y >= sh.h) continue;
        for (int64_t b = 0; b < sh.s; ++b) {
          const int64_t xx = px * sh.stride_w - sh.pad_w + b;
          if (xx < 0 || xx >= sh.w) continue;
          const double v = img[ch * sh.h * sh.w + y * sh.w + xx];
          if (std::isnan(v) || v > m) m = std::isnan(m) ? m : v;
        }
      }
      out[static_cast<size_t>(i * cpq + o)] = m;
    });
  });
  return finish(sh.n, cpq, std::move(out));
}

MatrixBlock max_pool_backward(const MatrixBlock& x, const MatrixBlock& dout, const PoolShape& sh,
                              bool relu) {
  const std::vector<double> in = dense_copy(x);   // (n, c*h*w) row-major
  const std::vector<double> d = dense_copy(dout);  // (n, c*p*q) row-major
  const int64_t p = sh.p(), q = sh.q(), chw = sh.c * sh.h * sh.w, cpq = sh.c * p * q;
  std::vector<double> out(static_cast<size_t>(sh.n * chw), 0.0);  // (n, c*h*w) row-major
  for_each_image(sh.n, cpq * sh.r * sh.s, [&](int64_t i) {
    const double* img = in.data() + i * chw;
    for_each_window(sh, [&](int64_t ch, int64_t py, int64_t px, int64_t o) {
      double m = -std::numeric_limits<double>::infinity();
      int64_t arg = -1;
      for (int64_t a = 0; a < sh.r; ++a) {
        const int64_t y = py * sh.stride_h - sh.pad_h + a;
        if (y < 0 || y >= sh.h) continue;
        for (int64_t b = 0; b < sh.s; ++b) {
          const int64_t xx = px * sh.stride_w - sh.pad_w + b;
          if (xx < 0 || xx >= sh.w) continue;
          const int64_t idx = ch * sh.h * sh.w + y * sh.w + xx;
          const double v = relu ? std::max(img[idx], 0.0) : img[idx];
          if (arg < 0 || v > m) {  // strict '>': the first maximum keeps the gradient
            m = v;
            arg = idx;
          }
        }
      }
      // Under relu a window whose maximum is max(x,0) = 0 at a cell with x <= 0 passes nothing.
      // Overlapping windows that pick the same cell ADD their gradients (the true derivative,
      // and cuDNN's). SystemDS 3.4's CP kernel instead appends one sparse entry per window, so
      // such cells end up as duplicate column entries (its CSV output then has extra fields and
      // reads back arbitrarily); we do not copy that bug (conformance case dnn_maxpool).
      if (arg >= 0 && (!relu || img[arg] > 0.0))
        out[static_cast<size_t>(i * chw + arg)] += d[static_cast<size_t>(i * cpq + o)];
    });
  });
  return finish(sh.n, chw, std::move(out));
}

MatrixBlock avg_pool(const MatrixBlock& x, const PoolShape& sh) {
  const std::vector<double> in = dense_copy(x);
  const int64_t p = sh.p(), q = sh.q(), chw = sh.c * sh.h * sh.w, cpq = sh.c * p * q;
  const double area = static_cast<double>(sh.r * sh.s);
  std::vector<double> out(static_cast<size_t>(sh.n * cpq));
  for_each_image(sh.n, cpq * sh.r * sh.s, [&](int64_t i) {
    const double* img = in.data() + i * chw;
    for_each_window(sh, [&](int64_t ch, int64_t py, int64_t px, int64_t o) {
      double sum = 0.0;
      for (int64_t a = 0; a < sh.r; ++a) {
        const int64_t y = py * sh.stride_h - sh.pad_h + a;
        if (y < 0 || y >= sh.h) continue;
        for (int64_t b = 0; b < sh.s; ++b) {
          const int64_t xx = px * sh.stride_w - sh.pad_w + b;
          if (xx < 0 || xx >= sh.w) continue;
          sum += img[ch * sh.h * sh.w + y * sh.w + xx];
        }
      }
      // SystemDS divides by the full pool size, padding included.
      out[static_cast<size_t>(i * cpq + o)] = sum / area;
    });
  });
  return finish(sh.n, cpq, std::move(out));
}

MatrixBlock avg_pool_backward(const MatrixBlock& dout, const PoolShape& sh) {
  const std::vector<double> d = dense_copy(dout);
  const int64_t p = sh.p(), q = sh.q(), chw = sh.c * sh.h * sh.w, cpq = sh.c * p * q;
  const double area = static_cast<double>(sh.r * sh.s);
  std::vector<double> out(static_cast<size_t>(sh.n * chw), 0.0);
  for_each_image(sh.n, cpq * sh.r * sh.s, [&](int64_t i) {
    for_each_window(sh, [&](int64_t ch, int64_t py, int64_t px, int64_t o) {
      const double g = d[static_cast<size_t>(i * cpq + o)] / area;
      for (int64_t a = 0; a < sh.r; ++a) {
        const int64_t y = py * sh.stride_h - sh.pad_h + a;
        if (y < 0 || y >= sh.h) continue;
        for (int64_t b = 0; b < sh.s; ++b) {
          const int64_t xx = px * sh.stride_w - sh.pad_w + b;
          if (xx < 0 || xx >= sh.w) continue;
          out[static_cast<size_t>(i * chw + ch * sh.h * sh.w + y * sh.w + xx)] += g;
        }
      }
    });
  });
  return finish(sh.n, chw, std::move(out));
}

MatrixBlock relu_backward(const MatrixBlock& x, const MatrixBlock& dout) {
  const std::vector<double> a = dense_copy(x), d = dense_copy(dout);
  std::vector<double> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] > 0.0 ? d[i] : 0.0;
  return finish(x.rows(), x.cols(), std::move(out));
}

namespace {
MatrixBlock bias_op(const MatrixBlock& x, const MatrixBlock& bias, bool multiply) {
  std::vector<double> v = dense_copy(x);  // (n, k*pq) row-major
  const std::vector<double> b = dense_copy(bias);
  const int64_t k = bias.rows(), cols = x.cols();
  const int64_t pq = k == 0 ? 0 : cols / k;
  for (int64_t i = 0; i < x.rows(); ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double& c = v[static_cast<size_t>(i * cols + j)];
      const double bj = b[static_cast<size_t>(j / pq)];
      c = multiply ? c * bj : c + bj;
    }
  return finish(x.rows(), cols, std::move(v));
}
}  // namespace

MatrixBlock bias_add(const MatrixBlock& x, const MatrixBlock& bias) {
  return bias_op(x, bias, false);
}

MatrixBlock bias_multiply(const MatrixBlock& x, const MatrixBlock& bias) {
  return bias_op(x, bias, true);
}

MatrixBlock channel_sums(const MatrixBlock& x, int64_t c, int64_t hw) {
  const std::vector<double> v = dense_copy(x);
  std::vector<double> out(static_cast<size_t>(c), 0.0);  // (c, 1)
  for (int64_t i = 0; i < x.rows(); ++i)
    for (int64_t j = 0; j < c * hw; ++j) out[static_cast<size_t>(j / hw)] += v[static_cast<size_t>(i * c * hw + j)];
  return finish(c, 1, std::move(out));
}

MatrixBlock update_nesterov_x(const MatrixBlock& x, const MatrixBlock& v, const MatrixBlock& v_prev,
                              double mu) {
  const std::vector<double> a = dense_copy(x), b = dense_copy(v), c = dense_copy(v_prev);
  std::vector<double> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] - mu * c[i] + (1.0 + mu) * b[i];
  return finish(x.rows(), x.cols(), std::move(out));
}

}  // namespace dmlrt::kernels::cpu
