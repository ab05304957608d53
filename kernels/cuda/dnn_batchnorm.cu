// Spatial batch-normalisation kernel family (see dnn_batchnorm.h): per-channel partial sums over
// a fixed split of each channel's n*hw cells, a per-channel finishing step, and one cell-wise
// pass (normalise, or the input gradient).
//
// Note [Batch norm without cuDNN]
// cuDNN's batch-norm calls (cudnnBatchNormalizationForwardTraining / ForwardInference / Backward,
// SPATIAL), which SystemDS's GPU path uses, cannot reproduce the CPU backend to 1e-9:
//  * ForwardTraining blends the UNBIASED batch variance into the running variance; the CPU blends
//    the biased one (Note [Batch-norm semantics] in kernels/cpu/dnn_batchnorm.cpp), so the running
//    variance would differ by a factor M/(M-1) on its (1-mu) share.
//  * Backward assumes the saved mean is the batch's own mean (it drops the sum(x - mean) term of
//    dmean); batch_norm2d_backward takes the saved mean and inverse variance as arbitrary inputs,
//    and the CPU formula keeps that term.
//  * Test mode needs outputs 2-5 anyway, and sparse inputs need densifying either way.
// The work is three memory-bound passes that custom kernels do at bandwidth: per-channel sums in
// (channel, split) blocks, a per-channel finishing block that combines the splits in a fixed
// order, then one cell-wise kernel. Sums run in double for float data too.
#include <cmath>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/dnn_batchnorm.h"
#include "kernels/cuda/kernel_utils.cuh"

