// CPU DNN pooling and per-channel ops (SystemDS LibMatrixDNN*): max/avg pooling (in parallel
// over images) and their backward passes, relu_backward, bias_add / bias_multiply, channel_sums
// and the Nesterov position update. Images are N x (C*H*W) row-major NCHW (DESIGN.md §2); inputs
// of any format are read through dense copies, results come back in the format SystemDS would
// pick.
#pragma once

#include <cstdint>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// Pooling geometry; p and q are the output height and width.
struct PoolShape {
  int64_t n = 0, c = 0, h = 0, w = 0;  // images
  int64_t r = 0, s = 0;                // pool height, width
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  int64_t p() const { return (h + 2 * pad_h - r) / stride_h + 1; }
  int64_t q() const { return (w + 2 * pad_w - s) / stride_w + 1; }
};

// (n, c*p*q): the max of each window; padding cells count as -Inf. With `relu` the input is
// max(x, 0) first (SystemDS relu_maxpooling).
MatrixBlock max_pool(const MatrixBlock& x, const PoolShape& sh, bool relu);
// (n, c*h*w): dout (n, c*p*q) routed to the first maximal cell of each window (row-major scan,
// strict '>', as SystemDS's getMaxIndex); padding cells never receive gradient. With `relu` the
// windows are scanned on max(x, 0) and cells with x <= 0 receive nothing. A cell chosen by
// several overlapping windows gets the sum of their douts (SystemDS's CP kernel gets this wrong).
MatrixBlock max_pool_backward(const MatrixBlock& x, const MatrixBlock& dout, const PoolShape& sh,
                              bool relu);
// (n, c*p*q): window sums divided by r*s (padding cells count as 0 and are counted).
MatrixBlock avg_pool(const MatrixBlock& x, const PoolShape& sh);
// (n, c*h*w): each dout value spread as dout/(r*s) over the real cells of its window.
MatrixBlock avg_pool_backward(const MatrixBlock& dout, const PoolShape& sh);

// x > 0 ? dout : 0, cell-wise; x and dout share one shape.
MatrixBlock relu_backward(const MatrixBlock& x, const MatrixBlock& dout);
// x (n, k*pq) with bias (k, 1): bias[c] added to / multiplied into channel c's pq columns.
MatrixBlock bias_add(const MatrixBlock& x, const MatrixBlock& bias);
MatrixBlock bias_multiply(const MatrixBlock& x, const MatrixBlock& bias);
// x (n, c*hw) -> (c, 1): the sum of channel c over all rows and its hw columns.
MatrixBlock channel_sums(const MatrixBlock& x, int64_t c, int64_t hw);
// x - mu*v_prev + (1+mu)*v, cell-wise (nn/optim/sgd_nesterov.dml); all three share one shape.
MatrixBlock update_nesterov_x(const MatrixBlock& x, const MatrixBlock& v, const MatrixBlock& v_prev,
                              double mu);

}  // namespace dmlrt::kernels::cpu
