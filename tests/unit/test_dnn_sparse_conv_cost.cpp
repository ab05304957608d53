// The device-free parts of the sparse-filter conv2d path (kernels/cuda/dnn_sparse_conv_op.h): the cost
// model that decides between it and densifying the filter (Note [Sparse-filter conv2d cost
// model]) and the batch chunk that fits the intermediate budget.
#include <catch2/catch.hpp>

#include "instructions/dnn_gpu_common.h"
#include "instructions/dnn_conv_instructions.h"

namespace {

using dmlrt::inst::sparse_filter_conv2d_cheaper;
using dmlrt::inst::sparse_filter_conv2d_chunk_rows;
using dmlrt::inst::sparse_filter_conv2d_dense_cost;
using dmlrt::inst::sparse_filter_conv2d_sparse_cost;
using dmlrt::kernels::cpu::ConvShape;

ConvShape shape(int64_t n, int64_t c, int64_t hw, int64_t k, int64_t rs, int64_t stride = 1,
                int64_t pad = 0) {
  ConvShape sh;
  sh.n = n, sh.c = c, sh.h = hw, sh.w = hw, sh.k = k, sh.r = rs, sh.s = rs;
  sh.stride_h = sh.stride_w = stride, sh.pad_h = sh.pad_w = pad;
  sh.derive_output_size();
  return sh;
}

int64_t nnz_at(const ConvShape& sh, double density) {
  return static_cast<int64_t>(density * static_cast<double>(sh.k * sh.c * sh.r * sh.s));
}

}  // namespace

TEST_CASE("sparse-filter conv2d cost: a very sparse wide filter takes the sparse path",
          "[dnn][dnn_sparse_conv]") {
  const ConvShape sh = shape(16, 64, 32, 64, 3, 1, 1);  // CRS = 576, K = 64, P = Q = 32
  REQUIRE(sh.p == 32);
  // The crossovers of the note's calibration for this shape: 13% density in FP64, 3.6% in FP32
  // (H200: 13.1% and 3.5% measured on r50.s2 3x3, the same K and CRS).
  for (double d : {0.001, 0.01, 0.03}) {
    CHECK(sparse_filter_conv2d_cheaper(nnz_at(sh, d), sh, true));
    CHECK(sparse_filter_conv2d_cheaper(nnz_at(sh, d), sh, false));
  }
  CHECK(sparse_filter_conv2d_cheaper(nnz_at(sh, 0.05), sh, true));
  CHECK(sparse_filter_conv2d_cheaper(nnz_at(sh, 0.12), sh, true));
  CHECK_FALSE(sparse_filter_conv2d_cheaper(nnz_at(sh, 0.05), sh, false));
  for (double d : {0.14, 0.5, 1.0}) {
    CHECK_FALSE(sparse_filter_conv2d_cheaper(nnz_at(sh, d), sh, true));
    CHECK_FALSE(sparse_filter_conv2d_cheaper(nnz_at(sh, d), sh, false));
  }
}

TEST_CASE("sparse-filter conv2d cost: narrow or small filters stay dense",
          "[dnn][dnn_sparse_conv]") {
  // K = 1: the im2col buffer alone costs more than the dense convolution.
  const ConvShape one_k = shape(8, 16, 28, 1, 5);
  // C = 1, 3x3 (CRS = 9): nothing to gain even from a single nonzero.
  const ConvShape small = shape(8, 1, 28, 16, 3);
  for (bool fp64 : {true, false}) {
    CHECK_FALSE(sparse_filter_conv2d_cheaper(1, one_k, fp64));
    CHECK_FALSE(sparse_filter_conv2d_cheaper(1, small, fp64));
  }
}

TEST_CASE("sparse-filter conv2d cost: an empty filter always takes the sparse path",
          "[dnn][dnn_sparse_conv]") {
  for (bool fp64 : {true, false}) {
    CHECK(sparse_filter_conv2d_cheaper(0, shape(8, 1, 28, 1, 3), fp64));
    CHECK(sparse_filter_conv2d_cheaper(0, shape(4, 64, 16, 64, 3), fp64));
  }
}

