// 2-D convolution on the CPU (SystemDS's conv2d, conv2d_bias_add, conv2d_backward_filter,
// conv2d_backward_data) over densified inputs: im2col and OpenBLAS products, image by image, on
// all cores (Note [CPU convolutions] in dnn_conv.cpp). Images are N x (C*H*W) row-major NCHW,
// filters K x (C*R*S) (DESIGN.md §2).
#pragma once

#include <cstdint>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// The twelve shape scalars of a DNN instruction plus the derived output size P x Q.
struct ConvShape {
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  int64_t n = 0, c = 0, h = 0, w = 0;  // images
  int64_t k = 0, r = 0, s = 0;         // filters (K x C x R x S)
  int64_t p = 0, q = 0;                // output height and width

  // P = (H + 2*pad_h - R) / stride_h + 1 (floor), Q likewise; the caller checks them.
  void derive_output_size();
};

// y (N, K*P*Q) = conv(x (N, C*H*W), w (K, C*R*S)) [+ bias (K, 1) per output channel].
MatrixBlock conv2d(const MatrixBlock& x, const MatrixBlock& w, const ConvShape& sh,
                   const MatrixBlock* bias = nullptr);
// dW (K, C*R*S) = gradient of the loss w.r.t. the filter, from x (N, C*H*W) and dout (N, K*P*Q).
MatrixBlock conv2d_backward_filter(const MatrixBlock& x, const MatrixBlock& dout,
                                   const ConvShape& sh);
// dX (N, C*H*W) = gradient w.r.t. the images, from w (K, C*R*S) and dout (N, K*P*Q).
MatrixBlock conv2d_backward_data(const MatrixBlock& w, const MatrixBlock& dout,
                                 const ConvShape& sh);

}  // namespace dmlrt::kernels::cpu