namespace dmlrt::kernels::cuda {
namespace {

using detail::kThreads;

// What a partial-sum pass accumulates over a channel's cells.
enum class Pass {
  kSum,       // v0 = sum(x)
  kSqDev,     // v0 = sum((x - mean)^2)
  kBackward,  // v0 = sum(dout), v1 = sum((x - mean) * dout), v2 = sum(x - mean)
};

struct Sums3 {
  double v[3];
};
struct AddSums3 {
  __device__ Sums3 operator()(const Sums3& a, const Sums3& b) const {
    return Sums3{{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2]}};
  }
};

// Per-channel doubles kept in the workspace after the partial sums.
constexpr int kMean = 0, kInvVar = 1, kDmean = 2, kDvar = 3, kChanFields = 4;

// Blocks per channel: enough to fill the device for small c, at most 1024 partials per channel;
// a function of the shape only (so the sum order is device-independent).
int64_t splits_for(int64_t n, int64_t c, int64_t hw) {
  const int64_t m = n * hw;
  int64_t s = (m + kThreads * 8 - 1) / (kThreads * 8);
  const int64_t per_channel_cap = 4096 / c > 1 ? 4096 / c : 1;
  if (s > per_channel_cap) s = per_channel_cap;
  if (s > 1024) s = 1024;
  return s < 1 ? 1 : s;
}

// Block (ch, part) of the grid (c * splits blocks) sums its share of channel ch's n*hw cells:
// cell j = (image j / hw, offset j % hw) of the channel, for j = part*blockDim + tid, stepping by
// splits*blockDim. Writes partials[(ch*splits + part)*3 + q].
// The centre is the batch mean (chan[kMean], kSqDev) or the saved mean (kBackward).
template <Pass P, typename T>
__global__ void channel_partials_kernel(const T* __restrict__ x, const T* __restrict__ dout,
                                        const double* __restrict__ chan,
                                        const T* __restrict__ save_mean, int64_t n, int64_t c,
                                        int64_t hw, int64_t splits, double* __restrict__ partials) {
  __shared__ Sums3 shared[32];
  const int64_t ch = static_cast<int64_t>(blockIdx.x) / splits;
  const int64_t part = static_cast<int64_t>(blockIdx.x) % splits;
  const int64_t m = n * hw;
  double mean = 0.0;
  if constexpr (P == Pass::kSqDev) mean = chan[ch * kChanFields + kMean];
  if constexpr (P == Pass::kBackward) mean = static_cast<double>(save_mean[ch]);
  Sums3 s{{0.0, 0.0, 0.0}};
  const int64_t start = part * blockDim.x + threadIdx.x;
  const int64_t stride = splits * blockDim.x;
  if (start < m) {                            // m > 0, so hw > 0
    detail::RowColWalk w(start, stride, hw);  // (image, offset) of cell j
    for (int64_t j = start; j < m; j += stride, w.advance()) {
      const int64_t idx = (w.r * c + ch) * hw + w.c;
      const double xv = static_cast<double>(x[idx]);
      if constexpr (P == Pass::kSum) {
        s.v[0] += xv;
      } else if constexpr (P == Pass::kSqDev) {
        const double d = xv - mean;
        s.v[0] += d * d;
      } else {
        const double dv = static_cast<double>(dout[idx]);
        const double centered = xv - mean;
        s.v[0] += dv;
        s.v[1] += centered * dv;
        s.v[2] += centered;
      }
    }
  }
  s = detail::block_reduce(s, AddSums3{}, Sums3{{0.0, 0.0, 0.0}}, shared);
  if (threadIdx.x == 0)
    for (int q = 0; q < 3; ++q) partials[(ch * splits + part) * 3 + q] = s.v[q];
}

// What the finishing step of a pass reads and writes besides the workspace.
template <typename T>
struct FinishArgs {
  // kSqDev (train): running statistics in, the four (c, 1) outputs out.
  const T* run_mean = nullptr;
  const T* run_var = nullptr;
  T* new_mean = nullptr;
  T* new_var = nullptr;
  T* save_mean = nullptr;
  T* save_inv_var = nullptr;
  double eps = 0.0, mu = 0.0;
  // kBackward: scale and the saved inverse variance in, dscale and dbias out.
  const T* scale = nullptr;
  const T* inv_var_in = nullptr;
  T* dscale = nullptr;
  T* dbias = nullptr;
};

// One block per channel: combines the channel's splits (fixed order) and finishes the channel
// with the CPU backend's formulas (kernels/cpu/dnn_batchnorm.cpp).
template <Pass P, typename T>
__global__ void channel_finish_kernel(const double* __restrict__ partials, int64_t splits,
                                      int64_t m, double* __restrict__ chan, FinishArgs<T> a) {
  __shared__ Sums3 shared[32];
  const int64_t ch = blockIdx.x;
  Sums3 s{{0.0, 0.0, 0.0}};
  for (int64_t p = threadIdx.x; p < splits; p += blockDim.x)
    for (int q = 0; q < 3; ++q) s.v[q] += partials[(ch * splits + p) * 3 + q];
  s = detail::block_reduce(s, AddSums3{}, Sums3{{0.0, 0.0, 0.0}}, shared);
  if (threadIdx.x != 0) return;
  const double count = static_cast<double>(m);
  double* cs = chan + ch * kChanFields;
  if constexpr (P == Pass::kSum) {
    cs[kMean] = s.v[0] / count;
  } else if constexpr (P == Pass::kSqDev) {
    const double mean = cs[kMean];
    const double var = s.v[0] / count;  // biased (population) variance
    const double inv_var = 1.0 / sqrt(var + a.eps);
    cs[kInvVar] = inv_var;
    a.save_mean[ch] = static_cast<T>(mean);
    a.save_inv_var[ch] = static_cast<T>(inv_var);
    a.new_mean[ch] = static_cast<T>(a.mu * static_cast<double>(a.run_mean[ch]) + (1 - a.mu) * mean);
    a.new_var[ch] = static_cast<T>(a.mu * static_cast<double>(a.run_var[ch]) + (1 - a.mu) * var);
  } else {
    const double inv_m = 1.0 / count;
    const double iv = static_cast<double>(a.inv_var_in[ch]);
    const double sc = static_cast<double>(a.scale[ch]);
    a.dbias[ch] = static_cast<T>(s.v[0]);
    a.dscale[ch] = static_cast<T>(iv * s.v[1]);
    const double dvar = -0.5 * iv * iv * iv * sc * s.v[1];
    cs[kDvar] = dvar;
    cs[kDmean] = -sc * iv * s.v[0] + dvar * (-2.0 * inv_m * s.v[2]);
  }
}

// Test mode's per-channel step: the running statistics become the normalising ones.
template <typename T>
__global__ void test_stats_kernel(const T* __restrict__ run_mean, const T* __restrict__ run_var,
                                  double eps, int64_t c, double* __restrict__ chan, T* new_mean,
                                  T* new_var, T* save_mean, T* save_inv_var) {
  for (int64_t ch = detail::global_thread(); ch < c; ch += detail::grid_stride()) {
    const double inv_var = 1.0 / sqrt(static_cast<double>(run_var[ch]) + eps);
    chan[ch * kChanFields + kMean] = static_cast<double>(run_mean[ch]);
    chan[ch * kChanFields + kInvVar] = inv_var;
    if (new_mean != nullptr) new_mean[ch] = run_mean[ch];
    if (new_var != nullptr) new_var[ch] = run_var[ch];
    if (save_mean != nullptr) save_mean[ch] = run_mean[ch];
    if (save_inv_var != nullptr) save_inv_var[ch] = static_cast<T>(inv_var);
  }
}

// Walks linear cell indices i = start, start + stride, ... of an (n, c*hw) batch keeping the
// channel (i / hw) % c and the offset i % hw up to date without a division per cell.
struct ChannelWalk {
  int64_t k, ch, step_k, step_ch, hw, c;
  __device__ ChannelWalk(int64_t start, int64_t stride, int64_t hw_, int64_t c_)
      : k(start % hw_),
        ch((start / hw_) % c_),
        step_k(stride % hw_),
        step_ch((stride / hw_) % c_),
        hw(hw_),
        c(c_) {}
  __device__ __forceinline__ void advance() {
    k += step_k;
    int64_t carry = 0;
    if (k >= hw) {
      k -= hw;
      carry = 1;
    }
    ch += step_ch + carry;  // < 2c
    if (ch >= c) ch -= c;
  }
};

// out = (x - mean) * inv_var * scale + bias per cell (the CPU's order of operations).
template <typename T>
__global__ void normalise_kernel(const T* __restrict__ x, const T* __restrict__ scale,
                                 const T* __restrict__ bias, const double* __restrict__ chan,
                                 T* __restrict__ out, int64_t total, int64_t c, int64_t hw) {
  const int64_t start = detail::global_thread(), stride = detail::grid_stride();
  if (start >= total) return;
  ChannelWalk w(start, stride, hw, c);
  for (int64_t i = start; i < total; i += stride, w.advance()) {
    const double* cs = chan + w.ch * kChanFields;
    out[i] = static_cast<T>((static_cast<double>(x[i]) - cs[kMean]) * cs[kInvVar] *
                                static_cast<double>(scale[w.ch]) +
                            static_cast<double>(bias[w.ch]));
  }
}

// dx = dout*scale*inv_var + dmean/M + 2/M * (x - mean) * dvar per cell (the CPU's order).
template <typename T>
__global__ void backward_dx_kernel(const T* __restrict__ x, const T* __restrict__ dout,
                                   const T* __restrict__ scale, const T* __restrict__ save_mean,
                                   const T* __restrict__ save_inv_var,
                                   const double* __restrict__ chan, T* __restrict__ dx,
                                   int64_t total, int64_t c, int64_t hw, double inv_m) {
  const int64_t start = detail::global_thread(), stride = detail::grid_stride();
  if (start >= total) return;
  ChannelWalk w(start, stride, hw, c);
  for (int64_t i = start; i < total; i += stride, w.advance()) {
    const double* cs = chan + w.ch * kChanFields;
    const double centered = static_cast<double>(x[i]) - static_cast<double>(save_mean[w.ch]);
    dx[i] = static_cast<T>(static_cast<double>(dout[i]) * static_cast<double>(scale[w.ch]) *
                               static_cast<double>(save_inv_var[w.ch]) +
                           inv_m * cs[kDmean] + 2.0 * inv_m * centered * cs[kDvar]);
  }
}

// Workspace layout: partials (c * splits * 3 doubles), then chan (c * kChanFields doubles).
struct Workspace {
  double* partials;
  double* chan;
  int64_t splits;
};
Workspace carve(void* workspace, int64_t n, int64_t c, int64_t hw) {
  Workspace w;
  w.splits = splits_for(n, c, hw);
  w.partials = static_cast<double*>(workspace);
  w.chan = w.partials + c * w.splits * 3;
  return w;
}

template <Pass P, typename T>
void run_pass(const T* x, const T* dout, const T* save_mean, int64_t n, int64_t c, int64_t hw,
              const Workspace& ws, const FinishArgs<T>& args, cudaStream_t s) {
  channel_partials_kernel<P, T><<<static_cast<unsigned>(c * ws.splits), kThreads, 0, s>>>(
      x, dout, ws.chan, save_mean, n, c, hw, ws.splits, ws.partials);
  DMLRT_CHECK(cudaGetLastError());
  channel_finish_kernel<P, T>
      <<<static_cast<unsigned>(c), kThreads, 0, s>>>(ws.partials, ws.splits, n * hw, ws.chan, args);
  DMLRT_CHECK(cudaGetLastError());
}

template <typename T>
void normalise(const T* x, const T* scale, const T* bias, T* out, int64_t n, int64_t c, int64_t hw,
               const Workspace& ws, cudaStream_t s) {
  const int64_t total = n * c * hw;
  if (total == 0) return;
  normalise_kernel<T>
      <<<detail::grid_for(total), kThreads, 0, s>>>(x, scale, bias, ws.chan, out, total, c, hw);
  DMLRT_CHECK(cudaGetLastError());
}

template <typename T>
void train(const T* x, const T* scale, const T* bias, const T* run_mean, const T* run_var, T* out,
           T* new_mean, T* new_var, T* save_mean, T* save_inv_var, int64_t n, int64_t c, int64_t hw,
           double eps, double mu, void* workspace, cudaStream_t stream) {
  if (c == 0) return;
  const cudaStream_t s = stream;
  const Workspace ws = carve(workspace, n, c, hw);
  FinishArgs<T> args;
  args.run_mean = run_mean;
  args.run_var = run_var;
  args.new_mean = new_mean;
  args.new_var = new_var;
  args.save_mean = save_mean;
  args.save_inv_var = save_inv_var;
  args.eps = eps;
  args.mu = mu;
  run_pass<Pass::kSum, T>(x, nullptr, nullptr, n, c, hw, ws, args, s);  // chan[kMean]
  // chan[kInvVar] and outputs 2-5
  run_pass<Pass::kSqDev, T>(x, nullptr, nullptr, n, c, hw, ws, args, s);
  normalise(x, scale, bias, out, n, c, hw, ws, s);
}

template <typename T>
void test(const T* x, const T* scale, const T* bias, const T* run_mean, const T* run_var, T* out,
          T* new_mean, T* new_var, T* save_mean, T* save_inv_var, int64_t n, int64_t c, int64_t hw,
          double eps, void* workspace, cudaStream_t stream) {
  if (c == 0) return;
  const cudaStream_t s = stream;
  const Workspace ws = carve(workspace, n, c, hw);
  test_stats_kernel<T><<<detail::grid_for(c), kThreads, 0, s>>>(
      run_mean, run_var, eps, c, ws.chan, new_mean, new_var, save_mean, save_inv_var);
  DMLRT_CHECK(cudaGetLastError());
  normalise(x, scale, bias, out, n, c, hw, ws, s);
}

template <typename T>
void backward(const T* x, const T* dout, const T* scale, const T* save_mean, const T* save_inv_var,
              T* dx, T* dscale, T* dbias, int64_t n, int64_t c, int64_t hw, void* workspace,
              cudaStream_t stream) {
  if (c == 0) return;
  const cudaStream_t s = stream;
  const Workspace ws = carve(workspace, n, c, hw);
  FinishArgs<T> args;
  args.scale = scale;
  args.inv_var_in = save_inv_var;
  args.dscale = dscale;
  args.dbias = dbias;
  run_pass<Pass::kBackward, T>(x, dout, save_mean, n, c, hw, ws, args, s);  // kDmean, kDvar
  const int64_t total = n * c * hw;
  if (total == 0) return;
  backward_dx_kernel<T><<<detail::grid_for(total), kThreads, 0, s>>>(
      x, dout, scale, save_mean, save_inv_var, ws.chan, dx, total, c, hw,
      1.0 / static_cast<double>(n * hw));
  DMLRT_CHECK(cudaGetLastError());
}

}  // namespace

