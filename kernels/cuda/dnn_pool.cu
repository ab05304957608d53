// DNN pooling and per-channel kernel family: pooling forward / backward with the CPU's exact
// window semantics, relu_backward, bias_add / bias_multiply, channel_sums and the Nesterov
// update; see dnn_pool.h.
//
// Note [GPU pooling kernels]
// Pooling runs on our own kernels, not cuDNN's, so every result equals the CPU reference
// (kernels/cpu/dnn_pool.cpp) by construction; these ops are memory-bound, so a direct kernel
// costs no more than cudnnPooling* would, and it reproduces what cuDNN does not promise:
//  * forward max: padding counts as -Inf (a window of padding only gives -Inf, or 0 under relu),
//    the first NaN of a window wins, relu_maxpooling starts the max at 0. One thread per output.
//  * forward avg: real cells summed in row-major order, divided by r*s (padding included).
//  * backward max: the gradient of a window goes to its FIRST maximal cell in row-major scan
//    order (strict '>'), under relu to nothing when that cell has x <= 0. Relu_maxpooling makes
//    ties common (many windows of zeros), and cuDNN's choice among tied cells is unspecified, so
//    the cell is chosen here. Non-overlapping windows (stride >= pool size): one thread per
//    window writes its cell (no two windows share a cell, so no races and no atomics).
//    Overlapping windows: pass 1 stores each window's chosen cell (its offset a*s+b inside the
//    window, or -1) in an int32 workspace; pass 2 runs one thread per input cell and adds the
//    douts of the windows covering it that chose it, in window row-major order, which is the
//    CPU's order of additions. No atomics: results are deterministic and, in FP64, bitwise the
//    CPU's.
//  * backward avg: one thread per input cell gathering dout/(r*s) from the windows covering it,
//    again in the CPU's order.
// Sums accumulate in double for both element types (as the CPU does).
#include <cmath>
#include <string>
#include <type_traits>

#include "gpu_context/cuda_check.h"
#include "gpu_context/error.h"
#include "kernels/cuda/dnn_pool.h"
#include "kernels/cuda/kernel_utils.cuh"

