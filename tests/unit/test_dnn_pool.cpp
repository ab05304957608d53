// DNN pool sub-family through its instructions: max/avg pooling and backward (stride, padding,
// non-square, multi-channel, relu_maxpooling, the GPU layout with the forward output), relu_backward,
// bias_add/bias_multiply, channel_sums, update_nesterov_x, on dense and CSR inputs, and the shape
// errors. Expected values are hand-computed or printed by SystemDS 3.4 (noted where so).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"
#include "kernels/cpu/dnn_pool.h"
#include "kernels/cpu/parallel.h"

using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::TestContext;

namespace {

const std::string kM = "·MATRIX·FP64";

MatrixBlock as(bool sparse, const MatrixBlock& m) { return sparse ? m.to_sparse() : m.to_dense(); }

std::string lit(int64_t v) { return std::to_string(v) + "·SCALAR·INT64·true"; }

// The 12 shape scalars: stride_h, stride_w, pad_h, pad_w, N, C, H, W, K(=C), C, R, S.
std::string shape(int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t n, int64_t c, int64_t h,
                  int64_t w, int64_t r, int64_t s) {
  std::string out;
  for (int64_t v : {sh, sw, ph, pw, n, c, h, w, c, c, r, s}) out += "°" + lit(v);
  return out;
}

std::string fwd(const std::string& op, const std::string& shapes) {
  return "CP°" + op + "°X" + kM + shapes + "°Y" + kM + "°2°0.0";
}
std::string bwd(const std::string& op, const std::string& shapes) {
  return "CP°" + op + "°X" + kM + "°D" + kM + shapes + "°G" + kM + "°2°0.0";
}

const double a = 1.311, b = 1.587, c = 1.613, d = 1.566;

}  // namespace

