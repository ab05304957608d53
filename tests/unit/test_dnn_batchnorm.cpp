// Batch-norm sub-family through its instructions: batch_norm2d in train and test mode, the fused
// batch_norm2d_train / batch_norm2d_test forms, batch_norm2d_backward (saved mean the batch's own
// or not), dense and CSR inputs, and the parse / shape / mode errors. The tiny cases (N=2, C=1,
// HW=2) are computed by hand; SystemDS 3.4 prints the same values, except for the running variance
// (Note [Batch-norm semantics] in kernels/cpu/dnn_batchnorm.cpp, docs/deviations.md).
#include <catch2/catch.hpp>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::kernels::MatrixBlock;
using dmlrt::test::block_of;
using dmlrt::test::dense_of;
using dmlrt::test::TestContext;

namespace {

const std::string kM = "·MATRIX·FP64";

// An FP64 literal operand, every digit kept.
std::string num(double v) {
  std::ostringstream os;
  os << std::setprecision(17) << v << "·SCALAR·FP64·true";
  return os.str();
}
std::string str(const std::string& s) { return s + "·SCALAR·STRING·true"; }

// CP layout: X°scale°bias°runMean°runVar°mode°eps°mu°out°mean°var°saveMean°saveInvVar°k.
std::string forward(const std::string& mode, double eps, double mu) {
  return "CP°batch_norm2d°X" + kM + "°S" + kM + "°B" + kM + "°RM" + kM + "°RV" + kM + "°" +
         str(mode) + "°" + num(eps) + "°" + num(mu) + "°Y°M°V°SM°SIV°2";
}
// CP layout: X°dout°scale°eps°saveMean°saveInvVar°dX°dScale°dBias°k.
std::string backward(double eps) {
  return "CP°batch_norm2d_backward°X" + kM + "°D" + kM + "°S" + kM + "°" + num(eps) + "°SM" + kM +
         "°SIV" + kM + "°DX°DS°DB°2";
}

// X = [1 3; 5 7]: N=2 images of C=1 channel with HW=2 cells; the channel's cells are 1, 3, 5, 7
// (mean 4, biased variance 5). scale 2, bias 1, running mean 10 and variance 5.
void bind_tiny(TestContext& t, bool sparse) {
  t.set_matrix("X", block_of(sparse, 2, 2, {1, 3, 5, 7}));
  t.set_matrix("S", dense_of(1, 1, {2}));
  t.set_matrix("B", dense_of(1, 1, {1}));
  t.set_matrix("RM", dense_of(1, 1, {10}));
  t.set_matrix("RV", dense_of(1, 1, {5}));
}

std::string error_of(TestContext& t, const std::string& line) {
  try {
    t.run(line);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("batch_norm2d train mode on a hand-computed batch", "[dnn_batchnorm]") {
  // eps = 4: var + eps = 9, inv_var = 1/3; out = (x - 4)/3 * 2 + 1. mu = 0.5: running mean
  // 0.5*10 + 0.5*4 = 7, running variance 0.5*5 + 0.5*5 = 5 (SystemDS 3.4 prints 4.5: it blends
  // in the mean, see the Note).
  for (bool sparse : {false, true}) {
    TestContext t;
    bind_tiny(t, sparse);
    t.set_matrix("RV", dense_of(1, 1, {1}));  // running variance 1: 0.5*1 + 0.5*5 = 3
    t.run(forward("train", 4, 0.5));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 2, {-1, 1.0 / 3, 5.0 / 3, 3});
    DMLRT_REQUIRE_CLOSE(t.matrix("M"), 1, 1, {7});
    DMLRT_REQUIRE_CLOSE(t.matrix("V"), 1, 1, {3});
    DMLRT_REQUIRE_CLOSE(t.matrix("SM"), 1, 1, {4});
    DMLRT_REQUIRE_CLOSE(t.matrix("SIV"), 1, 1, {1.0 / 3});
  }
}

TEST_CASE("batch_norm2d test mode normalises with the running statistics", "[dnn_batchnorm]") {
  // inv_var = 1/sqrt(5 + 4) = 1/3; out = (x - 10)/3 * 2 + 1 (SystemDS 3.4 prints the same);
  // outputs 2-5 are the running mean and variance, the running mean and inv_var.
  for (const char* mode : {"test", "TeSt"}) {
    TestContext t;
    bind_tiny(t, false);
    t.run(forward(mode, 4, 0.5));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 2, {-5, -11.0 / 3, -7.0 / 3, -1});
    DMLRT_REQUIRE_CLOSE(t.matrix("M"), 1, 1, {10});
    DMLRT_REQUIRE_CLOSE(t.matrix("V"), 1, 1, {5});
    DMLRT_REQUIRE_CLOSE(t.matrix("SM"), 1, 1, {10});
    DMLRT_REQUIRE_CLOSE(t.matrix("SIV"), 1, 1, {1.0 / 3});
  }
}

TEST_CASE("batch_norm2d_train and batch_norm2d_test (GPU-only forms) under CP and GPU",
          "[dnn_batchnorm]") {
  TestContext t;
  bind_tiny(t, false);
  const std::string in = "X" + kM + "°S" + kM + "°B" + kM + "°RM" + kM + "°RV" + kM;
  t.run("CP°batch_norm2d_train°" + in + "°" + num(4) + "°" + num(0.5) + "°Y" + kM + "°M" + kM +
        "°V" + kM + "°SM" + kM + "°SIV" + kM);
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 2, {-1, 1.0 / 3, 5.0 / 3, 3});
  DMLRT_REQUIRE_CLOSE(t.matrix("M"), 1, 1, {7});
  DMLRT_REQUIRE_CLOSE(t.matrix("V"), 1, 1, {5});
  DMLRT_REQUIRE_CLOSE(t.matrix("SM"), 1, 1, {4});
  DMLRT_REQUIRE_CLOSE(t.matrix("SIV"), 1, 1, {1.0 / 3});
  // Without a device a GPU line runs on the CPU.
  t.run("GPU°batch_norm2d_test°" + in + "°" + num(4) + "°T" + kM);
  DMLRT_REQUIRE_CLOSE(t.matrix("T"), 2, 2, {-5, -11.0 / 3, -7.0 / 3, -1});
  // The generic form's GPU layout: no k, typed outputs.
  t.run("GPU°batch_norm2d°" + in + "°" + str("train") + "°" + num(4) + "°" + num(0.5) + "°Y2" + kM +
        "°M2" + kM + "°V2" + kM + "°SM2" + kM + "°SIV2" + kM);
  DMLRT_REQUIRE_CLOSE(t.matrix("Y2"), 2, 2, {-1, 1.0 / 3, 5.0 / 3, 3});
  DMLRT_REQUIRE_CLOSE(t.matrix("V2"), 1, 1, {5});
}

