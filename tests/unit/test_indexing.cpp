// Tests of rightIndex and leftIndex on dense and CSR inputs: hand values, naive references on
// random blocks, scalar outputs and right-hand sides, and every bounds / shape error.
#include <catch2/catch.hpp>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::inst::ScalarValue;
using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::random_block;
using dmlrt::test::seed_from;
using dmlrt::test::sparse_of;
using dmlrt::test::TestContext;

namespace {

MatrixBlock x34(bool sparse) {
  std::vector<double> v(12);
  for (int i = 0; i < 12; ++i) v[i] = i + 1;
  return sparse ? sparse_of(3, 4, v) : dense_of(3, 4, v);
}

std::string lit(int64_t v) { return std::to_string(v) + "·SCALAR·INT64·true"; }

std::string right(int64_t rl, int64_t ru, int64_t cl, int64_t cu, const std::string& out) {
  return "CP°rightIndex°X·MATRIX·FP64°" + lit(rl) + "°" + lit(ru) + "°" + lit(cl) + "°" + lit(cu) +
         "°" + out;
}

std::string left(const std::string& rhs, int64_t rl, int64_t ru, int64_t cl, int64_t cu) {
  return "CP°leftIndex°X·MATRIX·FP64°" + rhs + "°" + lit(rl) + "°" + lit(ru) + "°" + lit(cl) + "°" +
         lit(cu) + "°Y·MATRIX·FP64";
}

}  // namespace

TEST_CASE("rightIndex slices dense and sparse blocks", "[indexing]") {
  const bool sparse = GENERATE(false, true);
  TestContext t;
  t.set_matrix("X", x34(sparse));
  t.run(right(1, 2, 2, 3, "W·MATRIX·FP64"));
  DMLRT_REQUIRE_CLOSE(t.matrix("W"), 2, 2, {2, 3, 6, 7});
  t.run(right(3, 3, 1, 4, "W·MATRIX·FP64"));
  DMLRT_REQUIRE_CLOSE(t.matrix("W"), 1, 4, {9, 10, 11, 12});
  t.run(right(1, 3, 4, 4, "W·MATRIX·FP64"));
  DMLRT_REQUIRE_CLOSE(t.matrix("W"), 3, 1, {4, 8, 12});
  t.run(right(1, 3, 1, 4, "W·MATRIX·FP64"));
  DMLRT_REQUIRE_CLOSE(t.matrix("W"), x34(false));
  // A single cell into a 1x1 matrix.
  t.run(right(2, 2, 3, 3, "W·MATRIX·FP64"));
  DMLRT_REQUIRE_CLOSE(t.matrix("W"), 1, 1, {7});
}

TEST_CASE("rightIndex into a scalar output (as.scalar(X[i,j]) and X[i,j])", "[indexing]") {
  const bool sparse = GENERATE(false, true);
  TestContext t;
  t.set_matrix("X", x34(sparse));
  // SystemDS: CP rightIndex _mVar0 2 2 3 3 _Var9.SCALAR.FP64
  t.run(right(2, 2, 3, 3, "s·SCALAR·FP64"));
  REQUIRE(t.scalar("s").to_double() == 7.0);
  REQUIRE(t.scalar("s").type() == dmlrt::inst::ValueType::kFP64);
  // Index bounds from FP64 variables, as SystemDS compiles them after as.scalar().
  t.set_scalar("i", ScalarValue::fp64(3.0));
  t.set_scalar("j", ScalarValue::fp64(1.0));
  t.run(
      "CP°rightIndex°X·MATRIX·FP64°i·SCALAR·FP64·false°i·SCALAR·FP64·false°j·SCALAR·FP64·false°"
      "j·SCALAR·FP64·false°s·SCALAR·FP64");
  REQUIRE(t.scalar("s").to_double() == 9.0);
  REQUIRE_THROWS_WITH(t.run(right(1, 2, 1, 1, "s·SCALAR·FP64")),
                      "rightIndex: a scalar output needs a single cell, got rows 1:2, columns 1:1 "
                      "of a 3x4 matrix");
}

