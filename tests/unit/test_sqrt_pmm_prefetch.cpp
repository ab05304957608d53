// Tests of sqrt_matrix_java (sqrtMatrix(A, "COMMON"): B*B = A for symmetric positive definite A,
// SystemDS 3.4's value for a 3x3), pmm (the permutation matrix multiply) and prefetch (an alias),
// with their error messages.
#include <catch2/catch.hpp>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::test::block_of;
using dmlrt::test::dense_of;
using dmlrt::test::TestContext;

TEST_CASE("sqrt_matrix_java: the principal root and its errors", "[linalg]") {
  TestContext t;
  const bool sp = GENERATE(false, true);
  t.set_matrix("A", block_of(sp, 3, 3, {4, 1, 0, 1, 3, 1, 0, 1, 2}));
  t.run("CP°sqrt_matrix_java°A·MATRIX·FP64°B·MATRIX·FP64°2");
  // SystemDS 3.4 printed 1.981 0.276 -0.027 / 0.276 1.678 0.330 / -0.027 0.330 1.375.
  const auto& b = t.matrix("B");
  CHECK(std::abs(b.get(0, 0) - 1.981) < 5e-4);
  CHECK(std::abs(b.get(1, 2) - 0.330) < 5e-4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += b.get(i, k) * b.get(k, j);
      CHECK(std::abs(s - t.matrix("A").get(i, j)) < 1e-12);
    }
  t.set_matrix("N", dense_of(2, 2, {1, 2, 2, 1}));
  CHECK_THROWS_WITH(t.run("CP°sqrt_matrix_java°N·MATRIX·FP64°B·MATRIX·FP64°2"),
                    Catch::Contains("sqrtMatrixJava: the matrix has the eigenvalue -1 <= 0"));
  t.set_matrix("U", dense_of(2, 2, {2, 1, 0, 2}));
  CHECK_THROWS_WITH(t.run("CP°sqrt_matrix_java°U·MATRIX·FP64°B·MATRIX·FP64°2"),
                    Catch::Contains("sqrtMatrixJava: the matrix is not symmetric (cells (1,2) "
                                    "and (2,1) differ)"));
  t.set_matrix("R", dense_of(2, 3, {1, 2, 3, 4, 5, 6}));
  CHECK_THROWS_WITH(t.run("CP°sqrt_matrix_java°R·MATRIX·FP64°B·MATRIX·FP64°2"),
                    Catch::Contains("sqrt_matrix_java: expects a square matrix, got 2x3"));
}

TEST_CASE("pmm: rows of X to the rows P names, zeros dropped", "[matmult]") {
  TestContext t;
  const bool sp = GENERATE(false, true);
  t.set_matrix("P", dense_of(4, 1, {3, 0, 1, 2}));
  t.set_matrix("X", block_of(sp, 4, 2, {1, 2, 0, 4, 5, 0, 7, 8}));
  t.set_scalar("n", dmlrt::inst::ScalarValue::int64(4));
  t.run("CP°pmm°P·MATRIX·FP64°X·MATRIX·FP64°n·SCALAR·INT64°Y·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 4, 2, {5, 0, 7, 8, 1, 2, 0, 0});
  CHECK_THROWS_WITH(t.run("CP°pmm°P·MATRIX·FP64°X·MATRIX·FP64°2·SCALAR·INT64·true°Y·MATRIX·FP64°2"),
                    Catch::Contains("pmm: permutation entry 3 of row 1 is outside the output's "
                                    "rows 1..2"));
  t.set_matrix("Q", dense_of(3, 1, {1, 2, 3}));
  CHECK_THROWS_WITH(t.run("CP°pmm°Q·MATRIX·FP64°X·MATRIX·FP64°n·SCALAR·INT64°Y·MATRIX·FP64°2"),
                    Catch::Contains("pmm: expects a column vector with a row per matrix row, got "
                                    "3x1 and 4x2"));
}

TEST_CASE("prefetch binds the same matrix", "[variables]") {
  TestContext t;
  t.set_matrix("X", dense_of(2, 2, {1, 2, 3, 4}));
  t.run("CP°prefetch°X·MATRIX·FP64°Y·MATRIX·FP64");
  CHECK(t.matrix("Y").equals(t.matrix("X")));
  CHECK_THROWS_WITH(t.run("CP°prefetch°1·SCALAR·FP64·true°Y·MATRIX·FP64"),
                    Catch::Contains("prefetch needs a matrix input and output"));
}