namespace dmlrt::kernels::cuda {
namespace {

// Pooling geometry as plain values for the kernels.
struct Geo {
  int64_t n, c, h, w, r, s, sh, sw, ph, pw, p, q;
};

Geo geo_of(const cpu::PoolShape& sh) {
  return Geo{sh.n,        sh.c,        sh.h,     sh.w,     sh.r,   sh.s,
             sh.stride_h, sh.stride_w, sh.pad_h, sh.pad_w, sh.p(), sh.q()};
}

// [lo, hi): the offsets k in [0, len) of a window starting at `start` with start + k in
// [0, limit); empty when hi <= lo.
__device__ __forceinline__ void clip(int64_t start, int64_t len, int64_t limit, int64_t& lo,
                                     int64_t& hi) {
  lo = start < 0 ? -start : 0;
  hi = limit - start < len ? limit - start : len;
}

// Windows (py, px) covering coordinate y: [lo, hi] inclusive, clipped to [0, p-1].
__device__ __forceinline__ void covering(int64_t y, int64_t pad, int64_t r, int64_t stride,
                                         int64_t p, int64_t& lo, int64_t& hi) {
  const int64_t first = y + pad - r + 1;  // the window must start at or after this row
  lo = first <= 0 ? 0 : (first + stride - 1) / stride;
  hi = (y + pad) / stride;
  if (hi > p - 1) hi = p - 1;
}

template <typename T, bool kRelu>
__global__ void max_pool_kernel(const T* __restrict__ x, T* __restrict__ out, Geo g) {
  const int64_t total = g.n * g.c * g.p * g.q, hw = g.h * g.w;
  for (int64_t i = detail::global_thread(); i < total; i += detail::grid_stride()) {
    const int64_t px = i % g.q, t = i / g.q, py = t % g.p, img = t / g.p;  // img = n*c + ch
    const T* in = x + img * hw;
    const int64_t y0 = py * g.sh - g.ph, x0 = px * g.sw - g.pw;
    int64_t a0, a1, b0, b1;
    clip(y0, g.r, g.h, a0, a1);
    clip(x0, g.s, g.w, b0, b1);
    T m = kRelu ? T(0) : static_cast<T>(-INFINITY);
    for (int64_t a = a0; a < a1; ++a)
      for (int64_t b = b0; b < b1; ++b) {
        const T v = in[(y0 + a) * g.w + x0 + b];
        if (isnan(v) || v > m) m = isnan(m) ? m : v;  // the CPU's rule, NaN sticks
      }
    out[i] = m;
  }
}

template <typename T>
__global__ void avg_pool_kernel(const T* __restrict__ x, T* __restrict__ out, Geo g) {
  const int64_t total = g.n * g.c * g.p * g.q, hw = g.h * g.w;
  const double area = static_cast<double>(g.r * g.s);
  for (int64_t i = detail::global_thread(); i < total; i += detail::grid_stride()) {
    const int64_t px = i % g.q, t = i / g.q, py = t % g.p, img = t / g.p;
    const T* in = x + img * hw;
    const int64_t y0 = py * g.sh - g.ph, x0 = px * g.sw - g.pw;
    int64_t a0, a1, b0, b1;
    clip(y0, g.r, g.h, a0, a1);
    clip(x0, g.s, g.w, b0, b1);
    double sum = 0.0;
    for (int64_t a = a0; a < a1; ++a)
      for (int64_t b = b0; b < b1; ++b) sum += static_cast<double>(in[(y0 + a) * g.w + x0 + b]);
    out[i] = static_cast<T>(sum / area);
  }
}

// The cell window (img, py, px) sends its gradient to: its offset a*s+b in the window and its
// offset y*w+x in the channel image, or -1 when none (no real cell; under relu a maximum at a
// cell with x <= 0).
template <typename T, bool kRelu>
__device__ __forceinline__ int32_t window_choice(const T* __restrict__ in, const Geo& g, int64_t py,
                                                 int64_t px, int64_t& cell) {
  const int64_t y0 = py * g.sh - g.ph, x0 = px * g.sw - g.pw;
  int64_t a0, a1, b0, b1;
  clip(y0, g.r, g.h, a0, a1);
  clip(x0, g.s, g.w, b0, b1);
  T m = static_cast<T>(-INFINITY);
  int32_t arg = -1;
  for (int64_t a = a0; a < a1; ++a)
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t idx = (y0 + a) * g.w + x0 + b;
      T v = in[idx];
      if (kRelu) v = v < T(0) ? T(0) : v;  // std::max(v, 0.0): NaN stays NaN
      if (arg < 0 || v > m) {              // strict '>': the first maximum keeps the gradient
        m = v;
        arg = static_cast<int32_t>(a * g.s + b);
        cell = idx;
      }
    }
  if (kRelu && arg >= 0 && !(in[cell] > T(0))) arg = -1;
  return arg;
}

// Non-overlapping windows: each window adds its dout to its chosen cell of the zeroed output;
// no cell belongs to two windows.
template <typename T, bool kRelu>
__global__ void max_pool_backward_scatter_kernel(const T* __restrict__ x,
                                                 const T* __restrict__ dout, T* __restrict__ out,
                                                 Geo g) {
  const int64_t total = g.n * g.c * g.p * g.q, hw = g.h * g.w;
  for (int64_t i = detail::global_thread(); i < total; i += detail::grid_stride()) {
    const int64_t px = i % g.q, t = i / g.q, py = t % g.p, img = t / g.p;
    int64_t cell = 0;
    if (window_choice<T, kRelu>(x + img * hw, g, py, px, cell) >= 0)
      out[img * hw + cell] = T(0) + dout[i];  // 0 + dout, as the CPU's += into a zero
  }
}

// Overlapping windows, pass 1: the chosen offset of every window.
template <typename T, bool kRelu>
__global__ void max_pool_argmax_kernel(const T* __restrict__ x, int32_t* __restrict__ choice,
                                       Geo g) {
  const int64_t total = g.n * g.c * g.p * g.q, hw = g.h * g.w;
  for (int64_t i = detail::global_thread(); i < total; i += detail::grid_stride()) {
    const int64_t px = i % g.q, t = i / g.q, py = t % g.p, img = t / g.p;
    int64_t cell = 0;
    choice[i] = window_choice<T, kRelu>(x + img * hw, g, py, px, cell);
  }
}

// Overlapping windows, pass 2: each input cell sums the douts of the covering windows that chose
// it, in window row-major order.
template <typename T>
__global__ void max_pool_gather_kernel(const int32_t* __restrict__ choice,
                                       const T* __restrict__ dout, T* __restrict__ out, Geo g) {
  const int64_t total = g.n * g.c * g.h * g.w, pq = g.p * g.q;
  for (int64_t i = detail::global_thread(); i < total; i += detail::grid_stride()) {
    const int64_t xx = i % g.w, t = i / g.w, y = t % g.h, img = t / g.h;
    int64_t py0, py1, px0, px1;
    covering(y, g.ph, g.r, g.sh, g.p, py0, py1);
    covering(xx, g.pw, g.s, g.sw, g.q, px0, px1);
    double acc = 0.0;
    for (int64_t py = py0; py <= py1; ++py)
      for (int64_t px = px0; px <= px1; ++px) {
        const int64_t o = img * pq + py * g.q + px;
        const int64_t a = y + g.ph - py * g.sh, b = xx + g.pw - px * g.sw;
        if (choice[o] == a * g.s + b) acc += static_cast<double>(dout[o]);
      }
    out[i] = static_cast<T>(acc);
  }
}

template <typename T>
__global__ void avg_pool_backward_kernel(const T* __restrict__ dout, T* __restrict__ out, Geo g) {
  const int64_t total = g.n * g.c * g.h * g.w, pq = g.p * g.q;
  const double area = static_cast<double>(g.r * g.s);
  for (int64_t i = detail::global_thread(); i < total; i += detail::grid_stride()) {
    const int64_t xx = i % g.w, t = i / g.w, y = t % g.h, img = t / g.h;
    int64_t py0, py1, px0, px1;
    covering(y, g.ph, g.r, g.sh, g.p, py0, py1);
    covering(xx, g.pw, g.s, g.sw, g.q, px0, px1);
    double acc = 0.0;
    for (int64_t py = py0; py <= py1; ++py)
      for (int64_t px = px0; px <= px1; ++px)
        acc += static_cast<double>(dout[img * pq + py * g.q + px]) / area;
    out[i] = static_cast<T>(acc);
  }
}

template <typename T>
__global__ void relu_backward_kernel(const T* __restrict__ x, const T* __restrict__ dout,
                                     T* __restrict__ out, int64_t n) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    out[i] = x[i] > T(0) ? dout[i] : T(0);
}