TEST_CASE("batch_norm2d_backward with the batch's own saved mean", "[dnn_batchnorm]") {
  // mean 4, inv_var 1/3, scale 2, dout = [1 0; 0 0]: centered = -3 -1 1 3, sum(dout) = 1,
  // sum(centered*dout) = -3, sum(centered) = 0. dbias = 1, dscale = -3/3 = -1,
  // dvar = -1/2 * (1/27) * 2 * -3 = 1/9, dmean = -2/3, dx = dout*2/3 - 1/6 + centered/18.
  // SystemDS 3.4 prints the same.
  for (bool sparse : {false, true}) {
    TestContext t;
    bind_tiny(t, sparse);
    t.set_matrix("D", block_of(sparse, 2, 2, {1, 0, 0, 0}));
    t.set_matrix("SM", dense_of(1, 1, {4}));
    t.set_matrix("SIV", dense_of(1, 1, {1.0 / 3}));
    t.run(backward(1e-5));
    DMLRT_REQUIRE_CLOSE(t.matrix("DX"), 2, 2, {1.0 / 3, -2.0 / 9, -1.0 / 9, 0});
    DMLRT_REQUIRE_CLOSE(t.matrix("DS"), 1, 1, {-1});
    DMLRT_REQUIRE_CLOSE(t.matrix("DB"), 1, 1, {1});
  }
}

