// Launchers of the spatial batch-normalisation kernel family (host-clean): the train- and
// test-mode forward passes and the backward pass of batch_norm2d. Semantics are the CPU
// backend's, formula for formula (Note [Batch-norm semantics] in kernels/cpu/dnn_batchnorm.cpp);
// why these are custom kernels and not cuDNN's batch-norm calls: Note [Batch norm without cuDNN]
// in dnn_batchnorm.cu. Images are (n, c*hw) row-major NCHW; per-channel vectors have c elements.
// Statistics are accumulated in double for float data too. Deterministic: the partition of each
// channel's cells and every combine order depend only on the shape. Pointers are device pointers;
// `stream` is a cudaStream_t; nothing allocates, the caller passes the workspace.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// Workspace bytes of every launcher below for an (n, c*hw) batch.
size_t batch_norm_workspace_bytes(int64_t n, int64_t c, int64_t hw);

// Train mode: per-channel mean and biased variance over the n*hw cells of each channel (two
// passes), then out = (x - mean) * inv_var * scale + bias with inv_var = 1/sqrt(var + eps),
// new_mean = mu*run_mean + (1-mu)*mean, new_var = mu*run_var + (1-mu)*var, save_mean = mean,
// save_inv_var = inv_var. All outputs are required.
void launch_batch_norm_train(const double* x, const double* scale, const double* bias,
                             const double* run_mean, const double* run_var, double* out,
                             double* new_mean, double* new_var, double* save_mean,
                             double* save_inv_var, int64_t n, int64_t c, int64_t hw, double eps,
                             double mu, void* workspace, cudaStream_t stream);
void launch_batch_norm_train(const float* x, const float* scale, const float* bias,
                             const float* run_mean, const float* run_var, float* out,
                             float* new_mean, float* new_var, float* save_mean, float* save_inv_var,
                             int64_t n, int64_t c, int64_t hw, double eps, double mu,
                             void* workspace, cudaStream_t stream);

// Test mode: out = (x - run_mean) * inv_var * scale + bias with inv_var = 1/sqrt(run_var + eps);
// the optional outputs (null = not wanted) get new_mean = save_mean = run_mean,
// new_var = run_var, save_inv_var = inv_var.
void launch_batch_norm_test(const double* x, const double* scale, const double* bias,
                            const double* run_mean, const double* run_var, double* out,
                            double* new_mean, double* new_var, double* save_mean,
                            double* save_inv_var, int64_t n, int64_t c, int64_t hw, double eps,
                            void* workspace, cudaStream_t stream);
void launch_batch_norm_test(const float* x, const float* scale, const float* bias,
                            const float* run_mean, const float* run_var, float* out,
                            float* new_mean, float* new_var, float* save_mean, float* save_inv_var,
                            int64_t n, int64_t c, int64_t hw, double eps, void* workspace,
                            cudaStream_t stream);

// Backward: with centered = x - save_mean and M = n*hw, per channel dbias = sum(dout),
// dscale = save_inv_var * sum(centered * dout), and
// dx = dout*scale*inv_var + dmean/M + 2/M * centered * dvar (kernels/cpu/dnn_batchnorm.h).
void launch_batch_norm_backward(const double* x, const double* dout, const double* scale,
                                const double* save_mean, const double* save_inv_var, double* dx,
                                double* dscale, double* dbias, int64_t n, int64_t c, int64_t hw,
                                void* workspace, cudaStream_t stream);
void launch_batch_norm_backward(const float* x, const float* dout, const float* scale,
                                const float* save_mean, const float* save_inv_var, float* dx,
                                float* dscale, float* dbias, int64_t n, int64_t c, int64_t hw,
                                void* workspace, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
