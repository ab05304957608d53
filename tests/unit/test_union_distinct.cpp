// union_distinct (instructions/union_instructions.h): first-occurrence order, Java's Double.equals
// on cells (NaN equals NaN, -0.0 differs from 0.0), sparse inputs, and the column-count error.
#include <catch2/catch.hpp>
#include <cmath>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::test::dense_of;
using dmlrt::test::sparse_of;
using dmlrt::test::TestContext;

TEST_CASE("union_distinct keeps the first occurrence of each row", "[union_distinct]") {
  const double nan = std::nan("");
  TestContext t;
  t.set_matrix("A", dense_of(3, 2, {1, nan, 0.0, 2, 1, nan}));
  t.set_matrix("B", dense_of(3, 2, {-0.0, 2, 0, 0, 0.0, 2}));
  t.set_matrix("S", sparse_of(4, 2, {0, 0, 0, 2, 0, 0, 0, 2}));
  t.run("CP°union_distinct°A·MATRIX·FP64°B·MATRIX·FP64°U·MATRIX·FP64°2");
  const auto& u = t.matrix("U");
  REQUIRE(u.rows() == 4);  // (1,NaN) (0,2) (-0,2) (0,0)
  CHECK(u.get(0, 0) == 1.0);
  CHECK(std::isnan(u.get(0, 1)));
  CHECK(u.get(1, 1) == 2.0);
  CHECK(std::signbit(u.get(2, 0)));
  CHECK(u.get(3, 1) == 0.0);
  // a sparse input: its empty rows are rows of zeros
  t.run("CP°union_distinct°S·MATRIX·FP64°A·MATRIX·FP64°V·MATRIX·FP64°2");
  CHECK(t.matrix("V").rows() == 3);  // (0,0) (0,2) (1,NaN)
}

TEST_CASE("union_distinct needs equal column counts", "[union_distinct]") {
  TestContext t;
  t.set_matrix("A", dense_of(1, 2, {1, 2}));
  t.set_matrix("B", dense_of(1, 3, {1, 2, 3}));
  REQUIRE_THROWS_WITH(
      t.run("CP°union_distinct°A·MATRIX·FP64°B·MATRIX·FP64°U·MATRIX·FP64°2"),
      Catch::Matchers::Contains(
          "union_distinct: inputs need the same number of columns, got 1x2 and 1x3"));
}
