// Thin cuDNN wrappers for 2-D convolution (NCHW, cross-correlation as SystemDS computes it): typed
// owners of the tensor, filter, convolution and activation descriptors of one batch chunk, the
// timed search (cudnnFind*AlgorithmEx), the per-algorithm workspace query, and one run of a legacy
// algorithm for each pass (forward, backward data, backward filter), plus the ReLU of the
// sparse-filter path's fused conv2d_bias_add (the dense path's bias + ReLU epilogue is
// launch_bias_add_relu, kernels/cuda/dnn_pool.h). FP64 and FP32. The caller owns every buffer
// (workspaces come from the memory manager) and the choice of algorithm
// (kernels/cuda/dnn_conv_op.cpp). Failures throw CudnnError with the call and the shapes;
// nothing synchronises.
#pragma once

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpu_context/conv_algo_cache.h"
#include "gpu_context/handles.h"

namespace dmlrt::kernels::cuda {

namespace detail {
struct TensorDescDestroy {
  void operator()(cudnnTensorDescriptor_t d) const { cudnnDestroyTensorDescriptor(d); }
};
struct FilterDescDestroy {
  void operator()(cudnnFilterDescriptor_t d) const { cudnnDestroyFilterDescriptor(d); }
};
struct ConvDescDestroy {
  void operator()(cudnnConvolutionDescriptor_t d) const { cudnnDestroyConvolutionDescriptor(d); }
};
struct ActivationDescDestroy {
  void operator()(cudnnActivationDescriptor_t d) const { cudnnDestroyActivationDescriptor(d); }
};
}  // namespace detail

using UniqueTensorDesc = gpu::UniqueHandle<cudnnTensorDescriptor_t, detail::TensorDescDestroy>;
using UniqueFilterDesc = gpu::UniqueHandle<cudnnFilterDescriptor_t, detail::FilterDescDestroy>;
using UniqueConvDesc = gpu::UniqueHandle<cudnnConvolutionDescriptor_t, detail::ConvDescDestroy>;
using UniqueActivationDesc =
    gpu::UniqueHandle<cudnnActivationDescriptor_t, detail::ActivationDescDestroy>;

// Fresh (unset) descriptors; throw CudnnError naming the create call.
UniqueTensorDesc make_tensor_descriptor();
UniqueFilterDesc make_filter_descriptor();
UniqueConvDesc make_conv_descriptor();
UniqueActivationDesc make_activation_descriptor();

// One convolution: images (n, c, h, w), filters (k, c, r, s), output (n, k, p, q).
struct ConvDims {
  int64_t n = 0, c = 0, h = 0, w = 0, k = 0, r = 0, s = 0, p = 0, q = 0;
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  std::string to_string() const;  // for error contexts
};

// The descriptors of one batch chunk: x (n, c, h, w), filter (k, c, r, s), y (n, k, p, q) packed
// NCHW, and the convolution (cross-correlation, no dilation) with its
// compute type (the data type: FP64 or FP32 accumulation) and math type. Checks that cuDNN's
// output size equals (p, q). Every dim must be in [1, INT_MAX].
class ConvDescriptors {
 public:
  ConvDescriptors(const ConvDims& d, bool fp64, cudnnMathType_t math);
  cudnnTensorDescriptor_t x() const { return x_.get(); }
  cudnnFilterDescriptor_t w() const { return w_.get(); }
  cudnnTensorDescriptor_t y() const { return y_.get(); }
  cudnnConvolutionDescriptor_t conv() const { return conv_.get(); }
  const ConvDims& dims() const { return dims_; }
  bool fp64() const { return fp64_; }
  // Sets the math type an algorithm runs with (the find reports it per algorithm).
  void set_math(cudnnMathType_t math);

 private:
  ConvDims dims_;
  bool fp64_;
  UniqueTensorDesc x_, y_;
  UniqueFilterDesc w_;
  UniqueConvDesc conv_;
};

// The buffers of one pass, all dense device memory in the descriptors' layout: forward reads x, w
// and writes y; backward data reads w, y (dy) and writes x (dx); backward filter reads x, y (dy)
// and writes w (dw).
struct ConvTensors {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
};

// Legacy algorithms of `pass` (cudnnGet*AlgorithmMaxCount).
int algorithm_count(cudnnHandle_t h, gpu::ConvPass pass);

// Workspace bytes of legacy `algo` for `pass`; false when cuDNN does not support it here.
bool algorithm_workspace(cudnnHandle_t h, gpu::ConvPass pass, const ConvDescriptors& d, int algo,
                         size_t* bytes);

// Times every legacy algorithm of `pass` on the given buffers with `workspace_bytes` of workspace
// (cudnnFind*AlgorithmEx; the output buffer is overwritten). Returns the successful ones (and
// only deterministic ones when `deterministic_only`), fastest first.
gpu::ConvAlgoList find_algorithms(cudnnHandle_t h, gpu::ConvPass pass, const ConvDescriptors& d,
                                  const ConvTensors& t, void* workspace, size_t workspace_bytes,
                                  bool deterministic_only);

// Times one candidate on `stream` the way every autotuning candidate is timed (Note [Timing
// candidates warm]): one isolated warm-up run of `run`; when it took at most kRepeatFactor x
// `best_ms` (the best time so far; infinity for the first), a pre-roll run and then `repetitions`
// runs back to back, each timed by its own events, of which the best counts. Milliseconds (the
// warm-up's when not repeated); synchronises on its events.
constexpr double kRepeatFactor = 4.0;
double best_run_ms(cudaStream_t stream, const std::function<void()>& run, int repetitions,
                   double best_ms);

// Runs legacy `algo` of `pass`: out = conv + beta * out (beta 0 or 1; backward filter accumulates
// batch chunks with beta 1). The caller set the descriptor's math type.
void run_algorithm(cudnnHandle_t h, gpu::ConvPass pass, const ConvDescriptors& d, int algo,
                   const ConvTensors& t, void* workspace, size_t workspace_bytes, double beta);

// y (n, k, p, q) = max(y, 0) in place (cudnnActivationForward, RELU, NaN propagated).
void relu_inplace(cudnnHandle_t h, bool fp64, int64_t n, int64_t k, int64_t p, int64_t q, void* y);

}  // namespace dmlrt::kernels::cuda