TEST_CASE("sparse-filter conv2d cost: monotone in nnz, linear in the batch",
          "[dnn][dnn_sparse_conv]") {
  const ConvShape sh = shape(4, 32, 20, 48, 3, 2, 1);
  const ConvShape sh2 = shape(8, 32, 20, 48, 3, 2, 1);
  const ConvShape big = shape(100000, 512, 224, 512, 7, 1, 3);
  for (bool fp64 : {true, false}) {
    CHECK(sparse_filter_conv2d_sparse_cost(100, sh, fp64) <
          sparse_filter_conv2d_sparse_cost(101, sh, fp64));
    CHECK(sparse_filter_conv2d_sparse_cost(100, sh2, fp64) ==
          Approx(2 * sparse_filter_conv2d_sparse_cost(100, sh, fp64)));
    // The dense cost grows with the batch too (the filter densification does not).
    CHECK(sparse_filter_conv2d_dense_cost(sh2, fp64) > sparse_filter_conv2d_dense_cost(sh, fp64));
    CHECK(sparse_filter_conv2d_dense_cost(sh2, fp64) <
          2 * sparse_filter_conv2d_dense_cost(sh, fp64));
    // Large shapes do not overflow (the costs are doubles).
    CHECK(sparse_filter_conv2d_dense_cost(big, fp64) > 6e16);  // K*CRS*NPQ = 1.28e7 * 5.02e9
    CHECK(sparse_filter_conv2d_cheaper(nnz_at(big, 0.001), big, fp64));
  }
}

TEST_CASE("sparse-filter conv2d chunk: the whole batch, a budget-sized chunk, or none",
          "[dnn][dnn_sparse_conv][dnn_budget]") {
  const ConvShape sh = shape(10, 3, 8, 5, 3);   // CRS = 27, K = 5, PQ = 36
  const int64_t per_image = (27 + 5) * 36 * 8;  // im2col + product bytes of one FP64 image
  CHECK(sparse_filter_conv2d_chunk_rows(sh, 8, int64_t{1} << 40) == 10);
  CHECK(sparse_filter_conv2d_chunk_rows(sh, 8, 10 * per_image) == 10);
  CHECK(sparse_filter_conv2d_chunk_rows(sh, 8, 3 * per_image + per_image / 2) == 3);
  CHECK(sparse_filter_conv2d_chunk_rows(sh, 8, per_image) == 1);
  CHECK(sparse_filter_conv2d_chunk_rows(sh, 8, per_image - 1) == 0);
  CHECK(sparse_filter_conv2d_chunk_rows(sh, 8, 0) == 0);
  // FP32 halves the bytes per image.
  CHECK(sparse_filter_conv2d_chunk_rows(sh, 4, 3 * per_image + per_image / 2) == 7);
}

TEST_CASE("sparse-filter conv2d chunk: buffers stay under the element limit",
          "[dnn][dnn_sparse_conv][dnn_budget]") {
  // One image: CRS = 64*11*11 = 7744 rows of PQ = 490*490 = 240100 columns, 1.86e9 elements.
  const ConvShape fits = shape(4, 64, 500, 8, 11);
  REQUIRE(fits.p * fits.q == 240100);
  CHECK(sparse_filter_conv2d_chunk_rows(fits, 4, int64_t{1} << 50) == 1);
  // C = 70: 8470 * 240100 = 2.03e9 elements, over the limit even for one image.
  const ConvShape over = shape(4, 70, 500, 8, 11);
  REQUIRE(70 * 121 * fits.p * fits.q >= dmlrt::inst::kMaxCudnnTensorElements);
  CHECK(sparse_filter_conv2d_chunk_rows(over, 4, int64_t{1} << 50) == 0);
}
