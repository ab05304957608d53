// Tests of the quaternary instructions (wsloss, wdivmm, wcemm, wsigmoid, wumm) and sprop: every
// type on dense and CSR weights against values worked out by hand, and every error message.
#include <catch2/catch.hpp>
#include <cmath>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::test::block_of;
using dmlrt::test::dense_of;
using dmlrt::test::TestContext;

namespace {

// U (2, 1) and V (3, 1): U %*% t(V) = [[1, 0.5, 2], [2, 1, 4]]; X and W (2, 3).
void set_inputs(TestContext& t, bool sparse) {
  t.set_matrix("U", dense_of(2, 1, {1, 2}));
  t.set_matrix("V", dense_of(3, 1, {1, 0.5, 2}));
  t.set_matrix("X", block_of(sparse, 2, 3, {2, 0, -1, 0, 1, 0}));
  t.set_matrix("W", block_of(sparse, 2, 3, {1, 0, 2, 0.5, 0, 1}));
}

const char* const kUV = "°U·MATRIX·FP64°V·MATRIX·FP64°";

}  // namespace

TEST_CASE("wsloss: POST, POST_NZ, PRE and NONE on dense and CSR inputs", "[quaternary]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  set_inputs(t, sp);
  const std::string x = std::string("CP°wsloss°X·MATRIX·FP64") + kUV;
  t.run(x + "W·MATRIX·FP64°s·SCALAR·FP64°POST°2");
  CHECK(t.scalar("s").to_double() == Approx(37));
  t.run(x + "1·SCALAR·INT64·true°s·SCALAR·FP64°POST_NZ°2");
  CHECK(t.scalar("s").to_double() == Approx(10));
  t.run(x + "W·MATRIX·FP64°s·SCALAR·FP64°PRE°2");
  CHECK(t.scalar("s").to_double() == Approx(44));
  t.run(x + "1·SCALAR·INT64·true°s·SCALAR·FP64°NONE°2");
  CHECK(t.scalar("s").to_double() == Approx(30.25));
}

