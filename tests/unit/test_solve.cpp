// Tests of solve(A, b): NumPy (numpy.linalg.solve) reference values, SystemDS's own example, dense
// and sparse operands, several right-hand sides, a pivoting case, and the shape/singular errors.
#include <catch2/catch.hpp>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::random_block;
using dmlrt::test::seed_from;
using dmlrt::test::sparse_of;
using dmlrt::test::TestContext;

namespace {
const char* kSolve = "CP°solve°A·MATRIX·FP64°b·MATRIX·FP64°x·MATRIX·FP64°2";
}

TEST_CASE("solve matches numpy.linalg.solve", "[solve]") {
  const bool sa = GENERATE(false, true);
  const bool sb = GENERATE(false, true);
  TestContext t;
  const std::vector<double> a = {4, -2, 1, 3, 6, -4, 2, 1, 8};
  t.set_matrix("A", sa ? sparse_of(3, 3, a) : dense_of(3, 3, a));
  SECTION("one right-hand side") {
    t.set_matrix("b", sb ? sparse_of(3, 1, {12, -25, 32}) : dense_of(3, 1, {12, -25, 32}));
    t.run(kSolve);
    DMLRT_REQUIRE_CLOSE(t.matrix("x"), 3, 1, {1.0, -1.9999999999999996, 4.000000000000001});
  }
  SECTION("two right-hand sides") {
    const std::vector<double> b = {1, 2, 0, 1, -1, 3};
    t.set_matrix("b", sb ? sparse_of(3, 2, b) : dense_of(3, 2, b));
    t.run("CP°solve°A·MATRIX·FP64°b·MATRIX·FP64°x·MATRIX·FP64");  // without k
    DMLRT_REQUIRE_CLOSE(t.matrix("x"), 3, 2,
                        {0.19011406844106465, 0.48288973384030415, -0.19391634980988592,
                         0.08745247148288975, -0.14828897338403044, 0.24334600760456276});
  }
}

TEST_CASE("solve: SystemDS example, pivoting, 1x1 and empty", "[solve]") {
  TestContext t;
  SECTION("SystemDS's run on A.csv/b.csv printed 0.953 0.196 1.109") {
    t.set_matrix(
        "A", dense_of(3, 3,
                      {4.1702200470257400e-01, 7.2032449344215810e-01, 1.1437481734488664e-04,
                       3.0233257263183977e-01, 1.4675589081711304e-01, 9.2338594768797799e-02,
                       1.8626021137767090e-01, 3.4556072704304774e-01, 3.9676747423066994e-01}));
    t.set_matrix("b", dense_of(3, 1, {0.538816734003357, 0.4191945144032948, 0.6852195003967595}));
    t.run(kSolve);
    DMLRT_REQUIRE_CLOSE(t.matrix("x"), 3, 1,
                        {0.9525624430196349, 0.19637040877332046, 1.1088033817214435}, 1e-9, 1e-8);
  }
  SECTION("a zero leading entry needs a row swap") {
    t.set_matrix("A", dense_of(2, 2, {0, 1, 1, 0}));
    t.set_matrix("b", dense_of(2, 1, {3, 4}));
    t.run(kSolve);
    DMLRT_REQUIRE_CLOSE(t.matrix("x"), 2, 1, {4, 3});
  }
  SECTION("1x1") {
    t.set_matrix("A", dense_of(1, 1, {-4}));
    t.set_matrix("b", dense_of(1, 1, {2}));
    t.run(kSolve);
    DMLRT_REQUIRE_CLOSE(t.matrix("x"), 1, 1, {-0.5});
  }
  SECTION("0x0") {
    t.set_matrix("A", MatrixBlock::dense(0, 0));
    t.set_matrix("b", MatrixBlock::dense(0, 1));
    t.run(kSolve);
    REQUIRE(t.matrix("x").rows() == 0);
    REQUIRE(t.matrix("x").cols() == 1);
  }
}

TEST_CASE("solve recovers x from A x on random well-conditioned systems", "[solve]") {
  const int64_t n = GENERATE(7, 64, 129);
  const double sp = GENERATE(1.0, 0.1);
  // Diagonally dominant A (condition number small), sparse off-diagonal part.
  MatrixBlock a = random_block(n, n, sp, seed_from("solve A") + n, -1, 1).to_dense();
  for (int64_t i = 0; i < n; ++i) a.dense_values()[i * n + i] = n;
  const MatrixBlock xt = random_block(n, 3, 1.0, seed_from("solve x") + n);
  MatrixBlock b = MatrixBlock::dense(n, 3, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      double s = 0;
      for (int64_t k = 0; k < n; ++k) s += a.get(i, k) * xt.get(k, j);
      b.dense_values()[i * 3 + j] = s;
    }
  TestContext t;
  t.set_matrix("A", sp < 1.0 ? a.to_sparse() : a);
  t.set_matrix("b", b);
  t.run(kSolve);
  DMLRT_REQUIRE_CLOSE(t.matrix("x"), xt, 1e-12, 1e-9);
}

TEST_CASE("solve errors", "[solve]") {
  TestContext t;
  SECTION("singular A (SystemDS: SingularMatrixException -- matrix is singular)") {
    const bool sparse = GENERATE(false, true);
    t.set_matrix("A", sparse ? MatrixBlock::empty_sparse(2, 2) : MatrixBlock::dense(2, 2, 0.0));
    t.set_matrix("b", dense_of(2, 1, {1, 2}));
    REQUIRE_THROWS_AS(t.run(kSolve), dmlrt::RuntimeError);
    REQUIRE_THROWS_WITH(t.run(kSolve),
                        "solve: matrix is singular: U(1,1) of the LU factorisation of the 2x2 A "
                        "is exactly zero");
    // Rank 2 of 3: the third pivot vanishes exactly.
    t.set_matrix("A", dense_of(3, 3, {1, 2, 3, 2, 4, 6, 1, 1, 1}));
    t.set_matrix("b", dense_of(3, 1, {1, 2, 3}));
    REQUIRE_THROWS_WITH(t.run(kSolve), Catch::Contains("solve: matrix is singular"));
  }
  SECTION("non-square A (SystemDS: should have squared dimensions)") {
    t.set_matrix("A", MatrixBlock::dense(5, 3, 1.0));
    t.set_matrix("b", MatrixBlock::dense(5, 1, 1.0));
    REQUIRE_THROWS_WITH(t.run(kSolve), "solve: A must be square, got 5x3");
  }
  SECTION("b rows differ (SystemDS: DimensionMismatchException 2 != 3)") {
    t.set_matrix("A", MatrixBlock::dense(3, 3, 1.0));
    t.set_matrix("b", MatrixBlock::dense(2, 1, 1.0));
    REQUIRE_THROWS_AS(t.run(kSolve), dmlrt::ShapeError);
    REQUIRE_THROWS_WITH(t.run(kSolve), "solve: A is 3x3 but b is 2x1 (row counts differ)");
  }
  SECTION("operands") {
    REQUIRE_THROWS_WITH(t.run("CP°solve°A·MATRIX·FP64°2·SCALAR·INT64·true°x·MATRIX·FP64°2"),
                        Catch::Contains("solve expects matrix operands, got 2·SCALAR·INT64·true"));
    REQUIRE_THROWS_AS(t.run("CP°solve°A·MATRIX·FP64°x·MATRIX·FP64"), dmlrt::ParseError);
  }
}
