// Tests of the conv sub-family (conv2d, conv2d_bias_add, conv2d_backward_filter,
// conv2d_backward_data) through the instructions: expected values by hand or from a NumPy loop
// reference (np.pad + einsum per output pixel), dense and CSR inputs, stride 2, padding, non-square
// images and filters, C=1, N=1, 1x1 filters, and every shape error.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"
#include "kernels/cpu/dnn_conv.h"
#include "kernels/cpu/parallel.h"

using dmlrt::kernels::MatrixBlock;
using dmlrt::test::block_of;
using dmlrt::test::TestContext;

namespace {

// `CP°op°in1°...°12 shape scalars°out[°k°mem]` with the scalars stride_h, stride_w, pad_h, pad_w,
// N, C, H, W, K, C, R, S.
std::string conv_line(const std::string& op, const std::vector<std::string>& inputs,
                      const std::vector<int64_t>& shape, bool trailing = true) {
  std::string s = "CP°" + op;
  for (const auto& in : inputs) s += "°" + in + "·MATRIX·FP64";
  for (int64_t v : shape) s += "°" + std::to_string(v) + "·SCALAR·INT64·true";
  s += "°out·MATRIX·FP64";
  if (trailing) s += "°2°1000.0";
  return s;
}

// Case B: N=2 C=2 H=3 W=4, K=2 R=2 S=3, stride [2,1], padding [1,1] -> P=2 Q=4.
const std::vector<int64_t> kShapeB = {2, 1, 1, 1, 2, 2, 3, 4, 2, 2, 2, 3};
const std::vector<double> kXB = {0,  2, -2, 0,  1, -3, 0,  0, -4, 0,  -1, -5, 0,  -2, 5,  0,
                                 -3, 4, 0,  -4, 3, 0,  -5, 2, 0,  5,  1,  0,  4,  0,  0,  3,
                                 -1, 0, 2,  -2, 0, 1,  -3, 0, 0,  -4, 0,  -1, -5, 0,  -2, 5};
const std::vector<double> kWB = {-4, 1,  -3, 2,  -2, 3, -1, 4, 0,  -4, 1,  -3,
                                 2,  -2, 3,  -1, 4,  0, -4, 1, -3, 2,  -2, 3};
const std::vector<double> kDoutB = {0, 0,  3, -1, 0, -2, 1, -3, 0, 3, -1, 2, 0, 1, -3, 0,
                                    0, -1, 2, -2, 0, -3, 0, 3,  0, 2, -2, 1, 0, 0, 3,  -1};

}  // namespace

