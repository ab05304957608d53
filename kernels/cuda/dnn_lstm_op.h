// The LSTM's GPU algorithms in the device-op layer (Note [Device scratch] in scratch.h): the CP
// layout's forward and backward on cuBLAS and the step kernels (Note [LSTM on cuBLAS] in
// dnn_lstm_steps.h), and the GPU layout's on cuDNN's RNN API (Note [LSTM on cuDNN] in
// dnn_lstm.h), each over batch chunks (Note [LSTM batch chunks] in
// instructions/dnn_lstm_instructions.h). The instruction binds the operands (device pointers, the
// outputs allocated whole, LstmBatchRows over the batch operands) and picks the chunk; workspaces
// come from the Scratch. Host-clean: `stream` is a cudaStream_t, `cublas` a cublasHandle_t.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"
#include "kernels/cpu/dnn_lstm.h"
#include "kernels/cuda/dnn_lstm.h"
#include "kernels/cuda/scratch.h"

namespace dmlrt::kernels::cuda {

// Dense row chunks of a batch operand (N rows, dense or CSR on the device; mem::RowFetcher behind
// it): rows [r0, r1), at most the op's chunk, as a row-major block in the op's element type, valid
// until the next call (stream-ordered).
class LstmBatchRows {
 public:
  virtual ~LstmBatchRows() = default;
  virtual const void* rows(int64_t r0, int64_t r1) = 0;
};

// The operands of one LSTM op: the batch operands by chunk, the rest dense on the device. Shapes:
// Note [LSTM layouts] (kernels/cpu/dnn_lstm.h). Null where the op does not use it.
template <typename T>
struct LstmOperands {
  cpu::LstmDims d;
  bool return_seq = false;
  int64_t chunk = 0;  // rows per batch chunk (1..N); cuDNN: the rows of LstmCudnnConfigs::full
  LstmBatchRows* x = nullptr;     // (N, T*D)
  LstmBatchRows* out0 = nullptr;  // (N, M)
  LstmBatchRows* c0 = nullptr;    // (N, M)
  LstmBatchRows* dout = nullptr;  // (N, T*M) with return_seq, else (N, M)
  LstmBatchRows* dc = nullptr;    // (N, M)
  const T* w = nullptr;           // (D+M, 4M)
  const T* b = nullptr;           // (1, 4M)
  // The CP layout's caches: written by the forward, read by the backward.
  T* cache_out = nullptr;   // (T, N*M)
  T* cache_c = nullptr;     // (T, N*M)
  T* cache_ifog = nullptr;  // (T, N*4M)
  // Forward outputs.
  T* out = nullptr;  // (N, T*M) with return_seq, else (N, M)
  T* cy = nullptr;   // (N, M)
  // Backward outputs; the cuBLAS backward accumulates into dw and db, zeroed by the caller.
  T* dx = nullptr;     // (N, T*D)
  T* dw = nullptr;     // (D+M, 4M)
  T* db = nullptr;     // (1, 4M)
  T* dout0 = nullptr;  // (N, M)
  T* dc0 = nullptr;    // (N, M)
};

// The CP layout (Note [LSTM placement]): out, cy and the caches from x, out0, c0, w, b.
template <typename T>
void lstm_forward_cublas(const LstmOperands<T>& p, cublasHandle_t cublas, cudaStream_t stream);
// The CP layout's backward from the caches: dx, dw, db, dout0, dc0. Scratch: the chunk's
// gradients of the gate pre-activations and a ones vector.
template <typename T>
void lstm_backward_cublas(const LstmOperands<T>& p, cublasHandle_t cublas, Scratch& scratch,
                          cudaStream_t stream);

// The cuDNN configurations of a batch split into chunks: `full` for chunks of `chunk` rows,
// `tail` (null when chunk divides N) for the last one.
struct LstmCudnnConfigs {
  const CudnnLstm* full = nullptr;
  const CudnnLstm* tail = nullptr;
};
// The GPU layout on cuDNN: the forward (inference mode: out, cy), or the backward (a training
// forward filling the reserve space, then backward data and weights: dx, dw, db, dout0, dc0).
// Scratch: sequence lengths, the weight space (and dweight space), workspace, reserve space and
// the y / zero dy a chunk needs. `opcode` names the instruction in errors.
template <typename T>
void lstm_cudnn(const LstmOperands<T>& p, const LstmCudnnConfigs& configs, bool backward,
                const char* opcode, Scratch& scratch, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