TEST_CASE("batch_norm2d_backward keeps the variance branch of dmean for any saved mean",
          "[dnn_batchnorm]") {
  // Saved mean 3 (not the batch's 4): centered = -2 0 2 4, sum(centered) = 4,
  // sum(centered*dout) = -2; dscale = -2/3, dvar = 2/27,
  // dmean = -2/3 + 2/27 * (-2/4 * 4) = -22/27, dx = dout*2/3 - 11/54 + centered/27.
  // SystemDS 3.4 prints the same.
  TestContext t;
  bind_tiny(t, false);
  t.set_matrix("D", dense_of(2, 2, {1, 0, 0, 0}));
  t.set_matrix("SM", dense_of(1, 1, {3}));
  t.set_matrix("SIV", dense_of(1, 1, {1.0 / 3}));
  t.run(backward(1e-5));
  DMLRT_REQUIRE_CLOSE(t.matrix("DX"), 2, 2, {7.0 / 18, -11.0 / 54, -7.0 / 54, -1.0 / 18});
  DMLRT_REQUIRE_CLOSE(t.matrix("DS"), 1, 1, {-2.0 / 3});
  DMLRT_REQUIRE_CLOSE(t.matrix("DB"), 1, 1, {1});
}

TEST_CASE("batch_norm2d separates channels and images (N=2, C=2, HW=3)", "[dnn_batchnorm]") {
  // Row n = [channel 0 cells | channel 1 cells]. Channel 0 holds 1..6 (mean 3.5, biased
  // variance 35/12), channel 1 holds 10, 20, ..., 60 (mean 35, variance 3500/12).
  const std::vector<double> x = {1, 2, 3, 10, 20, 30, 4, 5, 6, 40, 50, 60};
  const double m0 = 3.5, v0 = 35.0 / 12, m1 = 35, v1 = 3500.0 / 12, eps = 1e-3;
  const double i0 = 1 / std::sqrt(v0 + eps), i1 = 1 / std::sqrt(v1 + eps);
  std::vector<double> y;
  for (int n = 0; n < 2; ++n)
    for (int ch = 0; ch < 2; ++ch)
      for (int j = 0; j < 3; ++j) {
        const double v = x[n * 6 + ch * 3 + j];
        y.push_back(ch == 0 ? (v - m0) * i0 * 2 + 1 : (v - m1) * i1 * -1 + 0.5);
      }
  for (bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("X", block_of(sparse, 2, 6, x));
    t.set_matrix("S", dense_of(2, 1, {2, -1}));
    t.set_matrix("B", dense_of(2, 1, {1, 0.5}));
    t.set_matrix("RM", dense_of(2, 1, {0, 1}));
    t.set_matrix("RV", dense_of(2, 1, {1, 2}));
    t.run(forward("train", eps, 0.9));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 6, y);
    DMLRT_REQUIRE_CLOSE(t.matrix("M"), 2, 1, {0.1 * m0, 0.9 + 0.1 * m1});
    DMLRT_REQUIRE_CLOSE(t.matrix("V"), 2, 1, {0.9 + 0.1 * v0, 1.8 + 0.1 * v1});
    DMLRT_REQUIRE_CLOSE(t.matrix("SM"), 2, 1, {m0, m1});
    DMLRT_REQUIRE_CLOSE(t.matrix("SIV"), 2, 1, {i0, i1});
  }
}