TEST_CASE("wdivmm: basic, left and right forms on dense and CSR weights", "[quaternary]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  set_inputs(t, sp);
  const std::string w = std::string("CP°wdivmm°W·MATRIX·FP64") + kUV;
  const std::string none = "-1·SCALAR·INT64·true°C·MATRIX·FP64°";
  t.run(w + none + "MULT_BASIC°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 3, {1, 0, 4, 1, 0, 4});
  // W / UV' at W's nonzeros: [[1, 0, 1], [0.25, 0, 0.25]].
  t.run(w + none + "DIV_RIGHT°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 1, {3, 0.75});
  t.run(w + none + "DIV_LEFT°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 3, 1, {1.5, 0, 1.5});
  t.run(w + "1.0·SCALAR·FP64·true°C·MATRIX·FP64°DIV_RIGHT_EPS°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 1, {0.5 + 4.0 / 3, 0.5 / 3 + 0.4});
  t.run(w + "1.0·SCALAR·FP64·true°C·MATRIX·FP64°DIV_LEFT_EPS°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 3, 1, {0.5 + 1.0 / 3, 0, 2.0 / 3 + 0.4});
  t.run(w + none + "MULT_RIGHT°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 1, {9, 9});
  t.run(w + none + "MULT_LEFT°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 3, 1, {3, 0, 12});
  // (X != 0) * (UV' - X) with X first: [[-1, 0, 3], [0, 0, 0]].
  const std::string x = std::string("CP°wdivmm°X·MATRIX·FP64") + kUV;
  t.run(x + none + "MULT_MINUS_RIGHT°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 1, {5, 0});
  t.run(x + none + "MULT_MINUS_LEFT°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 3, 1, {-1, 0, 3});
  // W * (UV' - X): [[-1, 0, 6], [1, 0, 4]].
  t.run(w + "X·MATRIX·FP64°C·MATRIX·FP64°MULT_MINUS_4_RIGHT°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 1, {11, 9});
  t.run(w + "X·MATRIX·FP64°C·MATRIX·FP64°MULT_MINUS_4_LEFT°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 3, 1, {1, 0, 14});
}

TEST_CASE("wcemm, wsigmoid and wumm on dense and CSR weights", "[quaternary]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  set_inputs(t, sp);
  const double l2 = std::log(2.0), l3 = std::log(3.0), l5 = std::log(5.0);
  const std::string w = std::string("CP°wcemm°W·MATRIX·FP64") + kUV;
  t.run(w + "0.0·SCALAR·FP64·true°s·SCALAR·FP64°BASIC°2");
  CHECK(t.scalar("s").to_double() == Approx(4.5 * l2));
  t.run(w + "1.0·SCALAR·FP64·true°s·SCALAR·FP64°BASIC_EPS°2");
  CHECK(t.scalar("s").to_double() == Approx(l2 + 2.5 * l3 + l5));

  auto sig = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  const std::string s = std::string("CP°wsigmoid°W·MATRIX·FP64") + kUV + "C·MATRIX·FP64°";
  t.run(s + "BASIC°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 3, {sig(1), 0, 2 * sig(2), 0.5 * sig(2), 0, sig(4)});
  t.run(s + "LOG°2");
  DMLRT_REQUIRE_CLOSE(
      t.matrix("C"), 2, 3,
      {std::log(sig(1)), 0, 2 * std::log(sig(2)), 0.5 * std::log(sig(2)), 0, std::log(sig(4))});
  t.run(s + "MINUS°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 3, {sig(-1), 0, 2 * sig(-2), 0.5 * sig(-2), 0, sig(-4)});
  t.run(s + "LOG_MINUS°2");
  DMLRT_REQUIRE_CLOSE(
      t.matrix("C"), 2, 3,
      {std::log(sig(-1)), 0, 2 * std::log(sig(-2)), 0.5 * std::log(sig(-2)), 0, std::log(sig(-4))});

  t.run(std::string("CP°wumm°exp°W·MATRIX·FP64") + kUV + "C·MATRIX·FP64°MULT°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 3,
                      {std::exp(1), 0, 2 * std::exp(2), 0.5 * std::exp(2), 0, std::exp(4)});
  t.run(std::string("CP°wumm°^2°W·MATRIX·FP64") + kUV + "C·MATRIX·FP64°DIV°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 3, {1, 0, 0.5, 0.125, 0, 1.0 / 16});
}

TEST_CASE("sprop: X * (1 - X) on dense and CSR inputs", "[unary]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  t.set_matrix("X", block_of(sp, 2, 2, {0, 0.5, -1, 2}));
  t.run("CP°sprop°X·MATRIX·FP64°Y·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 2, {0, 0.25, -2, -2});
}

TEST_CASE("quaternary instructions: errors name the instruction, operands and shapes",
          "[quaternary]") {
  TestContext t;
  set_inputs(t, false);
  t.set_matrix("B", dense_of(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  t.set_matrix("U2", dense_of(2, 2, {1, 2, 3, 4}));
  const std::string x = std::string("CP°wsloss°X·MATRIX·FP64") + kUV;
  REQUIRE_THROWS_WITH(t.run(x + "W·MATRIX·FP64°s·SCALAR·FP64°FOO°2"),
                      Catch::Contains("wsloss: unknown type 'FOO'"));
  REQUIRE_THROWS_WITH(t.run(x + "W·MATRIX·FP64°s·MATRIX·FP64°POST°2"),
                      Catch::Contains("wsloss output 's' must be a SCALAR"));
  REQUIRE_THROWS_WITH(t.run(x + "1·SCALAR·INT64·true°s·SCALAR·FP64°POST°2"),
                      Catch::Contains("wsloss POST needs a MATRIX fourth input, got '1'"));
  REQUIRE_THROWS_WITH(t.run("CP°wdivmm°W·MATRIX·FP64" + std::string(kUV) +
                            "X·MATRIX·FP64°C·MATRIX·FP64°"
                            "DIV_RIGHT_EPS°2"),
                      Catch::Contains("wdivmm DIV_RIGHT_EPS needs a SCALAR fourth input, got 'X'"));
  REQUIRE_THROWS_WITH(
      t.run("CP°wsigmoid°W·MATRIX·FP64°2·SCALAR·FP64·true°V·MATRIX·FP64°C·MATRIX·FP64°BASIC°2"),
      Catch::Contains("wsigmoid input '2' must be a MATRIX"));
  REQUIRE_THROWS_WITH(
      t.run("CP°wsigmoid°W·MATRIX·FP64" + std::string(kUV) + "c·SCALAR·FP64°BASIC°2"),
      Catch::Contains("wsigmoid output 'c' must be a MATRIX"));
  REQUIRE_THROWS_WITH(
      t.run("CP°wumm°foo°W·MATRIX·FP64" + std::string(kUV) + "C·MATRIX·FP64°MULT°2"),
      Catch::Contains("wumm: 'foo' is not a cell-wise unary op"));
  REQUIRE_THROWS_WITH(t.run("CP°wcemm°X·MATRIX·FP64" + std::string(kUV) + "C·SCALAR·FP64°2"),
                      Catch::Contains("wcemm expects 7 operand fields, got 5"));
  // Shapes: U (2, 1), V (3, 1), X and W (2, 3).
  REQUIRE_THROWS_WITH(
      t.run("CP°wsloss°X·MATRIX·FP64°B·MATRIX·FP64°V·MATRIX·FP64°W·MATRIX·FP64°s·SCALAR·FP64°"
            "POST°2"),
      Catch::Contains("wsloss: U must have the rows of X: X 2x3, U 3x3, V 3x1, W 2x3"));
  REQUIRE_THROWS_WITH(
      t.run("CP°wsigmoid°W·MATRIX·FP64°U·MATRIX·FP64°U2·MATRIX·FP64°C·MATRIX·FP64°BASIC°2"),
      Catch::Contains("wsigmoid: V must have a row per column of W: W 2x3, U 2x1, V 2x2"));
  REQUIRE_THROWS_WITH(
      t.run("CP°wumm°exp°W·MATRIX·FP64°U2·MATRIX·FP64°V·MATRIX·FP64°C·MATRIX·FP64°MULT°2"),
      Catch::Contains("wumm: U and V must have the same number of columns: W 2x3, U 2x2, V 3x1"));
  REQUIRE_THROWS_WITH(
      t.run("CP°wdivmm°W·MATRIX·FP64" + std::string(kUV) +
            "B·MATRIX·FP64°C·MATRIX·FP64°"
            "MULT_MINUS_4_LEFT°2"),
      Catch::Contains("wdivmm: B must have the shape of W: W 2x3, U 2x1, V 3x1, B 3x3"));
}
