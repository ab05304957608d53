// CPU kernels of SystemDS's statistics ops and fused ternary aggregates: cov (sample covariance
// of two column vectors, optionally weighted), cm (central moment), and tak+* / tack+*
// (sum(A*B*C) and colSums(A*B*C) without materialising the product).
#pragma once

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// Sample covariance of x, y (m, 1): sum w (x-mx)(y-my) / (sum w - 1) with weighted means; w may
// be null (all ones). ShapeError unless all are column vectors of one length.
double covariance(const MatrixBlock& x, const MatrixBlock& y, const MatrixBlock* w);

// Central moment of order 2..4 of x (m, 1): sum w (x-mean)^order / sum w (population form, as
// SystemDS's cm()); w may be null. Order 0 is the weighted mean (mean(X, W) compiles to cm 0).
double central_moment(const MatrixBlock& x, const MatrixBlock* w, int order);

// One input of the ternary aggregates: a matrix or a scalar broadcast to every cell.
struct TernaryAggArg {
  const MatrixBlock* matrix = nullptr;
  double scalar = 1.0;
};

// Kahan sum over all cells of a*b*c (tak+*) -> scalar; matrix inputs share one shape.
double sum_product3(const TernaryAggArg& a, const TernaryAggArg& b, const TernaryAggArg& c);
// Column sums of a*b*c (tack+*) -> (1, n).
MatrixBlock col_sum_product3(const TernaryAggArg& a, const TernaryAggArg& b,
                             const TernaryAggArg& c);

}  // namespace dmlrt::kernels::cpu