TEST_CASE("rightIndex on random, sparse and ultra-sparse blocks", "[indexing]") {
  const double sp = GENERATE(1.0, 0.1, 0.001);
  const bool as_sparse = GENERATE(false, true);
  const MatrixBlock a = random_block(203, 97, sp, seed_from("rightIndex"), -1, 1, as_sparse);
  TestContext t;
  t.set_matrix("X", a);
  struct R {
    int64_t rl, ru, cl, cu;
  };
  for (const R r : {R{1, 203, 1, 97}, R{17, 150, 3, 64}, R{203, 203, 97, 97}, R{5, 5, 1, 97},
                    R{1, 203, 50, 50}}) {
    t.run(right(r.rl, r.ru, r.cl, r.cu, "W·MATRIX·FP64"));
    const int64_t p = r.ru - r.rl + 1, q = r.cu - r.cl + 1;
    std::vector<double> ref;
    for (int64_t i = r.rl - 1; i < r.ru; ++i)
      for (int64_t j = r.cl - 1; j < r.cu; ++j) ref.push_back(a.get(i, j));
    const MatrixBlock& w = t.matrix("W");
    DMLRT_REQUIRE_CLOSE(w, p, q, ref);
    REQUIRE(w.is_sparse() == MatrixBlock::prefers_sparse(p, q, w.nnz()));
  }
}

TEST_CASE("rightIndex bounds errors name the range and the shape", "[indexing]") {
  TestContext t;
  t.set_matrix("X", x34(false));
  REQUIRE_THROWS_WITH(t.run(right(2, 5, 1, 4, "W·MATRIX·FP64")),
                      "rightIndex: rows 2:5 out of bounds for a 3x4 matrix");
  REQUIRE_THROWS_WITH(t.run(right(0, 2, 1, 4, "W·MATRIX·FP64")),
                      "rightIndex: rows 0:2 out of bounds for a 3x4 matrix");
  REQUIRE_THROWS_WITH(t.run(right(1, 2, 3, 7, "W·MATRIX·FP64")),
                      "rightIndex: columns 3:7 out of bounds for a 3x4 matrix");
  REQUIRE_THROWS_WITH(t.run(right(3, 2, 1, 4, "W·MATRIX·FP64")),
                      "rightIndex: rows 3:2 is an empty range (lower > upper) for a 3x4 matrix");
  REQUIRE_THROWS_WITH(t.run(right(1, 1, 4, 2, "W·MATRIX·FP64")),
                      "rightIndex: columns 4:2 is an empty range (lower > upper) for a 3x4 matrix");
  t.set_matrix("E", MatrixBlock::dense(0, 4));
  REQUIRE_THROWS_WITH(t.run("CP°rightIndex°E·MATRIX·FP64°" + lit(1) + "°" + lit(1) + "°" + lit(1) +
                            "°" + lit(1) + "°W·MATRIX·FP64"),
                      "rightIndex: rows 1:1 out of bounds for a 0x4 matrix");
  REQUIRE_THROWS_WITH(t.run("CP°rightIndex°X·MATRIX·FP64°1·SCALAR·INT64·true°W·MATRIX·FP64"),
                      Catch::Contains("rightindex expects 6 operand fields, got 3"));
  REQUIRE_THROWS_WITH(t.run("CP°rightIndex°X·MATRIX·FP64°A·MATRIX·FP64°" + lit(1) + "°" + lit(1) +
                            "°" + lit(1) + "°W·MATRIX·FP64"),
                      Catch::Contains("rightIndex expects scalar index bounds, got A·MATRIX·FP64"));
}

TEST_CASE("leftIndex with a matrix right-hand side", "[indexing]") {
  const bool sparse = GENERATE(false, true);
  const bool rhs_sparse = GENERATE(false, true);
  TestContext t;
  t.set_matrix("X", x34(sparse));
  t.set_matrix("B", rhs_sparse ? sparse_of(2, 2, {-1, 0, 0, -4}) : dense_of(2, 2, {-1, 0, 0, -4}));
  t.run(left("B·MATRIX·FP64", 2, 3, 2, 3));
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 4, {1, 2, 3, 4, 5, -1, 0, 8, 9, 0, -4, 12});
  // The input is not modified.
  DMLRT_REQUIRE_CLOSE(t.matrix("X"), x34(false));
  // Whole-matrix assignment.
  t.set_matrix("C", dense_of(3, 4, std::vector<double>(12, 7.0)));
  t.run(left("C·MATRIX·FP64", 1, 3, 1, 4));
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), dense_of(3, 4, std::vector<double>(12, 7.0)));
}