TEST_CASE("maxpooling and its backward, overlapping windows", "[dnn_pool]") {
  // 1x1x3x3 image, 2x2 pool, stride 1: every window's max is the centre 9, which gets the sum
  // 1111. (SystemDS 3.4 prints 1000: its CP kernel stores duplicate sparse entries, a bug.)
  for (bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("X", as(sparse, dense_of(1, 9, {1, 2, 3, 4, 9, 6, 7, 8, 5})));
    t.set_matrix("D", as(sparse, dense_of(1, 4, {1, 10, 100, 1000})));
    t.run(fwd("maxpooling", shape(1, 1, 0, 0, 1, 1, 3, 3, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 1, 4, {9, 9, 9, 9});
    t.run(bwd("maxpooling_backward", shape(1, 1, 0, 0, 1, 1, 3, 3, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 1, 9, {0, 0, 0, 0, 1111, 0, 0, 0, 0});
  }
}

TEST_CASE("maxpooling with padding treats padding as -inf", "[dnn_pool]") {
  // 2x2 image, 2x2 pool, stride 1, padding 1 -> 3x3 output. Forward values printed by SystemDS
  // 3.4; backward sums hand-computed from the window maxima (windows in row-major order).
  const std::vector<double> d9 = {1, 10, 100, 1000, 1e4, 1e5, 1e6, 1e7, 1e8};
  for (bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("D", as(sparse, dense_of(1, 9, d9)));
    t.set_matrix("X", as(sparse, dense_of(1, 4, {-a, -b, -c, -d})));
    t.run(fwd("maxpooling", shape(1, 1, 1, 1, 1, 1, 2, 2, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 1, 9, {-a, -a, -b, -a, -a, -d, -c, -d, -d});
    t.run(bwd("maxpooling_backward", shape(1, 1, 1, 1, 1, 1, 2, 2, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 1, 4, {11011, 100, 1e6, 1e5 + 1e7 + 1e8});
    // relu first: every window is max(x, 0) = 0 and no cell has x > 0, so nothing flows back.
    t.run(fwd("relu_maxpooling", shape(1, 1, 1, 1, 1, 1, 2, 2, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 1, 9, std::vector<double>(9, 0.0));
    t.run(bwd("relu_maxpooling_backward", shape(1, 1, 1, 1, 1, 1, 2, 2, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 1, 4, {0, 0, 0, 0});

    t.set_matrix("X", as(sparse, dense_of(1, 4, {a, b, c, d})));
    t.run(bwd("maxpooling_backward", shape(1, 1, 1, 1, 1, 1, 2, 2, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 1, 4, {1, 100110, 11011000, 1e8});
    t.run(bwd("relu_maxpooling_backward", shape(1, 1, 1, 1, 1, 1, 2, 2, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 1, 4, {1, 100110, 11011000, 1e8});
    t.run(fwd("relu_maxpooling", shape(1, 1, 1, 1, 1, 1, 2, 2, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 1, 9, {a, b, b, c, c, b, c, c, d});
  }
}

TEST_CASE("maxpooling_backward sends a tie to the first maximum", "[dnn_pool]") {
  // SystemDS 3.4: X = [1 3; 3 2], one 2x2 window, dout 3 -> [0 3 0 0].
  TestContext t;
  t.set_matrix("X", dense_of(1, 4, {1, 3, 3, 2}));
  t.set_matrix("D", dense_of(1, 1, {3}));
  t.run(bwd("maxpooling_backward", shape(1, 1, 0, 0, 1, 1, 2, 2, 2, 2)));
  DMLRT_REQUIRE_CLOSE(t.matrix("G"), 1, 4, {0, 3, 0, 0});
  // GPU layout: no k, the forward output before out; it is accepted and ignored.
  t.set_matrix("Y", dense_of(1, 1, {3}));
  t.run("GPU°maxpooling_backward°X" + kM + "°D" + kM + shape(1, 1, 0, 0, 1, 1, 2, 2, 2, 2) + "°Y" +
        kM + "°G" + kM + "°0.0");
  DMLRT_REQUIRE_CLOSE(t.matrix("G"), 1, 4, {0, 3, 0, 0});
}

TEST_CASE("maxpooling on N=2, C=2 non-square images with stride 2", "[dnn_pool]") {
  // X row n holds 1..16 + 16n, channel c = cells 8c..8c+7 as a 2x4 image; pool 1x2 stride (1,2)
  // picks the right cell of each pair (values increase along rows): P=2, Q=2.
  std::vector<double> x, y, g;
  for (int v = 1; v <= 32; ++v) x.push_back(v);
  for (int n = 0; n < 2; ++n)
    for (int ch = 0; ch < 2; ++ch)
      for (int h = 0; h < 2; ++h)
        for (int q = 0; q < 2; ++q) y.push_back(16 * n + 8 * ch + 4 * h + 2 * q + 2);
  for (int i = 0; i < 32; ++i) g.push_back(i % 2 == 1 ? 0.5 : 0.0);
  for (bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("X", as(sparse, dense_of(2, 16, x)));
    t.set_matrix("D", dense_of(2, 8, std::vector<double>(16, 0.5)));
    t.run(fwd("maxpooling", shape(1, 2, 0, 0, 2, 2, 2, 4, 1, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 8, y);
    t.run(bwd("maxpooling_backward", shape(1, 2, 0, 0, 2, 2, 2, 4, 1, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 2, 16, g);
    // A 1x1 pool is the identity.
    t.run(fwd("maxpooling", shape(1, 1, 0, 0, 2, 2, 2, 4, 1, 1)));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 16, x);
  }
}

TEST_CASE("avgpooling divides by the full pool size", "[dnn_pool]") {
  for (bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("X", as(sparse, dense_of(1, 9, {1, 2, 3, 4, 9, 6, 7, 8, 5})));
    t.set_matrix("D", as(sparse, dense_of(1, 4, {1, 10, 100, 1000})));
    t.run(fwd("avgpooling", shape(1, 1, 0, 0, 1, 1, 3, 3, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 1, 4, {4, 5, 7, 7});
    // SystemDS 3.4 prints this (avg backward adds over overlapping windows).
    t.run(bwd("avgpooling_backward", shape(1, 1, 0, 0, 1, 1, 3, 3, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 1, 9, {0.25, 2.75, 2.5, 25.25, 277.75, 252.5, 25, 275, 250});

    t.set_matrix("X", as(sparse, dense_of(1, 4, {a, b, c, d})));
    t.set_matrix("D", dense_of(1, 9, {1, 10, 100, 1000, 1e4, 1e5, 1e6, 1e7, 1e8}));
    t.run(fwd("avgpooling", shape(1, 1, 1, 1, 1, 1, 2, 2, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 1, 9,
                        {a / 4, (a + b) / 4, b / 4, (a + c) / 4, (a + b + c + d) / 4, (b + d) / 4,
                         c / 4, (c + d) / 4, d / 4});
    t.run(bwd("avgpooling_backward", shape(1, 1, 1, 1, 1, 1, 2, 2, 2, 2)));
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 1, 4, {2752.75, 27527.5, 2752750, 27527500});
  }
}

TEST_CASE("pooling shape errors", "[dnn_pool]") {
  TestContext t;
  t.set_matrix("X", dense_of(1, 9, {1, 2, 3, 4, 9, 6, 7, 8, 5}));
  t.set_matrix("D", dense_of(1, 3, {1, 2, 3}));
  REQUIRE_THROWS_WITH(t.run(fwd("maxpooling", shape(1, 1, 0, 0, 2, 1, 3, 3, 2, 2))),
                      Catch::Contains("maxpooling: input is 1x9, expected N x C*H*W = 2x9"));
  REQUIRE_THROWS_WITH(t.run(bwd("avgpooling_backward", shape(1, 1, 0, 0, 1, 1, 3, 3, 2, 2))),
                      Catch::Contains("avgpooling_backward: dout is 1x3, expected N x C*P*Q = 1x4"));
  REQUIRE_THROWS_WITH(t.run(fwd("avgpooling", shape(1, 1, 0, 0, 1, 1, 3, 3, 4, 2))),
                      Catch::Contains("avgpooling: pool 4x2 does not fit image 3x3"));
  REQUIRE_THROWS_WITH(t.run(fwd("maxpooling", shape(0, 1, 0, 0, 1, 1, 3, 3, 2, 2))),
                      Catch::Contains("maxpooling: invalid pooling parameters"));
  // Each parameter below 2^31, their product C*H*W beyond 2^63 (found by the plan mutation fuzz:
  // a signed overflow before the input check).
  const int64_t big = 2147483647;
  REQUIRE_THROWS_WITH(t.run(fwd("maxpooling", shape(2, 2, 1, 1, 1, big, big, big, 3, 2))),
                      Catch::Contains("maxpooling: C*H*W or C*P*Q exceeds 2^63-1"));
  REQUIRE_THROWS_WITH(t.run(bwd("avgpooling_backward", shape(2, 2, 1, 1, 1, big, big, big, 3, 2))),
                      Catch::Contains("avgpooling_backward: C*H*W or C*P*Q exceeds 2^63-1"));
}

TEST_CASE("relu_backward passes dout where X > 0", "[dnn_pool]") {
  for (bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("X", as(sparse, dense_of(2, 3, {-1, 0, 2, 3, -4, 5})));
    t.set_matrix("D", as(sparse, dense_of(2, 3, {1, 2, 3, 4, 5, 6})));
    t.run("CP°relu_backward°X" + kM + "°D" + kM + "°O" + kM + "°2°0.0");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 3, {0, 0, 3, 4, 0, 6});
  }
  TestContext t;
  t.set_matrix("X", MatrixBlock::dense(0, 3));
  t.set_matrix("D", MatrixBlock::dense(0, 3));
  t.run("CP°relu_backward°X" + kM + "°D" + kM + "°O" + kM + "°2°0.0");
  CHECK(t.matrix("O").rows() == 0);
  t.set_matrix("D", MatrixBlock::dense(3, 0));
  REQUIRE_THROWS_WITH(t.run("CP°relu_backward°X" + kM + "°D" + kM + "°O" + kM),
                      Catch::Contains("relu_backward: X and dout differ in shape: 0x3 vs 3x0"));
}

TEST_CASE("bias_add, bias_multiply and channel_sums", "[dnn_pool]") {
  const MatrixBlock x = dense_of(2, 6, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  for (bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("X", as(sparse, x));
    t.set_matrix("B", as(sparse, dense_of(2, 1, {10, 100})));
    t.run("CP°bias_add°X" + kM + "°B" + kM + "°O" + kM + "°2°0.0");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 6, {11, 12, 13, 104, 105, 106, 17, 18, 19, 110, 111, 112});
    t.run("CP°bias_multiply°X" + kM + "°B" + kM + "°O" + kM + "°2°0.0");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 6,
                        {10, 20, 30, 400, 500, 600, 70, 80, 90, 1000, 1100, 1200});
    t.run("GPU°channel_sums°X" + kM + "°" + lit(2) + "°" + lit(3) + "°O" + kM);
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 1, {30, 48});
  }
  TestContext t;
  t.set_matrix("X", x);
  t.set_matrix("B", dense_of(4, 1, {1, 2, 3, 4}));
  REQUIRE_THROWS_WITH(t.run("CP°bias_add°X" + kM + "°B" + kM + "°O" + kM + "°2°0.0"),
                      Catch::Contains("bias_add: bias must be K x 1 with K dividing the columns of "
                                      "X: X is 2x6, bias is 4x1"));
  REQUIRE_THROWS_WITH(t.run("GPU°channel_sums°X" + kM + "°" + lit(4) + "°" + lit(2) + "°O" + kM),
                      Catch::Contains("channel_sums: X is 2x6, expected C*HW = 4*2 columns"));
}

TEST_CASE("update_nesterov_x keeps a fractional mu", "[dnn_pool]") {
  // X - mu*v_prev + (1+mu)*v with mu = 0.9: 1 - 1.8 + 0.95 = 0.15, 2 - 3.6 - 1.9 = -3.5.
  for (bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("X", as(sparse, dense_of(1, 2, {1, 2})));
    t.set_matrix("V", as(sparse, dense_of(1, 2, {0.5, -1})));
    t.set_matrix("P", as(sparse, dense_of(1, 2, {2, 4})));
    t.run("GPU°update_nesterov_x°X" + kM + "°V" + kM + "°P" + kM + "°0.9·SCALAR·FP64·true°O" + kM);
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 1, 2, {0.15, -3.5});
  }
  TestContext t;
  t.set_matrix("X", dense_of(1, 2, {1, 2}));
  t.set_matrix("V", dense_of(2, 1, {1, 2}));
  REQUIRE_THROWS_WITH(
      t.run("GPU°update_nesterov_x°X" + kM + "°V" + kM + "°X" + kM + "°0.9·SCALAR·FP64·true°O" + kM),
      Catch::Contains("update_nesterov_x: X, v and v_prev differ in shape: 1x2, 2x1, 1x2"));
}

TEST_CASE("DNN pool ops on empty batches and random sparse inputs", "[dnn_pool]") {
  TestContext t;
  t.set_matrix("X", MatrixBlock::dense(0, 9));
  t.set_matrix("D", MatrixBlock::dense(0, 4));
  t.run(fwd("maxpooling", shape(1, 1, 0, 0, 0, 1, 3, 3, 2, 2)));
  CHECK((t.matrix("Y").rows() == 0 && t.matrix("Y").cols() == 4));
  t.run(bwd("avgpooling_backward", shape(1, 1, 0, 0, 0, 1, 3, 3, 2, 2)));
  CHECK((t.matrix("G").rows() == 0 && t.matrix("G").cols() == 9));

  const uint64_t seed = dmlrt::test::seed_from("dnn_pool random sparse");
  for (double sp : {0.1, 0.001}) {
    const MatrixBlock x = dmlrt::test::random_block(23, 60, sp, seed, -1, 1, true);
    const MatrixBlock dout = dmlrt::test::random_block(23, 60, 0.5, seed + 1, -1, 1, false);
    const MatrixBlock bias = dense_of(3, 1, {0.5, -2, 3});
    std::vector<double> relu_ref, add_ref, mul_ref, sums_ref(3, 0.0);
    for (int64_t i = 0; i < 23; ++i)
      for (int64_t j = 0; j < 60; ++j) {
        const double v = x.get(i, j), bj = bias.get(j / 20, 0);
        relu_ref.push_back(v > 0 ? dout.get(i, j) : 0.0);
        add_ref.push_back(v + bj);
        mul_ref.push_back(v * bj);
        sums_ref[static_cast<size_t>(j / 20)] += v;
      }
    t.set_matrix("X", x);
    t.set_matrix("D", dout);
    t.set_matrix("B", bias);
    t.run("CP°relu_backward°X" + kM + "°D" + kM + "°O" + kM + "°2°0.0");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 23, 60, relu_ref);
    t.run("CP°bias_add°X" + kM + "°B" + kM + "°O" + kM + "°2°0.0");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 23, 60, add_ref);
    t.run("CP°bias_multiply°X" + kM + "°B" + kM + "°O" + kM + "°2°0.0");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 23, 60, mul_ref);
    t.run("GPU°channel_sums°X" + kM + "°" + lit(3) + "°" + lit(20) + "°O" + kM);
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 3, 1, sums_ref);
  }
}

TEST_CASE("pooling on the CPU gives the same bits for any thread count", "[dnn][dnn_pool]") {
  namespace kc = dmlrt::kernels::cpu;
  kc::PoolShape sh;
  sh.n = 300, sh.c = 3, sh.h = 17, sh.w = 16, sh.r = 3, sh.s = 2;
  sh.stride_h = 2, sh.stride_w = 2, sh.pad_h = 1, sh.pad_w = 0;  // overlapping rows, padding
  const uint64_t seed = dmlrt::test::seed_from("cpu pooling threads");
  const MatrixBlock x = dmlrt::test::random_block(sh.n, sh.c * sh.h * sh.w, 1.0, seed);
  const MatrixBlock dout = dmlrt::test::random_block(sh.n, sh.c * sh.p() * sh.q(), 1.0, seed + 1);
  const int saved = kc::num_threads();
  std::vector<MatrixBlock> first;
  for (int threads : {1, 3}) {
    INFO(threads << " threads");
    kc::set_num_threads(threads);
    std::vector<MatrixBlock> got;
    got.push_back(kc::max_pool(x, sh, false));
    got.push_back(kc::max_pool(x, sh, true));
    got.push_back(kc::max_pool_backward(x, dout, sh, false));
    got.push_back(kc::max_pool_backward(x, dout, sh, true));
    got.push_back(kc::avg_pool(x, sh));
    got.push_back(kc::avg_pool_backward(dout, sh));
    if (first.empty()) {
      first = std::move(got);
      continue;
    }
    for (size_t i = 0; i < got.size(); ++i) {
      const auto bits = dmlrt::test::compare_bits(got[i], first[i]);
      INFO("op " << i << ": " << bits.report);
      CHECK(bits.ok);
    }
  }
  kc::set_num_threads(saved);
}
