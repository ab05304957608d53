// Tests of cov, cm, tak+* and tack+*: values by hand / NumPy (np.cov, weighted formulas) and
// SystemDS 3.4 (cov of (3,1,2,3,1,2) and 1..6 printed -0.4), dense and CSR, errors.
#include <catch2/catch.hpp>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::inst::ScalarValue;
using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::sparse_of;
using dmlrt::test::TestContext;
using dmlrt::test::block_of;

TEST_CASE("cov and cm", "[stats]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  SECTION("SystemDS: cov(s, seq(1,6)) = -0.4, declared STRING output stays FP64") {
    t.set_matrix("x", block_of(sp, 6, 1, {3, 1, 2, 3, 1, 2}));
    t.set_matrix("y", block_of(sp, 6, 1, {1, 2, 3, 4, 5, 6}));
    t.run("CP°cov°x·MATRIX·FP64°y·MATRIX·FP64°c·SCALAR·STRING°2");
    REQUIRE(t.scalar("c").type() == dmlrt::inst::ValueType::kFP64);
    REQUIRE(t.scalar("c").to_double() == Approx(-0.4).epsilon(1e-14));
  }
  SECTION("np.cov and the weighted form") {
    t.set_matrix("x", block_of(sp, 4, 1, {1, 2, 4, 7}));
    t.set_matrix("y", block_of(sp, 4, 1, {2, 1, 5, 3}));
    t.set_matrix("w", dense_of(4, 1, {1, 2, 1, 3}));
    t.run("CP°cov°x·MATRIX·FP64°y·MATRIX·FP64°c·SCALAR·FP64°2");
    REQUIRE(t.scalar("c").to_double() == Approx(2.1666666666666665).epsilon(1e-14));
    t.run("CP°cov°x·MATRIX·FP64°y·MATRIX·FP64°w·MATRIX·FP64°c·SCALAR·FP64°2");
    REQUIRE(t.scalar("c").to_double() == Approx(1.9761904761904763).epsilon(1e-14));
    t.run("CP°cm°x·MATRIX·FP64°2·SCALAR·INT64·true°m·SCALAR·FP64°2");
    REQUIRE(t.scalar("m").to_double() == Approx(5.25).epsilon(1e-14));
    t.run("CP°cm°x·MATRIX·FP64°3·SCALAR·INT64·true°m·SCALAR·FP64");
    REQUIRE(t.scalar("m").to_double() == Approx(6.0).epsilon(1e-14));
  }
  SECTION("errors") {
    t.set_matrix("x", dense_of(2, 2, {1, 2, 3, 4}));
    t.set_matrix("y", dense_of(3, 1, {1, 2, 3}));
    t.set_matrix("z", dense_of(2, 1, {1, 2}));
    REQUIRE_THROWS_WITH(t.run("CP°cov°x·MATRIX·FP64°y·MATRIX·FP64°c·SCALAR·FP64°2"),
                        Catch::Contains("cov: covariance can be computed only on 1-dimensional "
                                        "column matrices, got 2x2"));
    REQUIRE_THROWS_WITH(t.run("CP°cov°z·MATRIX·FP64°y·MATRIX·FP64°c·SCALAR·FP64°2"),
                        Catch::Contains("cov: the second input must be a column vector of 2 rows, "
                                        "got 3x1"));
    REQUIRE_THROWS_WITH(t.run("CP°cm°z·MATRIX·FP64°5·SCALAR·INT64·true°m·SCALAR·FP64°2"),
                        Catch::Contains("cm: order must be 0 (mean), 2, 3 or 4, got 5"));
  }
}

TEST_CASE("tak+* and tack+*: sums of A*B*C", "[stats]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  t.set_matrix("A", block_of(sp, 2, 3, {1, 0, 2, -1, 3, 0}));
  t.set_matrix("B", block_of(sp, 2, 3, {2, 5, 1, 1, 1, 4}));
  t.set_matrix("C", block_of(sp, 2, 3, {1, 1, 3, 2, -1, 1}));
  t.run("CP°tak+*°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°s·SCALAR·FP64°2");
  REQUIRE(t.scalar("s").to_double() == 2 + 6 - 2 - 3);
  t.run("CP°tack+*°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°R·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("R"), 1, 3, {0, -3, 6});
  t.run("CP°tak+*°A·MATRIX·FP64°B·MATRIX·FP64°2·SCALAR·FP64·true°s·SCALAR·FP64");
  REQUIRE(t.scalar("s").to_double() == 2 * (2 + 2 - 1 + 3));
  t.set_matrix("E", MatrixBlock::dense(0, 3));
  t.run("CP°tack+*°E·MATRIX·FP64°E·MATRIX·FP64°E·MATRIX·FP64°R·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("R"), 1, 3, {0, 0, 0});
  t.set_matrix("D", dense_of(3, 2, {1, 2, 3, 4, 5, 6}));
  REQUIRE_THROWS_WITH(
      t.run("CP°tak+*°A·MATRIX·FP64°D·MATRIX·FP64°C·MATRIX·FP64°s·SCALAR·FP64°2"),
      Catch::Contains("tak+*: inputs must have the same dimensions, got 2x3 and 3x2"));
  REQUIRE_THROWS_WITH(t.run("CP°tack+*°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°s·SCALAR·FP64°2"),
                      Catch::Contains("tack+* output must be a MATRIX"));
}
