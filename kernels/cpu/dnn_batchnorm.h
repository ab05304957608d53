// CPU references for spatial batch normalisation (SystemDS LibMatrixDNN batchNorm2D and
// batchNorm2DBackward): X is N x (C*HW) row-major NCHW (DESIGN.md §2) and every per-channel
// parameter or statistic is C x 1. The statistics of channel c run over its N*HW cells. Inputs of
// any format are read through dense copies. See Note [Batch-norm semantics] in dnn_batchnorm.cpp.
#pragma once

#include <cstdint>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// The five outputs of batch_norm2d: out (N, C*HW), then four (C, 1) vectors.
struct BatchNormForward {
  MatrixBlock out;
  MatrixBlock run_mean;      // ema_mean_upd
  MatrixBlock run_var;       // ema_var_upd
  MatrixBlock save_mean;     // cache_mean
  MatrixBlock save_inv_var;  // cache_inv_var
};

// Train mode: mean and biased (population) variance of each channel over the batch;
// out = (x - mean) * inv_var * scale + bias with inv_var = 1/sqrt(var + eps); the running
// statistics become mu * running + (1 - mu) * batch statistic; saved: the batch mean and inv_var.
BatchNormForward batch_norm2d_train(const MatrixBlock& x, const MatrixBlock& scale,
                                    const MatrixBlock& bias, const MatrixBlock& run_mean,
                                    const MatrixBlock& run_var, double eps, double mu);
// Test mode: normalises with the running statistics; the running statistics pass through
// unchanged, saved mean = running mean, saved inv_var = 1/sqrt(running var + eps).
BatchNormForward batch_norm2d_test(const MatrixBlock& x, const MatrixBlock& scale,
                                   const MatrixBlock& bias, const MatrixBlock& run_mean,
                                   const MatrixBlock& run_var, double eps);

// The three outputs of batch_norm2d_backward: dX (N, C*HW), dScale and dBias (C, 1).
struct BatchNormBackward {
  MatrixBlock dx;
  MatrixBlock dscale;
  MatrixBlock dbias;
};

// The gradients of the train-mode forward pass, given the saved mean and inverse variance
// (which need not be the batch's own: the formula uses them as given, as SystemDS does).
BatchNormBackward batch_norm2d_backward(const MatrixBlock& x, const MatrixBlock& dout,
                                        const MatrixBlock& scale, const MatrixBlock& save_mean,
                                        const MatrixBlock& save_inv_var);

}  // namespace dmlrt::kernels::cpu