enum class BiasMode { kAdd, kMultiply, kAddRelu };

// kAddRelu: max(x + b, 0) as Java's Math.max (NaN stays NaN, -0 becomes 0).
template <typename T, BiasMode kMode>
__global__ void bias_kernel(const T* __restrict__ x, const T* __restrict__ bias,
                            T* __restrict__ out, int64_t rows, int64_t cols, int64_t pq) {
  const int64_t n = rows * cols;
  const int64_t start = detail::global_thread(), stride = detail::grid_stride();
  if (start >= n) return;
  detail::RowColWalk w(start, stride, cols);
  for (int64_t i = start; i < n; i += stride, w.advance()) {
    const T b = bias[w.c / pq];
    if constexpr (kMode == BiasMode::kMultiply) {
      out[i] = x[i] * b;
    } else {
      const T v = x[i] + b;
      out[i] = kMode == BiasMode::kAddRelu && !(v > T(0)) && !isnan(v) ? T(0) : v;
    }
  }
}

template <typename T, BiasMode kMode>
void launch_bias(const T* x, const T* bias, T* out, int64_t rows, int64_t cols, int64_t k,
                 cudaStream_t stream, const char* what) {
  if (rows * cols == 0) return;
  bias_kernel<T, kMode><<<detail::grid_for(rows * cols), detail::kThreads, 0, stream>>>(
      x, bias, out, rows, cols, cols / k);
  DMLRT_CHECK_CTX(cudaGetLastError(), what << " " << rows << "x" << cols << " k=" << k);
}