TEST_CASE("batch_norm2d train output is normalised per channel; formats agree", "[dnn_batchnorm]") {
  // Random 0.1-sparse and dense batches: every channel of the output has mean = bias and biased
  // variance = scale^2 * var / (var + eps); the dense and CSR copies give the same results.
  const uint64_t seed = dmlrt::test::seed_from("batch_norm2d normalised");
  const int64_t n = 7, c = 3, hw = 5;
  for (double sparsity : {1.0, 0.1}) {
    const MatrixBlock x = dmlrt::test::random_block(n, c * hw, sparsity, seed, -3, 5);
    TestContext dense_t, sparse_t;
    for (TestContext* t : {&dense_t, &sparse_t}) {
      t->set_matrix("X", t == &sparse_t ? x.to_sparse() : x.to_dense());
      t->set_matrix("S", dense_of(3, 1, {1.5, -2, 0.5}));
      t->set_matrix("B", dense_of(3, 1, {0.25, -1, 3}));
      t->set_matrix("RM", dense_of(3, 1, {0, 0, 0}));
      t->set_matrix("RV", dense_of(3, 1, {1, 1, 1}));
      t->run(forward("train", 1e-5, 0.9));
    }
    for (const char* out : {"Y", "M", "V", "SM", "SIV"})
      DMLRT_REQUIRE_CLOSE(sparse_t.matrix(out), dense_t.matrix(out), 1e-12, 1e-12);
    const MatrixBlock y = dense_t.matrix("Y").to_dense();
    const MatrixBlock xd = x.to_dense();
    const double scale[3] = {1.5, -2, 0.5}, bias[3] = {0.25, -1, 3};
    for (int64_t ch = 0; ch < c; ++ch) {
      double sx = 0, sy = 0;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < hw; ++j) {
          sx += xd.get(i, ch * hw + j);
          sy += y.get(i, ch * hw + j);
        }
      const double mx = sx / (n * hw), my = sy / (n * hw);
      double vx = 0, vy = 0;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < hw; ++j) {
          vx += std::pow(xd.get(i, ch * hw + j) - mx, 2);
          vy += std::pow(y.get(i, ch * hw + j) - my, 2);
        }
      vx /= n * hw;
      vy /= n * hw;
      CHECK(my == Approx(bias[ch]).epsilon(1e-12).margin(1e-12));
      CHECK(vy == Approx(scale[ch] * scale[ch] * vx / (vx + 1e-5)).epsilon(1e-12));
      CHECK(dense_t.matrix("SM").get(ch, 0) == Approx(mx).epsilon(1e-12).margin(1e-12));
      CHECK(dense_t.matrix("V").get(ch, 0) == Approx(0.9 + 0.1 * vx).epsilon(1e-12));
    }
  }
}

