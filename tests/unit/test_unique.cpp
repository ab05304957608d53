// Tests of unique, uniquer and uniquec against SystemDS 3.4 runs: the order of its
// HashSet<Double> (buckets by hash, a resize past 12 values), per-row/column sets padded with
// zeros, NaN as one value, dense and CSR inputs, and the parse error.
#include <catch2/catch.hpp>
#include <cmath>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::test::block_of;
using dmlrt::test::dense_of;
using dmlrt::test::TestContext;

TEST_CASE("unique, uniquer, uniquec: SystemDS's values in its HashSet order", "[unique]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  // A = matrix("3 1 3 0 2.5 1 1000000 -7 0", rows=3, cols=3); SystemDS 3.4 printed these.
  t.set_matrix("X", block_of(sp, 3, 3, {3, 1, 3, 0, 2.5, 1, 1000000, -7, 0}));
  SECTION("unique") {
    t.run("CP°unique°X·MATRIX·FP64°U·MATRIX·FP64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("U"), 6, 1, {1, 0, 2.5, 3, -7, 1000000});
  }
  SECTION("uniquer: each row's values, zero-padded") {
    t.run("CP°uniquer°X·MATRIX·FP64°U·MATRIX·FP64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("U"), 3, 3, {1, 3, 0, 0, 1, 2.5, 0, -7, 1000000});
  }
  SECTION("uniquec: each column's values, zero-padded") {
    t.run("CP°uniquec°X·MATRIX·FP64°U·MATRIX·FP64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("U"), 3, 3, {0, 1, 1, 3, 2.5, 0, 1000000, -7, 3});
  }
  SECTION("20 values: the order after a resize") {
    std::vector<double> b;
    for (int i = 1; i <= 20; ++i) b.push_back(i * 0.1);  // seq(1, 20) * 0.1
    t.set_matrix("X", block_of(sp, 20, 1, b));
    t.run("CP°unique°X·MATRIX·FP64°U·MATRIX·FP64°2");
    std::vector<double> want;
    for (int i : {5, 20, 7, 9, 1, 4, 16, 3, 12, 11, 17, 10, 14, 18, 2, 8, 6, 15, 13, 19})
      want.push_back(i * 0.1);
    DMLRT_REQUIRE_CLOSE(t.matrix("U"), 20, 1, want);
  }
  SECTION("NaN is one value") {
    t.set_matrix("X", dense_of(4, 1, {NAN, NAN, 1, NAN}));
    t.run("CP°unique°X·MATRIX·FP64°U·MATRIX·FP64°2");
    REQUIRE(t.matrix("U").rows() == 2);
    REQUIRE(t.matrix("U").get(0, 0) == 1.0);
    REQUIRE(std::isnan(t.matrix("U").get(1, 0)));
  }
  SECTION("empty input") {
    t.set_matrix("X", dmlrt::kernels::MatrixBlock::dense(0, 3));
    t.run("CP°uniquer°X·MATRIX·FP64°U·MATRIX·FP64°2");
    REQUIRE(t.matrix("U").rows() == 0);
  }
  SECTION("a scalar operand is a parse error") {
    REQUIRE_THROWS_WITH(t.run("CP°unique°1·SCALAR·FP64·true°U·MATRIX·FP64°2"),
                        Catch::Contains("unique needs a matrix input and output"));
  }
}