// channel_sums pass 1: block (ch, part) sums its part of channel ch's rows*hw cells.
template <typename T>
__global__ void channel_partial_kernel(const T* __restrict__ x, double* __restrict__ partial,
                                       int64_t rows, int64_t c, int64_t hw, int64_t per_part) {
  __shared__ double shared[32];
  const int64_t total = rows * hw, parts = gridDim.y;
  const int64_t e0 = blockIdx.y * per_part;
  const int64_t e1 = e0 + per_part < total ? e0 + per_part : total;
  for (int64_t ch = blockIdx.x; ch < c; ch += gridDim.x) {
    double s = 0.0;
    for (int64_t e = e0 + threadIdx.x; e < e1; e += blockDim.x) {
      const int64_t i = e / hw, j = e - i * hw;
      s += static_cast<double>(x[(i * c + ch) * hw + j]);
    }
    s = detail::block_reduce(
        s, [](double u, double v) { return u + v; }, 0.0, shared);
    if (threadIdx.x == 0) partial[ch * parts + blockIdx.y] = s;
  }
}

// channel_sums pass 2: the parts of each channel in order.
template <typename T>
__global__ void channel_final_kernel(const double* __restrict__ partial, T* __restrict__ out,
                                     int64_t c, int64_t parts) {
  for (int64_t ch = detail::global_thread(); ch < c; ch += detail::grid_stride()) {
    double s = 0.0;
    for (int64_t k = 0; k < parts; ++k) s += partial[ch * parts + k];
    out[ch] = static_cast<T>(s);
  }
}

// Products and sums rounded separately (no FMA contraction), as the CPU computes them.
template <typename T>
__global__ void nesterov_kernel(const T* __restrict__ x, const T* __restrict__ v,
                                const T* __restrict__ vp, double mu, T* __restrict__ out,
                                int64_t n) {
  const double one_mu = 1.0 + mu;
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride()) {
    const double a =
        __dsub_rn(static_cast<double>(x[i]), __dmul_rn(mu, static_cast<double>(vp[i])));
    out[i] = static_cast<T>(__dadd_rn(a, __dmul_rn(one_mu, static_cast<double>(v[i]))));
  }
}

constexpr int kChannelThreads = 256;
constexpr int64_t kChannelCellsPerPart = 2048;
constexpr int64_t kChannelMaxParts = 1024;
constexpr int64_t kChannelTargetBlocks = 1024;

// Parts per channel: enough blocks to fill the device when channels are few, each part at least
// kChannelCellsPerPart cells.
int64_t channel_parts(int64_t rows, int64_t c, int64_t hw) {
  const int64_t total = rows * hw;
  if (total == 0 || c == 0) return 0;
  int64_t parts = (total + kChannelCellsPerPart - 1) / kChannelCellsPerPart;
  const int64_t fill = (kChannelTargetBlocks + c - 1) / c;
  if (parts > fill) parts = fill;
  if (parts > kChannelMaxParts) parts = kChannelMaxParts;
  return parts < 1 ? 1 : parts;
}

bool overlapping(const cpu::PoolShape& sh) { return sh.stride_h < sh.r || sh.stride_w < sh.s; }

std::string shape_text(const cpu::PoolShape& sh) {
  return "n=" + std::to_string(sh.n) + " c=" + std::to_string(sh.c) + " " + std::to_string(sh.h) +
         "x" + std::to_string(sh.w) + " pool " + std::to_string(sh.r) + "x" + std::to_string(sh.s);
}

// Calls f(std::true_type) or f(std::false_type) for the runtime relu flag: the kernels take it
// as a template argument.
template <typename F>
void with_relu(bool relu, F&& f) {
  if (relu)
    f(std::true_type{});
  else
    f(std::false_type{});
}

}  // namespace

template <typename T>
void launch_max_pool(const T* x, T* out, const cpu::PoolShape& sh, bool relu, cudaStream_t stream) {
  const Geo g = geo_of(sh);
  const int64_t total = g.n * g.c * g.p * g.q;
  if (total == 0) return;
  const int grid = detail::grid_for(total);
  with_relu(relu, [&](auto r) {
    max_pool_kernel<T, r.value><<<grid, detail::kThreads, 0, stream>>>(x, out, g);
  });
  DMLRT_CHECK_CTX(cudaGetLastError(), "max pool " << shape_text(sh));
}