size_t batch_norm_workspace_bytes(int64_t n, int64_t c, int64_t hw) {
  return static_cast<size_t>(c * splits_for(n, c > 0 ? c : 1, hw) * 3 + c * kChanFields) *
         sizeof(double);
}

void launch_batch_norm_train(const double* x, const double* scale, const double* bias,
                             const double* run_mean, const double* run_var, double* out,
                             double* new_mean, double* new_var, double* save_mean,
                             double* save_inv_var, int64_t n, int64_t c, int64_t hw, double eps,
                             double mu, void* workspace, cudaStream_t stream) {
  train(x, scale, bias, run_mean, run_var, out, new_mean, new_var, save_mean, save_inv_var, n, c,
        hw, eps, mu, workspace, stream);
}
void launch_batch_norm_train(const float* x, const float* scale, const float* bias,
                             const float* run_mean, const float* run_var, float* out,
                             float* new_mean, float* new_var, float* save_mean, float* save_inv_var,
                             int64_t n, int64_t c, int64_t hw, double eps, double mu,
                             void* workspace, cudaStream_t stream) {
  train(x, scale, bias, run_mean, run_var, out, new_mean, new_var, save_mean, save_inv_var, n, c,
        hw, eps, mu, workspace, stream);
}

void launch_batch_norm_test(const double* x, const double* scale, const double* bias,
                            const double* run_mean, const double* run_var, double* out,
                            double* new_mean, double* new_var, double* save_mean,
                            double* save_inv_var, int64_t n, int64_t c, int64_t hw, double eps,
                            void* workspace, cudaStream_t stream) {
  test(x, scale, bias, run_mean, run_var, out, new_mean, new_var, save_mean, save_inv_var, n, c, hw,
       eps, workspace, stream);
}
void launch_batch_norm_test(const float* x, const float* scale, const float* bias,
                            const float* run_mean, const float* run_var, float* out,
                            float* new_mean, float* new_var, float* save_mean, float* save_inv_var,
                            int64_t n, int64_t c, int64_t hw, double eps, void* workspace,
                            cudaStream_t stream) {
  test(x, scale, bias, run_mean, run_var, out, new_mean, new_var, save_mean, save_inv_var, n, c, hw,
       eps, workspace, stream);
}

void launch_batch_norm_backward(const double* x, const double* dout, const double* scale,
                                const double* save_mean, const double* save_inv_var, double* dx,
                                double* dscale, double* dbias, int64_t n, int64_t c, int64_t hw,
                                void* workspace, cudaStream_t stream) {
  backward(x, dout, scale, save_mean, save_inv_var, dx, dscale, dbias, n, c, hw, workspace, stream);
}
void launch_batch_norm_backward(const float* x, const float* dout, const float* scale,
                                const float* save_mean, const float* save_inv_var, float* dx,
                                float* dscale, float* dbias, int64_t n, int64_t c, int64_t hw,
                                void* workspace, cudaStream_t stream) {
  backward(x, dout, scale, save_mean, save_inv_var, dx, dscale, dbias, n, c, hw, workspace, stream);
}

}  // namespace dmlrt::kernels::cuda
