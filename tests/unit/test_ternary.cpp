// Ternary ops through their instructions: ifelse with every scalar/matrix combination (NaN
// conditions count as true, as SystemDS's `c != 0`), scalar ifelse passing its input through,
// +* and -* on dense and CSR inputs, 1x1 matrices as scalars, empty shapes, and errors.
// Expected values are hand-computed or printed by SystemDS 3.4.
#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::inst::ScalarValue;
using dmlrt::inst::ValueType;
using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::random_block;
using dmlrt::test::seed_from;
using dmlrt::test::sparse_of;
using dmlrt::test::TestContext;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

MatrixBlock as(bool sparse, const MatrixBlock& m) { return sparse ? m.to_sparse() : m.to_dense(); }

const char* kM = "·MATRIX·FP64";

}  // namespace

TEST_CASE("ifelse with matrix and scalar operands", "[ternary]") {
  // C = [1 0; NaN 0], X = [7 -7; 3 0]: SystemDS 3.4 prints ifelse(C, X, 5) = [7 5; 3 5].
  const MatrixBlock c = dense_of(2, 2, {1, 0, kNaN, 0});
  const MatrixBlock x = dense_of(2, 2, {7, -7, 3, 0});
  const MatrixBlock y = dense_of(2, 2, {1, 2, 3, 4});
  for (bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("C", as(sparse, c));
    t.set_matrix("X", as(sparse, x));
    t.set_matrix("Y", as(sparse, y));
    t.run(std::string("CP°ifelse°C") + kM + "°X" + kM + "°5·SCALAR·INT64·true°O" + kM + "°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {7, 5, 3, 5});
    t.run(std::string("CP°ifelse°C") + kM + "°X" + kM + "°Y" + kM + "°O" + kM + "°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {7, 2, 3, 4});
    t.run(std::string("CP°ifelse°C") + kM + "°5·SCALAR·FP64·true°X" + kM + "°O" + kM + "°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {5, -7, 5, 0});
    // Scalar condition with matrix branches.
    t.run(std::string("CP°ifelse°2.5·SCALAR·FP64·true°X") + kM + "°Y" + kM + "°O" + kM + "°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {7, -7, 3, 0});
    t.run(std::string("CP°ifelse°FALSE·SCALAR·BOOLEAN·true°X") + kM + "°Y" + kM + "°O" + kM);
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {1, 2, 3, 4});
    // Two scalars and a matrix condition; a 1x1 matrix acts as a scalar.
    t.set_matrix("S", dense_of(1, 1, {-1}));
    t.run(std::string("CP°ifelse°X") + kM + "°1·SCALAR·INT64·true°S" + kM + "°O" + kM + "°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {1, 1, 1, -1});
  }
}

TEST_CASE("ifelse on random sparse inputs", "[ternary]") {
  const uint64_t seed = seed_from("ifelse random");
  for (double sp : {1.0, 0.1, 0.001}) {
    const MatrixBlock c = random_block(31, 17, sp, seed, -1, 1);
    const MatrixBlock a = random_block(31, 17, sp, seed + 1, -1, 1);
    const MatrixBlock b = random_block(31, 17, 0.5, seed + 2, -1, 1);
    std::vector<double> ref;
    for (int64_t i = 0; i < 31; ++i)
      for (int64_t j = 0; j < 17; ++j) ref.push_back(c.get(i, j) != 0 ? a.get(i, j) : b.get(i, j));
    for (bool sparse : {false, true}) {
      TestContext t;
      t.set_matrix("C", as(sparse, c));
      t.set_matrix("A", as(sparse, a));
      t.set_matrix("B", as(sparse, b));
      t.run(std::string("CP°ifelse°C") + kM + "°A" + kM + "°B" + kM + "°O" + kM + "°2");
      DMLRT_REQUIRE_CLOSE(t.matrix("O"), 31, 17, ref);
    }
  }
}

TEST_CASE("ifelse of scalars passes the chosen input through", "[ternary]") {
  TestContext t;
  t.run(
      "CP°ifelse°TRUE·SCALAR·BOOLEAN·true°7·SCALAR·INT64·true°2."
      "5·SCALAR·FP64·true°s·SCALAR·STRING");
  CHECK(t.scalar("s").type() == ValueType::kINT64);
  CHECK(t.scalar("s").to_string() == "7");
  t.run("CP°ifelse°0.0·SCALAR·FP64·true°7·SCALAR·INT64·true°2.5·SCALAR·FP64·true°s·SCALAR·FP64");
  CHECK(t.scalar("s").to_string() == "2.5");
  t.run("CP°ifelse°0·SCALAR·INT64·true°a·SCALAR·STRING·true°b·SCALAR·STRING·true°s·SCALAR·STRING");
  CHECK(t.scalar("s").to_string() == "b");
  t.run("CP°ifelse°NaN·SCALAR·FP64·true°a·SCALAR·STRING·true°b·SCALAR·STRING·true°s·SCALAR·STRING");
  CHECK(t.scalar("s").to_string() == "a");
}

TEST_CASE("+* and -* compute X + s*Y and X - s*Y", "[ternary]") {
  // X = [7 -7; 3 0], Y = [1 2; 3 4], s = 5: SystemDS 3.4 prints [12 3; 18 20] and [2 -17; -12 -20].
  const MatrixBlock x = dense_of(2, 2, {7, -7, 3, 0});
  const MatrixBlock y = dense_of(2, 2, {1, 2, 3, 4});
  for (bool sx : {false, true})
    for (bool sy : {false, true}) {
      TestContext t;
      t.set_matrix("X", as(sx, x));
      t.set_matrix("Y", as(sy, y));
      t.run(std::string("CP°+*°X") + kM + "°5·SCALAR·FP64·true°Y" + kM + "°O" + kM + "°2");
      DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {12, 3, 18, 20});
      t.set_scalar("s", ScalarValue::int64(5));
      t.run(std::string("CP°-*°X") + kM + "°s·SCALAR·INT64·false°Y" + kM + "°O" + kM + "°2");
      DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {2, -17, -12, -20});
      // GPU layout has no k.
      t.run(std::string("GPU°-*°X") + kM + "°1·SCALAR·FP64·true°Y" + kM + "°O" + kM);
      DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {6, -9, 0, -4});
    }
  // Sparse inputs give a sparse result; values against a plain loop.
  const uint64_t seed = seed_from("+* sparse");
  const MatrixBlock a = random_block(100, 80, 0.01, seed, -1, 1, true);
  const MatrixBlock b = random_block(100, 80, 0.01, seed + 1, -1, 1, true);
  TestContext t;
  t.set_matrix("X", a);
  t.set_matrix("Y", b);
  t.run(std::string("CP°-*°X") + kM + "°0.5·SCALAR·FP64·true°Y" + kM + "°O" + kM + "°2");
  std::vector<double> ref;
  for (int64_t i = 0; i < 100; ++i)
    for (int64_t j = 0; j < 80; ++j) ref.push_back(a.get(i, j) - 0.5 * b.get(i, j));
  DMLRT_REQUIRE_CLOSE(t.matrix("O"), 100, 80, ref);
  CHECK(t.matrix("O").is_sparse());
  // IEEE: 0 * Inf in Y is NaN, also when s is 0.
  t.set_matrix("Y", dense_of(1, 2, {std::numeric_limits<double>::infinity(), 1}));
  t.set_matrix("X", dense_of(1, 2, {1, 1}));
  t.run(std::string("CP°+*°X") + kM + "°0·SCALAR·FP64·true°Y" + kM + "°O" + kM + "°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("O"), 1, 2, {kNaN, 1});
}

TEST_CASE("+* of scalars and scalar-matrix mixes", "[ternary]") {
  TestContext t;
  t.run("CP°+*°1·SCALAR·INT64·true°2·SCALAR·INT64·true°3·SCALAR·INT64·true°s·SCALAR·FP64");
  CHECK(t.scalar("s").type() == ValueType::kFP64);
  CHECK(t.scalar("s").to_double() == 7.0);
  t.run("CP°-*°1·SCALAR·INT64·true°2·SCALAR·INT64·true°3·SCALAR·INT64·true°s·SCALAR·INT64");
  CHECK(t.scalar("s").type() == ValueType::kINT64);
  CHECK(t.scalar("s").to_string() == "-5");
  // A scalar X with a matrix Y broadcasts X.
  t.set_matrix("Y", sparse_of(1, 3, {0, 1, 2}));
  t.run(std::string("CP°+*°1·SCALAR·FP64·true°2·SCALAR·FP64·true°Y") + kM + "°O" + kM + "°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("O"), 1, 3, {1, 3, 5});
}

TEST_CASE("ternary empty and 1x1 shapes", "[ternary]") {
  TestContext t;
  t.set_matrix("E", MatrixBlock::dense(0, 3));
  t.set_matrix("F", MatrixBlock::empty_sparse(0, 3));
  t.run(std::string("CP°ifelse°E") + kM + "°1·SCALAR·FP64·true°F" + kM + "°O" + kM + "°2");
  CHECK(t.matrix("O").rows() == 0);
  CHECK(t.matrix("O").cols() == 3);
  t.run(std::string("CP°+*°E") + kM + "°2·SCALAR·FP64·true°F" + kM + "°O" + kM + "°2");
  CHECK(t.matrix("O").rows() == 0);
  t.set_matrix("A", dense_of(1, 1, {0}));
  t.set_matrix("B", dense_of(1, 1, {4}));
  t.run(std::string("CP°ifelse°A") + kM + "°B" + kM + "°9·SCALAR·FP64·true°O" + kM + "°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("O"), 1, 1, {9});
  t.run(std::string("CP°-*°B") + kM + "°2·SCALAR·FP64·true°B" + kM + "°O" + kM + "°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("O"), 1, 1, {-4});
}

TEST_CASE("ternary shape and parse errors", "[ternary]") {
  TestContext t;
  t.set_matrix("A", dense_of(2, 2, {1, 2, 3, 4}));
  t.set_matrix("B", dense_of(3, 1, {1, 2, 3}));
  REQUIRE_THROWS_AS(
      t.run(std::string("CP°ifelse°A") + kM + "°B" + kM + "°1·SCALAR·FP64·true°O" + kM + "°2"),
      dmlrt::ShapeError);
  REQUIRE_THROWS_WITH(
      t.run(std::string("CP°ifelse°A") + kM + "°B" + kM + "°1·SCALAR·FP64·true°O" + kM + "°2"),
      Catch::Contains("ifelse: matrix operands differ in shape: 2x2, 3x1, scalar"));
  REQUIRE_THROWS_WITH(
      t.run(std::string("CP°+*°A") + kM + "°2·SCALAR·FP64·true°B" + kM + "°O" + kM + "°2"),
      Catch::Contains("+*: matrix operands differ in shape: 2x2, scalar, 3x1"));
  REQUIRE_THROWS_WITH(t.run(std::string("CP°ifelse°A") + kM + "°B" + kM + "°O" + kM),
                      Catch::Contains("ifelse expects 4 to 5 operand fields, got 3"));
  REQUIRE_THROWS_WITH(t.run(std::string("CP°ifelse°A") + kM +
                            "°1·SCALAR·FP64·true°2·SCALAR·FP64·true°s·SCALAR·FP64"),
                      Catch::Contains("output 's' must be a MATRIX"));
  t.set_scalar("str", ScalarValue::string("abc"));
  REQUIRE_THROWS_WITH(
      t.run(std::string("CP°ifelse°A") + kM + "°str·SCALAR·STRING°1·SCALAR·FP64·true°O" + kM),
      Catch::Contains("ifelse: string scalar 'abc' cannot be combined with a matrix"));
}