template <typename T>
void launch_avg_pool(const T* x, T* out, const cpu::PoolShape& sh, cudaStream_t stream) {
  const Geo g = geo_of(sh);
  const int64_t total = g.n * g.c * g.p * g.q;
  if (total == 0) return;
  avg_pool_kernel<T><<<detail::grid_for(total), detail::kThreads, 0, stream>>>(x, out, g);
  DMLRT_CHECK_CTX(cudaGetLastError(), "avg pool " << shape_text(sh));
}

size_t max_pool_backward_workspace_bytes(const cpu::PoolShape& sh) {
  if (!overlapping(sh)) return 0;
  return static_cast<size_t>(sh.n * sh.c * sh.p() * sh.q()) * sizeof(int32_t);
}

template <typename T>
void launch_max_pool_backward(const T* x, const T* dout, T* out, const cpu::PoolShape& sh,
                              bool relu, void* workspace, cudaStream_t stream) {
  const Geo g = geo_of(sh);
  const int64_t windows = g.n * g.c * g.p * g.q, cells = g.n * g.c * g.h * g.w;
  if (cells == 0) return;
  DMLRT_REQUIRE(g.r * g.s <= INT32_MAX, NotSupported,
                "max pool backward: pool " << g.r << "x" << g.s << " has over 2^31 cells");
  cudaStream_t st = stream;
  if (!overlapping(sh)) {
    DMLRT_CHECK_CTX(cudaMemsetAsync(out, 0, static_cast<size_t>(cells) * sizeof(T), st),
                    "max pool backward " << shape_text(sh));
    if (windows == 0) return;
    const int grid = detail::grid_for(windows);
    with_relu(relu, [&](auto r) {
      max_pool_backward_scatter_kernel<T, r.value>
          <<<grid, detail::kThreads, 0, st>>>(x, dout, out, g);
    });
    DMLRT_CHECK_CTX(cudaGetLastError(), "max pool backward " << shape_text(sh));
    return;
  }
  auto* choice = static_cast<int32_t*>(workspace);
  const int grid = detail::grid_for(windows);
  with_relu(relu, [&](auto r) {
    max_pool_argmax_kernel<T, r.value><<<grid, detail::kThreads, 0, st>>>(x, choice, g);
  });
  DMLRT_CHECK_CTX(cudaGetLastError(), "max pool backward (argmax) " << shape_text(sh));
  max_pool_gather_kernel<T>
      <<<detail::grid_for(cells), detail::kThreads, 0, st>>>(choice, dout, out, g);
  DMLRT_CHECK_CTX(cudaGetLastError(), "max pool backward (gather) " << shape_text(sh));
}

template <typename T>
void launch_avg_pool_backward(const T* dout, T* out, const cpu::PoolShape& sh,
                              cudaStream_t stream) {
  const Geo g = geo_of(sh);
  const int64_t cells = g.n * g.c * g.h * g.w;
  if (cells == 0) return;
  avg_pool_backward_kernel<T>
      <<<detail::grid_for(cells), detail::kThreads, 0, stream>>>(dout, out, g);
  DMLRT_CHECK_CTX(cudaGetLastError(), "avg pool backward " << shape_text(sh));
}

template <typename T>
void launch_relu_backward(const T* x, const T* dout, T* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  relu_backward_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, stream>>>(x, dout, out, n);
  DMLRT_CHECK_CTX(cudaGetLastError(), "relu_backward n=" << n);
}

template <typename T>
void launch_bias_add(const T* x, const T* bias, T* out, int64_t rows, int64_t cols, int64_t k,
                     cudaStream_t stream) {
  launch_bias<T, BiasMode::kAdd>(x, bias, out, rows, cols, k, stream, "bias_add");
}

template <typename T>
void launch_bias_add_relu(const T* x, const T* bias, T* out, int64_t rows, int64_t cols, int64_t k,
                          cudaStream_t stream) {
  launch_bias<T, BiasMode::kAddRelu>(x, bias, out, rows, cols, k, stream, "bias_add_relu");
}

