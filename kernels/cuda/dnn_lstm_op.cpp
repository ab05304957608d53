// The LSTM's GPU algorithms over batch chunks; see dnn_lstm_op.h.
#include "kernels/cuda/dnn_lstm_op.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "gpu_context/cuda_check.h"
#include "gpu_context/error.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/dnn_lstm_steps.h"
#include "kernels/cuda/fill.h"

namespace dmlrt::kernels::cuda {
namespace {

// Scratch that starts zero-filled (stream-ordered).
void* zeroed(Scratch& scratch, size_t bytes, const char* what, cudaStream_t stream) {
  void* p = scratch.allocate(bytes, what);
  if (bytes > 0) DMLRT_CHECK_CTX(cudaMemsetAsync(p, 0, bytes, stream), bytes << " bytes");
  return p;
}

// Row `row` of a dense row-major (rows, cols) matrix.
template <typename T>
T* row_of(T* m, int64_t row, int64_t cols) {
  return m == nullptr ? nullptr : m + row * cols;
}

// The tail chunk's configuration must place the weights where the first one does (the weight
// space depends on D and M only; checked, since both share one packed space).
void check_same_weights(const char* opcode, const CudnnLstm& tail, const void* space, size_t bytes,
                        const LstmWeightOffsets& off) {
  const LstmWeightOffsets o = tail.weight_offsets(space);
  bool same = tail.weight_space_bytes() == bytes;
  for (int g = 0; g < 4; ++g)
    same = same && o.w[g] == off.w[g] && o.r[g] == off.r[g] && o.bw[g] == off.bw[g] &&
           o.br[g] == off.br[g];
  DMLRT_REQUIRE(same, RuntimeError,
                opcode << ": cuDNN placed the weights of a " << tail.weight_space_bytes()
                       << "-byte weight space differently for the last batch chunk");
}

}  // namespace

// ---- The CP layout on cuBLAS (Note [LSTM on cuBLAS]) ----------------------------------------

template <typename T>
void lstm_forward_cublas(const LstmOperands<T>& p, cublasHandle_t cublas, cudaStream_t stream) {
  const cpu::LstmDims& d = p.d;
  const int64_t n = d.n, m = d.m, m4 = 4 * m, td = d.t * d.d, tm = d.t * d.m;
  const T* w = p.w;            // (D+M, 4M)
  const T* wh = w + d.d * m4;  // rows D..D+M-1: (M, 4M)
  T* co = p.cache_out;
  T* cc = p.cache_c;
  T* cg = p.cache_ifog;
  for (int64_t r0 = 0; r0 < n; r0 += p.chunk) {
    const int64_t r1 = std::min(n, r0 + p.chunk), rows = r1 - r0;
    const T* x = static_cast<const T*>(p.x->rows(r0, r1));      // (rows, T*D)
    const T* h0 = static_cast<const T*>(p.out0->rows(r0, r1));  // (rows, M)
    const T* c0 = static_cast<const T*>(p.c0->rows(r0, r1));    // (rows, M)
    for (int64_t t = 0; t < d.t; ++t) {
      const int64_t at = t * n * m + r0 * m;  // the chunk's first cell in row t of cache_out/_c
      T* ifog = cg + t * n * m4 + r0 * m4;    // (rows, 4M)
      const T* h_prev = t == 0 ? h0 : co + at - n * m;
      const T* c_prev = t == 0 ? c0 : cc + at - n * m;
      // ifog = x_t W[0:D] + out_{t-1} W[D:D+M]; x_t is X's column block t (row stride T*D).
      gemm_row_major(cublas, false, false, rows, m4, d.d, T(1), x + t * d.d, td, w, m4, T(0), ifog,
                     m4);
      gemm_row_major(cublas, false, false, rows, m4, m, T(1), h_prev, m, wh, m4, T(1), ifog, m4);
      LstmForwardStep<T> s;
      s.ifog = ifog;
      s.bias = p.b;
      s.c_prev = c_prev;
      s.c = cc + at;
      s.h = co + at;
      const bool last = t == d.t - 1;
      if (p.return_seq) {
        s.out = p.out + r0 * tm + t * m;
        s.out_ld = tm;
      } else if (last) {
        s.out = p.out + r0 * m;
        s.out_ld = m;
      }
      if (last) s.cy = p.cy + r0 * m;
      s.rows = rows;
      s.m = m;
      launch_lstm_forward_step(s, stream);
    }
  }
}

template <typename T>
void lstm_backward_cublas(const LstmOperands<T>& p, cublasHandle_t cublas, Scratch& scratch,
                          cudaStream_t stream) {
  const cpu::LstmDims& d = p.d;
  const int64_t n = d.n, m = d.m, m4 = 4 * m, td = d.t * d.d, tm = d.t * d.m;
  const T* w = p.w;  // (D+M, 4M)
  const T* wh = w + d.d * m4;
  const T* co = p.cache_out;   // (T, N*M)
  const T* cc = p.cache_c;     // (T, N*M)
  const T* cg = p.cache_ifog;  // (T, N*4M)
  // The chunk's gradients of the gate pre-activations: (rows, 4M).
  T* dg = scratch.allocate_n<T>(static_cast<size_t>(p.chunk * m4), "dgates");
  T* ones = scratch.allocate_n<T>(static_cast<size_t>(p.chunk), "ones");
  launch_fill(ones, p.chunk, T(1), stream);
  for (int64_t r0 = 0; r0 < n; r0 += p.chunk) {
    const int64_t r1 = std::min(n, r0 + p.chunk), rows = r1 - r0;
    const T* x = static_cast<const T*>(p.x->rows(r0, r1));        // (rows, T*D)
    const T* h0 = static_cast<const T*>(p.out0->rows(r0, r1));    // (rows, M)
    const T* c0 = static_cast<const T*>(p.c0->rows(r0, r1));      // (rows, M)
    const T* dout = static_cast<const T*>(p.dout->rows(r0, r1));  // (rows, T*M) or (rows, M)
    const T* dc_in = static_cast<const T*>(p.dc->rows(r0, r1));   // (rows, M)
    T* dh = p.dout0 + r0 * m;  // (rows, M): dL/dout_t while running
    T* dc = p.dc0 + r0 * m;    // (rows, M): dL/dc_t while running
    launch_lstm_backward_init(p.return_seq ? nullptr : dout, dc_in, dh, dc, rows * m, stream);
    for (int64_t t = d.t - 1; t >= 0; --t) {
      const int64_t at = t * n * m + r0 * m;
      const T* h_prev = t == 0 ? h0 : co + at - n * m;
      LstmBackwardStep<T> s;
      s.ifog = cg + t * n * m4 + r0 * m4;
      s.c = cc + at;
      s.c_prev = t == 0 ? c0 : cc + at - n * m;
      s.dh = dh;
      if (p.return_seq) {
        s.dout = dout + t * m;
        s.dout_ld = tm;
      }
      s.dc = dc;
      s.dgates = dg;
      s.rows = rows;
      s.m = m;
      launch_lstm_backward_step(s, stream);
      // dW[0:D] += x_t^T dgates; dW[D:D+M] += out_{t-1}^T dgates; db += 1^T dgates.
      gemm_row_major(cublas, true, false, d.d, m4, rows, T(1), x + t * d.d, td, dg, m4, T(1), p.dw,
                     m4);
      gemm_row_major(cublas, true, false, m, m4, rows, T(1), h_prev, m, dg, m4, T(1),
                     p.dw + d.d * m4, m4);
      gemm_row_major(cublas, false, false, 1, m4, rows, T(1), ones, rows, dg, m4, T(1), p.db, m4);
      // dX_t = dgates W[0:D]^T (X's column block t); dh = dgates W[D:D+M]^T, dL/dout_{t-1}.
      gemm_row_major(cublas, false, true, rows, d.d, m4, T(1), dg, m4, w, m4, T(0),
                     p.dx + r0 * td + t * d.d, td);
      gemm_row_major(cublas, false, true, rows, m, m4, T(1), dg, m4, wh, m4, T(0), dh, m);
    }
  }
}

// ---- The GPU layout on cuDNN (Note [LSTM on cuDNN] in dnn_lstm.h) -------------------------------

template <typename T>
void lstm_cudnn(const LstmOperands<T>& p, const LstmCudnnConfigs& configs, bool backward,
                const char* opcode, Scratch& scratch, cudaStream_t stream) {
  const cpu::LstmDims& d = p.d;
  const int64_t n = d.n, rows = p.chunk, tm = d.t * d.m, td = d.t * d.d;
  const CudnnLstm& full = *configs.full;
  const CudnnLstm* tail = configs.tail;
  auto config_of = [&](int64_t r) -> const CudnnLstm& { return r == rows ? full : *tail; };

  int32_t* lengths = scratch.allocate_n<int32_t>(static_cast<size_t>(rows), "sequence lengths");
  launch_fill_int32(lengths, rows, static_cast<int32_t>(d.t), stream);
  // Zero-filled first: the recurrent biases stay 0 and nothing is left uninitialised. The
  // weight space depends on D and M only, so every chunk configuration shares it.
  void* weights = zeroed(scratch, full.weight_space_bytes(), "cuDNN weight space", stream);
  const LstmWeightOffsets off = full.weight_offsets(weights);
  if (tail) check_same_weights(opcode, *tail, weights, full.weight_space_bytes(), off);
  launch_lstm_pack_weights(p.w, p.b, static_cast<T*>(weights), off, d.d, d.m, stream);
  void* work =
      scratch.allocate(std::max(full.workspace_bytes(), tail ? tail->workspace_bytes() : size_t{0}),
                       "cuDNN workspace");
  const size_t y_bytes = static_cast<size_t>(rows * tm) * sizeof(T);

  if (!backward) {
    // With return_sequences cuDNN's y is the output; else the output is the last hidden state
    // hy and y goes to scratch.
    void* y_scratch = p.return_seq ? nullptr : scratch.allocate(y_bytes, "y");
    for (int64_t r0 = 0; r0 < n; r0 += rows) {
      const int64_t r1 = std::min(n, r0 + rows);
      config_of(r1 - r0).forward(
          lengths, p.x->rows(r0, r1), p.return_seq ? row_of(p.out, r0, tm) : y_scratch,
          p.out0->rows(r0, r1), p.return_seq ? nullptr : row_of(p.out, r0, d.m), p.c0->rows(r0, r1),
          row_of(p.cy, r0, d.m), weights, work, nullptr);
    }
    return;
  }

  void* reserve = scratch.allocate(
      std::max(full.reserve_bytes(), tail ? tail->reserve_bytes() : size_t{0}), "cuDNN reserve");
  void* y = scratch.allocate(y_bytes, "y");
  // dout is dy with return_sequences; else it is the gradient of the last hidden state (dhy)
  // and dy is zero.
  void* dy_zero = p.return_seq ? nullptr : zeroed(scratch, y_bytes, "dy", stream);
  // WGRAD_MODE_ADD: every chunk adds its weight gradients into the one zeroed dweight space.
  void* dweights = zeroed(scratch, full.weight_space_bytes(), "cuDNN weight gradients", stream);
  for (int64_t r0 = 0; r0 < n; r0 += rows) {
    const int64_t r1 = std::min(n, r0 + rows);
    const CudnnLstm& l = config_of(r1 - r0);
    const void* x = p.x->rows(r0, r1);
    const void* hx = p.out0->rows(r0, r1);
    const void* cx = p.c0->rows(r0, r1);
    const void* dout = p.dout->rows(r0, r1);
    l.forward(lengths, x, y, hx, nullptr, cx, nullptr, weights, work, reserve);
    l.backward_data(lengths, y, p.return_seq ? dout : dy_zero, row_of(p.dx, r0, td), hx,
                    p.return_seq ? nullptr : dout, row_of(p.dout0, r0, d.m), cx, p.dc->rows(r0, r1),
                    row_of(p.dc0, r0, d.m), weights, work, reserve);
    l.backward_weights(lengths, x, hx, y, dweights, work, reserve);
  }
  launch_lstm_unpack_weights(static_cast<const T*>(dweights), p.dw, p.db, off, d.d, d.m, stream);
}

template void lstm_forward_cublas(const LstmOperands<double>&, cublasHandle_t, cudaStream_t);
template void lstm_forward_cublas(const LstmOperands<float>&, cublasHandle_t, cudaStream_t);
template void lstm_backward_cublas(const LstmOperands<double>&, cublasHandle_t, Scratch&,
                                   cudaStream_t);
template void lstm_backward_cublas(const LstmOperands<float>&, cublasHandle_t, Scratch&,
                                   cudaStream_t);
template void lstm_cudnn(const LstmOperands<double>&, const LstmCudnnConfigs&, bool, const char*,
                         Scratch&, cudaStream_t);
template void lstm_cudnn(const LstmOperands<float>&, const LstmCudnnConfigs&, bool, const char*,
                         Scratch&, cudaStream_t);

}  // namespace dmlrt::kernels::cuda
