// The LSTM on cuDNN's RNN API (v8: cudnnSetRNNDescriptor_v8, cudnnRNNForward,
// cudnnRNNBackwardData_v8, cudnnRNNBackwardWeights_v8) and the kernels that repack SystemDS's
// weights into cuDNN's weight space and the gradients back. Host-clean: the cuDNN handle is a
// void*, pointers are device pointers, `stream` is a cudaStream_t; nothing allocates (the caller
// sizes the buffers with CudnnLstm's *_bytes()).
//
// Note [LSTM on cuDNN]
// SystemDS: W (D+M, 4M) with column blocks i | f | o | g; b (1, 4M) in the same order; X (N, T*D)
// row-major, i.e. batch-major (N, T, D). cuDNN: per gate (linLayerID 0..3 = i, f, g(c'), o for the
// input matrices, 4..7 for the recurrent ones) a row-major (M, D) input matrix, an (M, M)
// recurrent one and two M-bias vectors, wherever cudnnGetRNNWeightParams places them. We use
// CUDNN_RNN_DOUBLE_BIAS with b as the input bias and a zero recurrent bias, and the
// BATCH_MAJOR_UNPACKED data layout (with CUDNN_RNN_PADDED_IO_ENABLED, every sequence of length T),
// so X, dX and the return_sequences output need no (N,T,·) <-> (T,N,·) transposition. Both bias
// sets receive the same gradient (both add to the same gate pre-activation); db is the input
// bias's, the gradient of b. The recurrent bias is never trained.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// Element offsets of cuDNN's LSTM matrices and biases inside the weight space, by cuDNN gate
// (0 i, 1 f, 2 g, 3 o).
struct LstmWeightOffsets {
  int64_t w[4];   // (M, D) row-major input matrices
  int64_t r[4];   // (M, M) row-major recurrent matrices
  int64_t bw[4];  // M input biases
  int64_t br[4];  // M recurrent biases
};

// space <- W (D+M, 4M) and b (1, 4M) in cuDNN's layout; entries outside the matrices and input
// biases are left as they are (the caller zero-fills the space first).
void launch_lstm_pack_weights(const double* w, const double* b, double* space,
                              const LstmWeightOffsets& off, int64_t d, int64_t m,
                              cudaStream_t stream);
void launch_lstm_pack_weights(const float* w, const float* b, float* space,
                              const LstmWeightOffsets& off, int64_t d, int64_t m,
                              cudaStream_t stream);
// dW (D+M, 4M) and db (1, 4M) <- the gradients in a cuDNN dweight space (inverse of pack).
void launch_lstm_unpack_weights(const double* space, double* dw, double* db,
                                const LstmWeightOffsets& off, int64_t d, int64_t m,
                                cudaStream_t stream);
void launch_lstm_unpack_weights(const float* space, float* dw, float* db,
                                const LstmWeightOffsets& off, int64_t d, int64_t m,
                                cudaStream_t stream);
// p[0..n) = value (cuDNN's device sequence-length array).
void launch_fill_int32(int32_t* p, int64_t n, int32_t value, cudaStream_t stream);

// One LSTM configuration (N sequences of T steps, D inputs, M hidden units, FP64 or FP32) with its
// cuDNN descriptors. `training` selects FWD_MODE_TRAINING (a reserve space, needed by the
// backward passes) or FWD_MODE_INFERENCE. FP64 uses CUDNN_DEFAULT_MATH, FP32 CUDNN_FMA_MATH
// (CUDNN_DEFAULT_MATH, which permits TF32, when allow_tf32). Throws CudnnError / ShapeError when a
// dimension does not fit cuDNN's int sizes.
class CudnnLstm {
 public:
  CudnnLstm(cudnnHandle_t cudnn, bool fp64, bool allow_tf32, bool training, int64_t n, int64_t t,
            int64_t d, int64_t m);
  ~CudnnLstm();
  CudnnLstm(const CudnnLstm&) = delete;
  CudnnLstm& operator=(const CudnnLstm&) = delete;

  size_t weight_space_bytes() const;
  size_t workspace_bytes() const;
  size_t reserve_bytes() const;  // 0 for inference
  // Where cudnnGetRNNWeightParams places each matrix and bias in `weight_space` (a device buffer
  // of weight_space_bytes()); checks the shapes cuDNN reports against Note [LSTM on cuDNN].
  LstmWeightOffsets weight_offsets(const void* weight_space) const;

  // seq_lengths: N device int32s, all T. x (N, T*D), y (N, T*M), hx/cx/hy/cy (N, M); hy and cy may
  // be null. reserve is null for inference.
  void forward(const int32_t* seq_lengths, const void* x, void* y, const void* hx, void* hy,
               const void* cx, void* cy, const void* weights, void* work, void* reserve) const;
  // After forward in training mode on the same inputs: dx (N, T*D), dhx, dcx (N, M) from dy
  // (N, T*M), dhy and dcy (N, M; dhy may be null = zero).
  void backward_data(const int32_t* seq_lengths, const void* y, const void* dy, void* dx,
                     const void* hx, const void* dhy, void* dhx, const void* cx, const void* dcy,
                     void* dcx, const void* weights, void* work, void* reserve) const;
  // After backward_data: adds the weight gradients into dweights (zero it first).
  void backward_weights(const int32_t* seq_lengths, const void* x, const void* hx, const void* y,
                        void* dweights, void* work, void* reserve) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dmlrt::kernels::cuda