template <typename T>
void launch_bias_multiply(const T* x, const T* bias, T* out, int64_t rows, int64_t cols, int64_t k,
                          cudaStream_t stream) {
  launch_bias<T, BiasMode::kMultiply>(x, bias, out, rows, cols, k, stream, "bias_multiply");
}

size_t channel_sums_workspace_bytes(int64_t rows, int64_t c, int64_t hw) {
  return static_cast<size_t>(c * channel_parts(rows, c, hw)) * sizeof(double);
}

template <typename T>
void launch_channel_sums(const T* x, T* out, int64_t rows, int64_t c, int64_t hw, void* workspace,
                         cudaStream_t stream) {
  if (c == 0) return;
  cudaStream_t st = stream;
  const int64_t parts = channel_parts(rows, c, hw);
  if (parts == 0) {  // no cells: every sum is 0
    DMLRT_CHECK_CTX(cudaMemsetAsync(out, 0, static_cast<size_t>(c) * sizeof(T), st),
                    "channel_sums c=" << c);
    return;
  }
  const int64_t per_part = (rows * hw + parts - 1) / parts;
  auto* partial = static_cast<double*>(workspace);
  const dim3 grid(static_cast<unsigned>(c < detail::kMaxBlocks ? c : detail::kMaxBlocks),
                  static_cast<unsigned>(parts));
  channel_partial_kernel<T><<<grid, kChannelThreads, 0, st>>>(x, partial, rows, c, hw, per_part);
  DMLRT_CHECK_CTX(cudaGetLastError(), "channel_sums " << rows << "x" << c * hw << " c=" << c);
  channel_final_kernel<T><<<detail::grid_for(c), detail::kThreads, 0, st>>>(partial, out, c, parts);
  DMLRT_CHECK_CTX(cudaGetLastError(), "channel_sums (final) c=" << c);
}

template <typename T>
void launch_update_nesterov_x(const T* x, const T* v, const T* v_prev, double mu, T* out, int64_t n,
                              cudaStream_t stream) {
  if (n == 0) return;
  nesterov_kernel<T>
      <<<detail::grid_for(n), detail::kThreads, 0, stream>>>(x, v, v_prev, mu, out, n);
  DMLRT_CHECK_CTX(cudaGetLastError(), "update_nesterov_x n=" << n);
}

#define DMLRT_DNN_POOL_INSTANTIATE(T)                                                            \
  template void launch_max_pool<T>(const T*, T*, const cpu::PoolShape&, bool, cudaStream_t);     \
  template void launch_avg_pool<T>(const T*, T*, const cpu::PoolShape&, cudaStream_t);           \
  template void launch_max_pool_backward<T>(const T*, const T*, T*, const cpu::PoolShape&, bool, \
                                            void*, cudaStream_t);                                \
  template void launch_avg_pool_backward<T>(const T*, T*, const cpu::PoolShape&, cudaStream_t);  \
  template void launch_relu_backward<T>(const T*, const T*, T*, int64_t, cudaStream_t);          \
  template void launch_bias_add<T>(const T*, const T*, T*, int64_t, int64_t, int64_t,            \
                                   cudaStream_t);                                                \
  template void launch_bias_add_relu<T>(const T*, const T*, T*, int64_t, int64_t, int64_t,       \
                                        cudaStream_t);                                           \
  template void launch_bias_multiply<T>(const T*, const T*, T*, int64_t, int64_t, int64_t,       \
                                        cudaStream_t);                                           \
  template void launch_channel_sums<T>(const T*, T*, int64_t, int64_t, int64_t, void*,           \
                                       cudaStream_t);                                            \
  template void launch_update_nesterov_x<T>(const T*, const T*, const T*, double, T*, int64_t,   \
                                            cudaStream_t);

DMLRT_DNN_POOL_INSTANTIATE(double)
DMLRT_DNN_POOL_INSTANTIATE(float)

#undef DMLRT_DNN_POOL_INSTANTIATE

}  // namespace dmlrt::kernels::cuda