TEST_CASE("batch_norm2d_backward dX, dScale, dBias match finite differences", "[dnn_batchnorm]") {
  // The loss L = sum(dout .* batch_norm2d_train(X)) has gradient dX w.r.t. X (the saved
  // statistics being the batch's own), dScale w.r.t. scale and dBias w.r.t. bias.
  const uint64_t seed = dmlrt::test::seed_from("batch_norm2d_backward fd");
  const int64_t n = 3, c = 2, hw = 4;
  const MatrixBlock x = dmlrt::test::random_block(n, c * hw, 1.0, seed, -2, 2);
  const MatrixBlock dout = dmlrt::test::random_block(n, c * hw, 1.0, seed + 1, -1, 1);
  const std::vector<double> scale = {1.5, -0.75}, bias = {0.5, 2};
  auto loss = [&](const MatrixBlock& xv, const std::vector<double>& s,
                  const std::vector<double>& b) {
    TestContext t;
    t.set_matrix("X", xv);
    t.set_matrix("S", dense_of(c, 1, s));
    t.set_matrix("B", dense_of(c, 1, b));
    t.set_matrix("RM", dense_of(c, 1, {0, 0}));
    t.set_matrix("RV", dense_of(c, 1, {1, 1}));
    t.run(forward("train", 1e-3, 0.9));
    const MatrixBlock y = t.matrix("Y").to_dense();
    double l = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < c * hw; ++j) l += y.get(i, j) * dout.get(i, j);
    return l;
  };
  TestContext t;
  t.set_matrix("X", x);
  t.set_matrix("D", dout);
  t.set_matrix("S", dense_of(c, 1, scale));
  t.set_matrix("B", dense_of(c, 1, bias));
  t.set_matrix("RM", dense_of(c, 1, {0, 0}));
  t.set_matrix("RV", dense_of(c, 1, {1, 1}));
  t.run(forward("train", 1e-3, 0.9));
  t.run(backward(1e-3));
  const MatrixBlock dx = t.matrix("DX").to_dense();
  const double h = 1e-6;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c * hw; ++j) {
      std::vector<double> up = x.to_dense().dense_values(), down = up;
      up[i * c * hw + j] += h;
      down[i * c * hw + j] -= h;
      const double fd = (loss(dense_of(n, c * hw, up), scale, bias) -
                         loss(dense_of(n, c * hw, down), scale, bias)) /
                        (2 * h);
      CHECK(dx.get(i, j) == Approx(fd).margin(1e-6));
    }
  for (int64_t ch = 0; ch < c; ++ch) {
    std::vector<double> su = scale, sd = scale, bu = bias, bd = bias;
    su[ch] += h;
    sd[ch] -= h;
    bu[ch] += h;
    bd[ch] -= h;
    CHECK(t.matrix("DS").get(ch, 0) ==
          Approx((loss(x, su, bias) - loss(x, sd, bias)) / (2 * h)).margin(1e-6));
    CHECK(t.matrix("DB").get(ch, 0) ==
          Approx((loss(x, scale, bu) - loss(x, scale, bd)) / (2 * h)).margin(1e-6));
  }
}

TEST_CASE("batch_norm2d on an empty batch gives NaN batch statistics", "[dnn_batchnorm]") {
  // N = 0: the mean over no cells is 0/0 (IEEE); test mode does not look at the batch.
  TestContext t;
  t.set_matrix("X", MatrixBlock::dense(0, 4));
  t.set_matrix("S", dense_of(2, 1, {1, 1}));
  t.set_matrix("B", dense_of(2, 1, {0, 0}));
  t.set_matrix("RM", dense_of(2, 1, {1, 2}));
  t.set_matrix("RV", dense_of(2, 1, {3, 4}));
  t.run(forward("train", 1e-5, 0.9));
  CHECK(t.matrix("Y").rows() == 0);
  CHECK(t.matrix("Y").cols() == 4);
  CHECK(std::isnan(t.matrix("SM").get(0, 0)));
  CHECK(std::isnan(t.matrix("V").get(1, 0)));
  t.run(forward("test", 1e-5, 0.9));
  DMLRT_REQUIRE_CLOSE(t.matrix("M"), 2, 1, {1, 2});
  DMLRT_REQUIRE_CLOSE(t.matrix("SIV"), 2, 1, {1 / std::sqrt(3 + 1e-5), 1 / std::sqrt(4 + 1e-5)});
}