TEST_CASE("leftIndex with a scalar right-hand side (X[i,j] = s)", "[indexing]") {
  const bool sparse = GENERATE(false, true);
  TestContext t;
  t.set_matrix("X", x34(sparse));
  // SystemDS: CP leftIndex _mVar0 5.SCALAR.INT64.true 2 2 3 3 _mVar12
  t.run(left("5·SCALAR·INT64·true", 2, 2, 3, 3));
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 4, {1, 2, 3, 4, 5, 6, 5, 8, 9, 10, 11, 12});
  t.set_scalar("z", ScalarValue::fp64(0.0));
  t.run(left("z·SCALAR·FP64·false", 1, 1, 1, 1));
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 4, {0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  // A scalar over a range fills it.
  t.run(left("0.5·SCALAR·FP64·true", 1, 3, 4, 4));
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 4, {1, 2, 3, 0.5, 5, 6, 7, 0.5, 9, 10, 11, 0.5});
}

TEST_CASE("leftIndex on random sparse targets keeps the SystemDS format", "[indexing]") {
  const double sp = GENERATE(1.0, 0.1, 0.001);
  const double rhs_sp = GENERATE(1.0, 0.1, 0.0);
  const MatrixBlock a = random_block(150, 120, sp, seed_from("leftIndex"), -1, 1, sp < 1.0);
  const MatrixBlock b =
      random_block(31, 17, rhs_sp, seed_from("leftIndex rhs"), 2, 3, rhs_sp < 1.0);
  TestContext t;
  t.set_matrix("X", a);
  t.set_matrix("B", b);
  t.run(left("B·MATRIX·FP64", 40, 70, 104, 120));
  MatrixBlock ref = a.to_dense();
  for (int64_t i = 0; i < 31; ++i)
    for (int64_t j = 0; j < 17; ++j) ref.dense_values()[(39 + i) * 120 + 103 + j] = b.get(i, j);
  const MatrixBlock& y = t.matrix("Y");
  DMLRT_REQUIRE_CLOSE(y, ref);
  REQUIRE(y.is_sparse() == MatrixBlock::prefers_sparse(150, 120, y.nnz()));
}

TEST_CASE("leftIndex errors", "[indexing]") {
  TestContext t;
  t.set_matrix("X", x34(false));
  t.set_matrix("B", dense_of(3, 3, std::vector<double>(9, 1.0)));
  REQUIRE_THROWS_WITH(t.run(left("B·MATRIX·FP64", 1, 2, 1, 2)),
                      "leftIndex: the right-hand side is 3x3 but the target range [1:2, 1:2] of "
                      "the 3x4 matrix is 2x2");
  REQUIRE_THROWS_WITH(t.run(left("B·MATRIX·FP64", 2, 4, 1, 3)),
                      "leftIndex: rows 2:4 out of bounds for a 3x4 matrix");
  REQUIRE_THROWS_WITH(t.run(left("1·SCALAR·INT64·true", 1, 1, 5, 5)),
                      "leftIndex: columns 5:5 out of bounds for a 3x4 matrix");
  REQUIRE_THROWS_WITH(t.run("CP°leftIndex°X·MATRIX·FP64°B·MATRIX·FP64°" + lit(1) + "°" + lit(1) +
                            "°" + lit(1) + "°" + lit(1) + "°Y·SCALAR·FP64"),
                      Catch::Contains("leftIndex expects a matrix output"));
  REQUIRE_THROWS_AS(t.run("CP°leftIndex°X·MATRIX·FP64°B·MATRIX·FP64°Y·MATRIX·FP64"),
                    dmlrt::ParseError);
}
