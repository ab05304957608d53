// The LSTM step kernels of the CP layout; see dnn_lstm_steps.h and Note [LSTM on cuBLAS]. One
// thread per (sequence, hidden unit) cell reads and writes that cell's four gates, so a step is
// one launch whatever M is.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/dnn_lstm_steps.h"
#include "kernels/cuda/kernel_utils.cuh"

namespace dmlrt::kernels::cuda {
namespace {

using detail::global_thread;
using detail::grid_for;
using detail::grid_stride;

// SystemDS's (and the CPU reference's) form: 1 / (exp(-v) + 1).
template <typename T>
__device__ __forceinline__ T sigmoid(T v) {
  return T(1) / (exp(-v) + T(1));
}

template <typename T>
__global__ void lstm_forward_step_kernel(LstmForwardStep<T> p) {
  const int64_t m = p.m, m4 = 4 * m, total = p.rows * m;
  for (int64_t e = global_thread(); e < total; e += grid_stride()) {
    const int64_t s = e / m, j = e % m;
    T* g = p.ifog + s * m4;
    const T ig = sigmoid(g[j] + p.bias[j]);
    const T fg = sigmoid(g[m + j] + p.bias[m + j]);
    const T og = sigmoid(g[2 * m + j] + p.bias[2 * m + j]);
    const T gg = tanh(g[3 * m + j] + p.bias[3 * m + j]);
    const T cn = p.c_prev[e] * fg + ig * gg;
    const T h = tanh(cn) * og;
    g[j] = ig;
    g[m + j] = fg;
    g[2 * m + j] = og;
    g[3 * m + j] = gg;
    p.c[e] = cn;
    p.h[e] = h;
    if (p.out != nullptr) p.out[s * p.out_ld + j] = h;
    if (p.cy != nullptr) p.cy[e] = cn;
  }
}

template <typename T>
__global__ void lstm_backward_step_kernel(LstmBackwardStep<T> p) {
  const int64_t m = p.m, m4 = 4 * m, total = p.rows * m;
  for (int64_t e = global_thread(); e < total; e += grid_stride()) {
    const int64_t s = e / m, j = e % m;
    const T* g = p.ifog + s * m4;
    const T ig = g[j], fg = g[m + j], og = g[2 * m + j], gg = g[3 * m + j];
    const T dh = p.dout != nullptr ? p.dh[e] + p.dout[s * p.dout_ld + j] : p.dh[e];
    const T th = tanh(p.c[e]);
    const T dc = p.dc[e] + og * ((T(1) - th * th) * dh);
    const T d_o = th * dh, d_f = p.c_prev[e] * dc, d_i = gg * dc, d_g = ig * dc;
    T* dg = p.dgates + s * m4;
    dg[j] = ig * (T(1) - ig) * d_i;
    dg[m + j] = fg * (T(1) - fg) * d_f;
    dg[2 * m + j] = og * (T(1) - og) * d_o;
    dg[3 * m + j] = (T(1) - gg * gg) * d_g;
    p.dc[e] = dc * fg;
  }
}

template <typename T>
__global__ void lstm_backward_init_kernel(const T* __restrict__ dout_last,
                                          const T* __restrict__ dc_in, T* __restrict__ dh,
                                          T* __restrict__ dc, int64_t n) {
  for (int64_t i = global_thread(); i < n; i += grid_stride()) {
    dh[i] = dout_last != nullptr ? dout_last[i] : T(0);
    dc[i] = dc_in[i];
  }
}

template <typename T>
void forward_step(const LstmForwardStep<T>& p, cudaStream_t stream) {
  const int64_t total = p.rows * p.m;
  if (total == 0) return;
  lstm_forward_step_kernel<T><<<grid_for(total), detail::kThreads, 0, stream>>>(p);
  DMLRT_CHECK(cudaGetLastError());
}

template <typename T>
void backward_step(const LstmBackwardStep<T>& p, cudaStream_t stream) {
  const int64_t total = p.rows * p.m;
  if (total == 0) return;
  lstm_backward_step_kernel<T><<<grid_for(total), detail::kThreads, 0, stream>>>(p);
  DMLRT_CHECK(cudaGetLastError());
}

template <typename T>
void backward_init(const T* dout_last, const T* dc_in, T* dh, T* dc, int64_t n,
                   cudaStream_t stream) {
  if (n == 0) return;
  lstm_backward_init_kernel<T>
      <<<grid_for(n), detail::kThreads, 0, stream>>>(dout_last, dc_in, dh, dc, n);
  DMLRT_CHECK(cudaGetLastError());
}

}  // namespace

void launch_lstm_forward_step(const LstmForwardStep<double>& p, cudaStream_t stream) {
  forward_step(p, stream);
}
void launch_lstm_forward_step(const LstmForwardStep<float>& p, cudaStream_t stream) {
  forward_step(p, stream);
}
void launch_lstm_backward_step(const LstmBackwardStep<double>& p, cudaStream_t stream) {
  backward_step(p, stream);
}
void launch_lstm_backward_step(const LstmBackwardStep<float>& p, cudaStream_t stream) {
  backward_step(p, stream);
}
void launch_lstm_backward_init(const double* dout_last, const double* dc_in, double* dh, double* dc,
                               int64_t n, cudaStream_t stream) {
  backward_init(dout_last, dc_in, dh, dc, n, stream);
}
void launch_lstm_backward_init(const float* dout_last, const float* dc_in, float* dh, float* dc,
                               int64_t n, cudaStream_t stream) {
  backward_init(dout_last, dc_in, dh, dc, n, stream);
}

}  // namespace dmlrt::kernels::cuda