TEST_CASE("batch_norm2d errors name the instruction, the operand and the shapes",
          "[dnn_batchnorm]") {
  TestContext t;
  bind_tiny(t, false);
  t.set_matrix("D", dense_of(2, 2, {1, 0, 0, 0}));
  t.set_matrix("SM", dense_of(1, 1, {4}));
  t.set_matrix("SIV", dense_of(1, 1, {1.0 / 3}));

  // scale must be C x 1 with C dividing the columns of X.
  t.set_matrix("S", dense_of(3, 1, {1, 1, 1}));
  CHECK_THROWS_AS(t.run(forward("train", 1e-5, 0.9)), dmlrt::ShapeError);
  CHECK(error_of(t, forward("train", 1e-5, 0.9)) ==
        "batch_norm2d: scale must be C x 1 with C > 0 dividing the columns of X (N x C*HW): X is "
        "2x2, scale is 3x1");
  t.set_matrix("S", dense_of(1, 2, {1, 1}));
  CHECK_THAT(error_of(t, backward(1e-5)),
             Catch::Contains("batch_norm2d_backward: scale must be C x 1") &&
                 Catch::Contains("X is 2x2, scale is 1x2"));
  t.set_matrix("S", dense_of(1, 1, {2}));

  // The other per-channel operands must be C x 1.
  t.set_matrix("RV", dense_of(2, 1, {1, 1}));
  CHECK(error_of(t, forward("test", 1e-5, 0.9)) ==
        "batch_norm2d: runVar is 2x1, expected C x 1 = 1x1 (C from scale, 1x1; X is 2x2)");
  t.set_matrix("RV", dense_of(1, 1, {5}));
  t.set_matrix("B", dense_of(1, 2, {1, 1}));
  CHECK_THAT(error_of(t, forward("train", 1e-5, 0.9)),
             Catch::Contains("batch_norm2d: bias is 1x2, expected C x 1 = 1x1"));
  t.set_matrix("B", dense_of(1, 1, {1}));
  t.set_matrix("SIV", dense_of(3, 1, {1, 1, 1}));
  CHECK_THAT(error_of(t, backward(1e-5)),
             Catch::Contains("batch_norm2d_backward: saveInvVar is 3x1, expected C x 1 = 1x1"));
  t.set_matrix("SIV", dense_of(1, 1, {1.0 / 3}));

  // dout must have X's shape.
  t.set_matrix("D", dense_of(2, 3, {1, 0, 0, 0, 0, 0}));
  CHECK_THROWS_AS(t.run(backward(1e-5)), dmlrt::ShapeError);
  CHECK(error_of(t, backward(1e-5)) ==
        "batch_norm2d_backward: dout is 2x3, expected the shape of X, 2x2");

  // The mode.
  CHECK(error_of(t, forward("eval", 1e-5, 0.9)) ==
        "batch_norm2d: incorrect mode 'eval': expected either train or test");
}

TEST_CASE("batch_norm2d parse errors", "[dnn_batchnorm]") {
  TestContext t;
  bind_tiny(t, false);
  // Too few fields (the mu operand and an output missing).
  CHECK_THROWS_AS(t.run("CP°batch_norm2d°X" + kM + "°S" + kM + "°B" + kM + "°RM" + kM + "°RV" + kM +
                        "°" + str("train") + "°" + num(1e-5) + "°Y°M°V°SM"),
                  dmlrt::ParseError);
  CHECK_THAT(error_of(t, "CP°batch_norm2d_backward°X" + kM + "°D" + kM + "°S" + kM),
             Catch::Contains("batch_norm2d_backward") && Catch::Contains("fields"));
  // A scalar where the image batch goes.
  CHECK_THAT(error_of(t, "CP°batch_norm2d_test°" + num(1) + "°S" + kM + "°B" + kM + "°RM" + kM +
                             "°RV" + kM + "°" + num(1e-5) + "°T" + kM),
             Catch::Contains("batch_norm2d_test expects a matrix X as operand 1"));
  // A matrix where eps goes.
  CHECK_THAT(error_of(t, "CP°batch_norm2d_backward°X" + kM + "°D" + kM + "°S" + kM + "°S" + kM +
                             "°SM" + kM + "°SIV" + kM + "°DX°DS°DB°2"),
             Catch::Contains("expects a scalar eps as operand 4"));
  CHECK_THAT(error_of(t, "CP°batch_norm2d°X" + kM + "°S" + kM + "°B" + kM + "°RM" + kM + "°RV" +
                             kM + "°S" + kM + "°" + num(1e-5) + "°" + num(0.9) + "°Y°M°V°SM°SIV°2"),
             Catch::Contains("expects scalar mode, eps and mu operands"));
}