TEST_CASE("conv2d forward", "[dnn][dnn_conv]") {
  const bool sx = GENERATE(false, true);
  const bool sw = GENERATE(false, true);
  TestContext t;
  SECTION("3x3 image, 2x2 filter, C=1 N=1 K=1 (by hand)") {
    t.set_matrix("X", block_of(sx, 1, 9, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
    t.set_matrix("W", block_of(sw, 1, 4, {1, 2, 3, 4}));
    t.run(conv_line("conv2d", {"X", "W"}, {1, 1, 0, 0, 1, 1, 3, 3, 1, 1, 2, 2}));
    DMLRT_REQUIRE_CLOSE(t.matrix("out"), 1, 4, {37, 47, 67, 77});
  }
  SECTION("stride [2,1], padding [1,1], non-square image and filter, C=2 N=2 K=2 (NumPy)") {
    t.set_matrix("X", block_of(sx, 2, 24, kXB));
    t.set_matrix("W", block_of(sw, 2, 12, kWB));
    t.run(conv_line("conv2d", {"X", "W"}, kShapeB, /*trailing=*/false));
    DMLRT_REQUIRE_CLOSE(t.matrix("out"), 2, 16,
                        {12, -27, 21, -24, 9, 4,  -16, 14, -6, 27, -24, 12, -48, 19,  2,  -37,
                         12, 3,   1,  14,  1, -2, -32, 20, 3,  9,  7,   -7, 10,  -11, 55, -31});
  }
  SECTION("1x1 filter, C=3 N=1 K=2 (by hand)") {
    std::vector<double> x(18);
    for (int i = 0; i < 18; ++i) x[i] = i + 1;
    t.set_matrix("X", block_of(sx, 1, 18, x));
    t.set_matrix("W", block_of(sw, 2, 3, {1, 0, -1, 2, 0.5, 0}));
    t.run(conv_line("conv2d", {"X", "W"}, {1, 1, 0, 0, 1, 3, 2, 3, 2, 3, 1, 1}));
    DMLRT_REQUIRE_CLOSE(t.matrix("out"), 1, 12,
                        {-12, -12, -12, -12, -12, -12, 5.5, 8, 10.5, 13, 15.5, 18});
  }
  SECTION("stride 2 rounds P and Q down: 5x4 image, 3x3 filter -> 2x1") {
    std::vector<double> x(20), w(9);
    for (int i = 0; i < 20; ++i) x[i] = i + 1;
    for (int i = 0; i < 9; ++i) w[i] = i + 1;
    t.set_matrix("X", block_of(sx, 1, 20, x));
    t.set_matrix("W", block_of(sw, 1, 9, w));
    t.run(conv_line("conv2d", {"X", "W"}, {2, 2, 0, 0, 1, 1, 5, 4, 1, 1, 3, 3}));
    DMLRT_REQUIRE_CLOSE(t.matrix("out"), 1, 2, {348, 708});
  }
  SECTION("all-zero sparse input gives zeros") {
    t.set_matrix("X", MatrixBlock::empty_sparse(2, 24));
    t.set_matrix("W", block_of(sw, 2, 12, kWB));
    t.run(conv_line("conv2d", {"X", "W"}, kShapeB));
    DMLRT_REQUIRE_CLOSE(t.matrix("out"), MatrixBlock::dense(2, 16, 0.0));
  }
  SECTION("empty batch N=0") {
    t.set_matrix("X", MatrixBlock::dense(0, 24));
    t.set_matrix("W", block_of(sw, 2, 12, kWB));
    std::vector<int64_t> shape = kShapeB;
    shape[4] = 0;
    t.run(conv_line("conv2d", {"X", "W"}, shape));
    REQUIRE(t.matrix("out").rows() == 0);
    REQUIRE(t.matrix("out").cols() == 16);
  }
}

TEST_CASE("conv2d_bias_add adds the bias per output channel (bias before the filter)",
          "[dnn][dnn_conv]") {
  const bool sparse = GENERATE(false, true);
  TestContext t;
  t.set_matrix("X", block_of(sparse, 2, 24, kXB));
  t.set_matrix("W", block_of(sparse, 2, 12, kWB));
  t.set_matrix("b", block_of(sparse, 2, 1, {0.5, -2}));
  t.run(conv_line("conv2d_bias_add", {"X", "b", "W"}, kShapeB));
  // conv2d of case B, + 0.5 on channel 0 and - 2 on channel 1 of each image.
  DMLRT_REQUIRE_CLOSE(
      t.matrix("out"), 2, 16,
      {12.5, -26.5, 21.5, -23.5, 9.5, 4.5,  -15.5, 14.5, -8, 25, -26, 10, -50, 17,  0,  -39,
       12.5, 3.5,   1.5,  14.5,  1.5, -1.5, -31.5, 20.5, 1,  7,  5,   -9, 8,   -13, 53, -33});
}

TEST_CASE("conv2d backward filter and data", "[dnn][dnn_conv]") {
  const bool s1 = GENERATE(false, true);
  const bool s2 = GENERATE(false, true);
  TestContext t;
  SECTION("case B (NumPy)") {
    t.set_matrix("X", block_of(s1, 2, 24, kXB));
    t.set_matrix("W", block_of(s1, 2, 12, kWB));
    t.set_matrix("dout", block_of(s2, 2, 16, kDoutB));
    t.run(conv_line("conv2d_backward_filter", {"X", "dout"}, kShapeB));
    DMLRT_REQUIRE_CLOSE(t.matrix("out"), 2, 12,
                        {-17, 15, 0, 36,  -1, -10, 10,  13, -4, 15, 12, 21,
                         10,  -6, 9, -21, 27, 4,   -27, 5,  9,  12, 1,  13});
    t.run(conv_line("conv2d_backward_data", {"W", "dout"}, kShapeB, /*trailing=*/false));
    DMLRT_REQUIRE_CLOSE(t.matrix("out"), 2, 24,
                        {-3, 19, -14, 19,  10, -14, 28, -15, -5, 13,  -26, 9,  6,  -20, 22,  -17,
                         -2, 4,  1,   -3,  10, -14, 28, -15, -4, 16,  -20, 14, 12, 3,   -11, 14,
                         -6, 3,  10,  -10, 8,  -17, 25, -16, 3,  -24, 4,   2,  12, 3,   -11, 14});
  }
  SECTION("stride 2, the last image column unused (by hand)") {
    std::vector<double> x(20), w(9);
    for (int i = 0; i < 20; ++i) x[i] = i + 1;
    for (int i = 0; i < 9; ++i) w[i] = i + 1;
    t.set_matrix("X", block_of(s1, 1, 20, x));
    t.set_matrix("W", block_of(s1, 1, 9, w));
    t.set_matrix("dout", block_of(s2, 1, 2, {1, -2}));
    const std::vector<int64_t> shape = {2, 2, 0, 0, 1, 1, 5, 4, 1, 1, 3, 3};
    t.run(conv_line("conv2d_backward_filter", {"X", "dout"}, shape));
    // x window at (0,0) minus twice the window at (2,0).
    DMLRT_REQUIRE_CLOSE(t.matrix("out"), 1, 9, {-17, -18, -19, -21, -22, -23, -25, -26, -27});
    t.run(conv_line("conv2d_backward_data", {"W", "dout"}, shape));
    DMLRT_REQUIRE_CLOSE(t.matrix("out"), 1, 20,
                        {1, 2, 3, 0, 4, 5, 6, 0, 5, 4, 3, 0, -8, -10, -12, 0, -14, -16, -18, 0});
  }
}

TEST_CASE("conv2d shape errors", "[dnn][dnn_conv]") {
  TestContext t;
  t.set_matrix("X", MatrixBlock::dense(2, 24, 1.0));
  t.set_matrix("W", MatrixBlock::dense(2, 12, 1.0));
  t.set_matrix("b", MatrixBlock::dense(2, 1, 1.0));
  t.set_matrix("dout", MatrixBlock::dense(2, 16, 1.0));
  const std::string params = "(N=2 C=2 H=3 W=4 K=2 R=2 S=3 stride=[2, 1] pad=[1, 1])";
  SECTION("X not N x CHW") {
    t.set_matrix("X", MatrixBlock::dense(2, 23, 1.0));
    REQUIRE_THROWS_AS(t.run(conv_line("conv2d", {"X", "W"}, kShapeB)), dmlrt::ShapeError);
    REQUIRE_THROWS_WITH(t.run(conv_line("conv2d", {"X", "W"}, kShapeB)),
                        "conv2d: X is 2x23, expected N x CHW = 2x24 " + params);
    REQUIRE_THROWS_WITH(t.run(conv_line("conv2d_backward_filter", {"X", "dout"}, kShapeB)),
                        "conv2d_backward_filter: X is 2x23, expected N x CHW = 2x24 " + params);
  }
  SECTION("parameters below 2^31 whose products overflow") {
    // stride, pad, N, C, H, W, K, C, R, S: C*H*W beyond 2^63 (a signed overflow before the check).
    const int64_t big = 2147483647;
    const std::vector<int64_t> shape = {1, 1, 0, 0, 2, big, big, big, 2, big, 2, 3};
    REQUIRE_THROWS_WITH(t.run(conv_line("conv2d", {"X", "W"}, shape)),
                        Catch::Contains("conv2d: C*H*W, C*R*S, K*P*Q or K*C*R*S exceeds 2^63-1"));
  }
  SECTION("W not K x CRS") {
    t.set_matrix("W", MatrixBlock::dense(3, 12, 1.0));
    REQUIRE_THROWS_WITH(t.run(conv_line("conv2d", {"X", "W"}, kShapeB)),
                        "conv2d: W is 3x12, expected K x CRS = 2x12 " + params);
    REQUIRE_THROWS_WITH(t.run(conv_line("conv2d_backward_data", {"W", "dout"}, kShapeB)),
                        "conv2d_backward_data: W is 3x12, expected K x CRS = 2x12 " + params);
  }
  SECTION("dout not N x KPQ") {
    t.set_matrix("dout", MatrixBlock::dense(2, 15, 1.0));
    REQUIRE_THROWS_WITH(t.run(conv_line("conv2d_backward_filter", {"X", "dout"}, kShapeB)),
                        "conv2d_backward_filter: dout is 2x15, expected N x KPQ = 2x16 " + params);
    REQUIRE_THROWS_WITH(t.run(conv_line("conv2d_backward_data", {"W", "dout"}, kShapeB)),
                        "conv2d_backward_data: dout is 2x15, expected N x KPQ = 2x16 " + params);
  }
  SECTION("bias not K x 1") {
    t.set_matrix("b", MatrixBlock::dense(1, 2, 1.0));
    REQUIRE_THROWS_WITH(t.run(conv_line("conv2d_bias_add", {"X", "b", "W"}, kShapeB)),
                        "conv2d_bias_add: bias is 1x2, expected K x 1 = 2x1 " + params);
  }
  SECTION("filter larger than the padded image: P < 1") {
    t.set_matrix("X", MatrixBlock::dense(1, 4, 1.0));
    t.set_matrix("W", MatrixBlock::dense(1, 9, 1.0));
    REQUIRE_THROWS_WITH(
        t.run(conv_line("conv2d", {"X", "W"}, {2, 2, 0, 0, 1, 1, 2, 2, 1, 1, 3, 3})),
        "conv2d: filter 3x3 is larger than the padded 2x2 image, so P or Q would be < 1 "
        "(N=1 C=1 H=2 W=2 K=1 R=3 S=3 stride=[2, 2] pad=[0, 0])");
  }
  SECTION("channel counts, strides and padding") {
    REQUIRE_THROWS_WITH(
        t.run(conv_line("conv2d", {"X", "W"}, {2, 1, 1, 1, 2, 2, 3, 4, 2, 3, 2, 3})),
        "conv2d: the image channel count C=2 differs from the filter channel count C=3");
    REQUIRE_THROWS_WITH(
        t.run(conv_line("conv2d", {"X", "W"}, {0, 1, 1, 1, 2, 2, 3, 4, 2, 2, 2, 3})),
        "conv2d: strides must be >= 1, got [0, 1]");
    REQUIRE_THROWS_WITH(
        t.run(conv_line("conv2d", {"X", "W"}, {2, 1, -1, 1, 2, 2, 3, 4, 2, 2, 2, 3})),
        "conv2d: padding must be >= 0, got [-1, 1]");
  }
  SECTION("operands and field counts") {
    REQUIRE_THROWS_AS(t.run("CP°conv2d°X·MATRIX·FP64°W·MATRIX·FP64°out·MATRIX·FP64"),
                      dmlrt::ParseError);
    std::string bad = conv_line("conv2d", {"X", "W"}, kShapeB);
    const std::string w_operand = "W·MATRIX·FP64";
    bad.replace(bad.find(w_operand), w_operand.size(), "3·SCALAR·INT64·true");
    REQUIRE_THROWS_WITH(t.run(bad), Catch::Contains("conv2d expects a matrix as operand 2"));
  }
}

TEST_CASE("conv2d with a 1x1 unit filter on sparse and ultra-sparse batches", "[dnn][dnn_conv]") {
  // With C=K=1 and a 1x1 filter of value 1, conv2d and conv2d_backward_data are the identity and
  // conv2d_backward_filter against a dout of ones is the sum of X: expectations that need no
  // reference implementation.
  const double sparsity = GENERATE(0.1, 0.001);
  const bool as_sparse = GENERATE(false, true);
  TestContext t;
  const MatrixBlock x = dmlrt::test::random_block(
      3, 20 * 31, sparsity, dmlrt::test::seed_from("conv unit"), -1, 1, as_sparse);
  t.set_matrix("X", x);
  t.set_matrix("W", MatrixBlock::dense(1, 1, 1.0));
  t.set_matrix("ones", MatrixBlock::dense(3, 20 * 31, 1.0));
  const std::vector<int64_t> shape = {1, 1, 0, 0, 3, 1, 20, 31, 1, 1, 1, 1};
  t.run(conv_line("conv2d", {"X", "W"}, shape));
  DMLRT_REQUIRE_CLOSE(t.matrix("out"), x);
  t.run(conv_line("conv2d_backward_data", {"W", "X"}, shape));
  DMLRT_REQUIRE_CLOSE(t.matrix("out"), x);
  t.run(conv_line("conv2d_backward_filter", {"X", "ones"}, shape));
  double sum = 0;
  for (int64_t r = 0; r < x.rows(); ++r)
    for (int64_t c = 0; c < x.cols(); ++c) sum += x.get(r, c);
  DMLRT_REQUIRE_CLOSE(t.matrix("out"), 1, 1, {sum});
}

namespace {

namespace kc = dmlrt::kernels::cpu;

// The direct loop the CPU convolutions were before im2col (Note [CPU convolutions]): every
// (n, k, p, q, c, r, s) tap inside the image, in that order. f(x_index, w_index, y_index).
template <typename F>
void for_each_tap(const kc::ConvShape& sh, F&& f) {
  const int64_t chw = sh.c * sh.h * sh.w, crs = sh.c * sh.r * sh.s, kpq = sh.k * sh.p * sh.q;
  for (int64_t n = 0; n < sh.n; ++n)
    for (int64_t k = 0; k < sh.k; ++k)
      for (int64_t p = 0; p < sh.p; ++p)
        for (int64_t q = 0; q < sh.q; ++q)
          for (int64_t c = 0; c < sh.c; ++c)
            for (int64_t r = 0; r < sh.r; ++r) {
              const int64_t hh = p * sh.stride_h - sh.pad_h + r;
              if (hh < 0 || hh >= sh.h) continue;
              for (int64_t s = 0; s < sh.s; ++s) {
                const int64_t ww = q * sh.stride_w - sh.pad_w + s;
                if (ww < 0 || ww >= sh.w) continue;
                f(n * chw + (c * sh.h + hh) * sh.w + ww, k * crs + (c * sh.r + r) * sh.s + s,
                  n * kpq + (k * sh.p + p) * sh.q + q);
              }
            }
}

}  // namespace

TEST_CASE("conv2d on the CPU matches the direct loop, for any thread count", "[dnn][dnn_conv]") {
  // stride_h, stride_w, pad_h, pad_w, N, C, H, W, K, R, S
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1},     // 1x1 everything
      {1, 1, 2, 2, 64, 1, 28, 28, 8, 5, 5},  // LeNet's first layer (fewer filters)
      {2, 1, 1, 2, 5, 3, 7, 6, 4, 3, 2},     // odd sizes, unequal strides and padding
      {3, 3, 0, 0, 3, 2, 10, 9, 5, 3, 3},    // stride past the last column
      {1, 1, 0, 0, 130, 2, 4, 4, 3, 2, 2},   // more images than the filter gradient's blocks
      {1, 1, 1, 1, 2, 4, 5, 5, 6, 5, 5},     // the filter covers the padded image
  };
  const int saved = kc::num_threads();
  for (const auto& v : shapes) {
    kc::ConvShape sh;
    sh.stride_h = v[0], sh.stride_w = v[1], sh.pad_h = v[2], sh.pad_w = v[3];
    sh.n = v[4], sh.c = v[5], sh.h = v[6], sh.w = v[7], sh.k = v[8], sh.r = v[9], sh.s = v[10];
    sh.derive_output_size();
    INFO("N=" << sh.n << " C=" << sh.c << " H=" << sh.h << " W=" << sh.w << " K=" << sh.k
              << " R=" << sh.r << " S=" << sh.s << " P=" << sh.p << " Q=" << sh.q);
    const uint64_t seed = dmlrt::test::seed_from("cpu conv") + static_cast<uint64_t>(sh.n * sh.h);
    const bool sparse_x = sh.n == 5;  // one case with a CSR batch
    const MatrixBlock x =
        dmlrt::test::random_block(sh.n, sh.c * sh.h * sh.w, sparse_x ? 0.3 : 1.0, seed, -1, 1,
                                  sparse_x);
    const MatrixBlock w = dmlrt::test::random_block(sh.k, sh.c * sh.r * sh.s, 1.0, seed + 1);
    const MatrixBlock dout = dmlrt::test::random_block(sh.n, sh.k * sh.p * sh.q, 1.0, seed + 2);
    const MatrixBlock xd = x.to_dense(), wd = w.to_dense(), dd = dout.to_dense();
    MatrixBlock y_ref = MatrixBlock::dense(sh.n, sh.k * sh.p * sh.q);
    MatrixBlock dw_ref = MatrixBlock::dense(sh.k, sh.c * sh.r * sh.s);
    MatrixBlock dx_ref = MatrixBlock::dense(sh.n, sh.c * sh.h * sh.w);
    for_each_tap(sh, [&](int64_t xi, int64_t wi, int64_t yi) {
      y_ref.dense_data()[yi] += xd.dense_data()[xi] * wd.dense_data()[wi];
      dw_ref.dense_data()[wi] += xd.dense_data()[xi] * dd.dense_data()[yi];
      dx_ref.dense_data()[xi] += wd.dense_data()[wi] * dd.dense_data()[yi];
    });
    std::vector<MatrixBlock> first;
    for (int threads : {1, 2, 3}) {
      INFO(threads << " threads");
      kc::set_num_threads(threads);
      std::vector<MatrixBlock> got;
      got.push_back(kc::conv2d(x, w, sh));
      got.push_back(kc::conv2d_backward_filter(x, dout, sh));
      got.push_back(kc::conv2d_backward_data(w, dout, sh));
      DMLRT_REQUIRE_CLOSE(got[0], y_ref, 1e-12, 1e-12);
      DMLRT_REQUIRE_CLOSE(got[1], dw_ref, 1e-12, 1e-12);
      DMLRT_REQUIRE_CLOSE(got[2], dx_ref, 1e-12, 1e-12);
      if (first.empty()) {
        first = std::move(got);
        continue;
      }
      for (size_t i = 0; i < got.size(); ++i) {
        const auto bits = dmlrt::test::compare_bits(got[i], first[i]);
        INFO(bits.report);
        CHECK(bits.ok);  // the same bits as with one thread
      }
    }
  }
  kc::set_num_threads(saved);
}
