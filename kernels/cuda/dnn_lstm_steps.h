// The element-wise kernels of the LSTM in SystemDS's CP layout (caches included): one forward
// step's gate activations and cell update, one backward step's gate gradients, and the small
// initialisations around them. The GEMMs of each step run through cuBLAS (kernels/cuda/blas.h);
// the device op (kernels/cuda/dnn_lstm_op.cpp) drives the time loop. Host-clean:
// pointers are device pointers, `stream` is a cudaStream_t. Shapes: Note [LSTM layouts]
// (kernels/cpu/dnn_lstm.h); the formulas are the CPU reference's (kernels/cpu/dnn_lstm.cpp).
//
// Note [LSTM on cuBLAS]
// Each launcher works on `rows` sequences (a batch chunk) of one time step t; every (rows, M) or
// (rows, 4M) operand is a row-major view whose rows are M (4M) apart, except `out` and `dout`,
// whose rows are out_ld (dout_ld) apart: those are the step-t column block of the (N, T*M)
// return_sequences matrices. Gate blocks are SystemDS's i | f | o | g (sigmoid, sigmoid,
// sigmoid, tanh), M columns each.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// Forward step t. On entry ifog holds x_t W[0:D] + out_{t-1} W[D:D+M] (no bias); on exit the
// activated gates i, f, o, g (the cache_ifog row of step t). c = f c_prev + i g, h = o tanh(c).
template <typename T>
struct LstmForwardStep {
  T* ifog = nullptr;          // (rows, 4M) pre-activations in, activated gates out
  const T* bias = nullptr;    // (1, 4M)
  const T* c_prev = nullptr;  // (rows, M) c_{t-1}
  T* c = nullptr;             // (rows, M) c_t (the cache_c row)
  T* h = nullptr;             // (rows, M) out_t (the cache_out row)
  T* out = nullptr;           // null, or out_t also here: (rows, M) with rows out_ld apart
  int64_t out_ld = 0;
  T* cy = nullptr;  // null, or c_t also here: (rows, M) (the last step's cy)
  int64_t rows = 0, m = 0;
};
void launch_lstm_forward_step(const LstmForwardStep<double>& p, cudaStream_t stream);
void launch_lstm_forward_step(const LstmForwardStep<float>& p, cudaStream_t stream);

// Backward step t (reverse time). dh_t = dh + dout_t (dout null: dh alone);
// dc += o (1 - tanh(c)^2) dh_t; the pre-activation gradients go to dgates; then dc *= f, leaving
// dL/dc_{t-1}. dh is read only: the caller overwrites it with dgates W[D:D+M]^T afterwards.
template <typename T>
struct LstmBackwardStep {
  const T* ifog = nullptr;    // (rows, 4M) activated gates of step t
  const T* c = nullptr;       // (rows, M) c_t
  const T* c_prev = nullptr;  // (rows, M) c_{t-1}
  const T* dh = nullptr;      // (rows, M) gradient of out_t from the later steps
  const T* dout = nullptr;    // null, or dout_t: (rows, M) with rows dout_ld apart
  int64_t dout_ld = 0;
  T* dc = nullptr;      // (rows, M) dL/dc_t in, dL/dc_{t-1} out
  T* dgates = nullptr;  // (rows, 4M) out: gradients of the gate pre-activations
  int64_t rows = 0, m = 0;
};
void launch_lstm_backward_step(const LstmBackwardStep<double>& p, cudaStream_t stream);
void launch_lstm_backward_step(const LstmBackwardStep<float>& p, cudaStream_t stream);

// The start of the backward recurrence over n cells: dh = dout_last (null: 0) and dc = dc_in.
void launch_lstm_backward_init(const double* dout_last, const double* dc_in, double* dh, double* dc,
                               int64_t n, cudaStream_t stream);
void launch_lstm_backward_init(const float* dout_last, const float* dc_in, float* dh, float* dc,
                               int64_t n, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
