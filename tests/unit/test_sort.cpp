// Tests of order() (rsort), qsort and qpick (median, quantile) against SystemDS 3.4 runs:
// stable ties in both directions, index return, multi-column keys, SystemDS's averaging quantile
// pick for even lengths, interQuartileMean, the weighted forms (SystemDS's (value, weight)
// table), dense and CSR inputs, and the error messages.
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

namespace {
std::string rsort(const char* by, const char* dec, const char* idx) {
  return std::string("CP°rsort°X·MATRIX·FP64°") + by + "°" + dec + "·SCALAR·BOOLEAN·true°" + idx +
         "·SCALAR·BOOLEAN·true°Y·MATRIX·FP64°2";
}
}  // namespace

TEST_CASE("rsort: SystemDS's order() on ties", "[sort]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  // s = (3,1,2,3,1,2); SystemDS 3.4 printed these orders.
  t.set_matrix("X", block_of(sp, 6, 1, {3, 1, 2, 3, 1, 2}));
  SECTION("decreasing, index.return: ties keep input order") {
    t.run(rsort("1·SCALAR·INT64·true", "true", "true"));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 6, 1, {1, 4, 3, 6, 2, 5});
  }
  SECTION("increasing, index.return") {
    t.run(rsort("1·SCALAR·INT64·true", "false", "true"));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 6, 1, {2, 5, 3, 6, 1, 4});
  }
  SECTION("decreasing rows of cbind(s, seq)") {
    t.set_matrix("X", block_of(sp, 6, 2, {3, 1, 1, 2, 2, 3, 3, 4, 1, 5, 2, 6}));
    t.run(rsort("1·SCALAR·INT64·true", "true", "false"));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 6, 2, {3, 1, 3, 4, 2, 3, 2, 6, 1, 2, 1, 5});
  }
  SECTION("two key columns from a matrix `by`") {
    t.set_matrix("X", block_of(sp, 4, 2, {1, 2, 0, 5, 1, 1, 0, 3}));
    t.set_matrix("b", dense_of(2, 1, {1, 2}));
    t.run("CP°rsort°X·MATRIX·FP64°b·MATRIX·FP64°false·SCALAR·BOOLEAN·true°false·SCALAR·BOOLEAN·"
          "true°Y·MATRIX·FP64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 4, 2, {0, 3, 0, 5, 1, 1, 1, 2});
  }
  SECTION("empty and 1x1") {
    t.set_matrix("X", MatrixBlock::dense(0, 2));
    t.run(rsort("1·SCALAR·INT64·true", "false", "false"));
    REQUIRE(t.matrix("Y").rows() == 0);
    t.set_matrix("X", dense_of(1, 1, {7}));
    t.run(rsort("1·SCALAR·INT64·true", "true", "true"));
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 1, 1, {1});
  }
  SECTION("column out of range") {
    REQUIRE_THROWS_WITH(t.run(rsort("2·SCALAR·INT64·true", "false", "false")),
                        Catch::Contains("rsort: sort column 2 is out of range [1, 1] of a 6x1 input"));
  }
}

TEST_CASE("qsort + qpick: median and quantile as SystemDS", "[sort]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  const char* kSort = "CP°qsort°X·MATRIX·FP64°S·MATRIX·FP64°2";
  auto pick = [&](const char* q) {
    t.run(std::string("CP°qpick°S·MATRIX·FP64°") + q + "·SCALAR·FP64·true°v·SCALAR·STRING°VALUEPICK°true");
    return t.scalar("v").to_double();
  };
  SECTION("even length: 4 1 3 2 (SystemDS: median 2.5, q.25 1.5, q.26 2.5)") {
    t.set_matrix("X", block_of(sp, 4, 1, {4, 1, 3, 2}));
    t.run(kSort);
    DMLRT_REQUIRE_CLOSE(t.matrix("S"), 4, 1, {1, 2, 3, 4});
    t.run("CP°qpick°S·MATRIX·FP64°m·SCALAR·STRING°MEDIAN°true");
    REQUIRE(t.scalar("m").to_double() == 2.5);
    REQUIRE(t.scalar("m").type() == dmlrt::inst::ValueType::kFP64);
    REQUIRE(pick("0.25") == 1.5);
    REQUIRE(pick("0.26") == 2.5);
    REQUIRE(pick("0.0") == 1.0);
    REQUIRE(pick("1.0") == 4.0);
  }
  SECTION("s = 3 1 2 3 1 2 and its first five (SystemDS: 2.0, 2.0, q0 1.0, q1 3.0)") {
    t.set_matrix("X", block_of(sp, 6, 1, {3, 1, 2, 3, 1, 2}));
    t.run(kSort);
    t.run("CP°qpick°S·MATRIX·FP64°m·SCALAR·FP64°MEDIAN°true");
    REQUIRE(t.scalar("m").to_double() == 2.0);
    REQUIRE(pick("0.4") == 2.0);
    REQUIRE(pick("0.0") == 1.0);
    REQUIRE(pick("1.0") == 3.0);
    t.set_matrix("X", block_of(sp, 5, 1, {3, 1, 2, 3, 1}));
    t.run(kSort);
    t.run("CP°qpick°S·MATRIX·FP64°m·SCALAR·FP64°MEDIAN°true");
    REQUIRE(t.scalar("m").to_double() == 2.0);
  }
  SECTION("several quantiles at once (RANGEPICK with a matrix)") {
    t.set_matrix("X", block_of(sp, 5, 1, {0, 5, 0, -1, 2}));
    t.run(kSort);
    DMLRT_REQUIRE_CLOSE(t.matrix("S"), 5, 1, {-1, 0, 0, 2, 5});
    t.set_matrix("q", dense_of(3, 1, {0.2, 0.5, 0.9}));
    t.run("CP°qpick°S·MATRIX·FP64°q·MATRIX·FP64°R·MATRIX·FP64°RANGEPICK°true");
    DMLRT_REQUIRE_CLOSE(t.matrix("R"), 3, 1, {-1, 0, 5});
  }
  SECTION("errors: weights, matrix input, quantile range, empty") {
    t.set_matrix("X", dense_of(2, 2, {1, 2, 3, 4}));
    REQUIRE_THROWS_WITH(t.run(kSort), Catch::Contains("invalid input dimensions (2x2)"));
    t.set_matrix("X", dense_of(2, 1, {1, 2}));
    t.run(kSort);
    REQUIRE_THROWS_WITH(pick("1.5"), Catch::Contains("qpick: quantile must be in [0, 1], got 1.5"));
    t.set_matrix("S", MatrixBlock::dense(0, 1));
    REQUIRE_THROWS_WITH(pick("0.5"), Catch::Contains("qpick: quantile of an empty vector"));
    REQUIRE_THROWS_WITH(t.run("CP°qpick°S·MATRIX·FP64°m·SCALAR·FP64°IQM°true"),
                        Catch::Contains("qpick IQM: interquartile mean of an empty vector"));
  }
  SECTION("zeros share one row in SystemDS's table: median(0 0 0 1 2 3) is 0, not 0.5") {
    t.set_matrix("X", block_of(sp, 6, 1, {0, 0, 0, 1, 2, 3}));
    t.run(kSort);
    t.run("CP°qpick°S·MATRIX·FP64°m·SCALAR·FP64°MEDIAN°true");
    REQUIRE(t.scalar("m").to_double() == 0.0);
  }
}

namespace {
// X (11 values: ties, duplicates, zeros) and integer weights W with a 0: the inputs of the
// conformance case sort_iqm_weighted, whose SystemDS 3.4 results the tests below repeat.
const std::vector<double> kX = {3.5, 1, 0, 7.25, 3.5, -2, 3.5, 0, 9, 4.75, 1};
const std::vector<double> kW = {2, 1, 3, 1, 0, 4, 1, 2, 1, 3, 2};

std::vector<double> head(const std::vector<double>& v, size_t n) {
  return std::vector<double>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
}

double iqm(TestContext& t, const MatrixBlock& x) {
  t.set_matrix("X", x);
  t.run("CP°qsort°X·MATRIX·FP64°S·MATRIX·FP64°2");
  t.run("CP°qpick°S·MATRIX·FP64°v·SCALAR·FP64°IQM°true");
  return t.scalar("v").to_double();
}
}  // namespace

TEST_CASE("qpick IQM: SystemDS's interQuartileMean with fractional quartile positions", "[sort]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  CHECK(iqm(t, block_of(sp, 11, 1, kX)) == Approx(2.4886363636363638).epsilon(1e-15));
  CHECK(iqm(t, block_of(sp, 9, 1, head(kX, 9))) == Approx(2.361111111111111).epsilon(1e-15));
  CHECK(iqm(t, block_of(sp, 7, 1, head(kX, 7))) == Approx(2.5357142857142856).epsilon(1e-15));
  CHECK(iqm(t, block_of(sp, 6, 1, {0, 0, 0, 1, 2, 3})) == Approx(0.6666666666666666));
  CHECK(iqm(t, block_of(sp, 4, 1, {4, 1, 3, 2})) == 2.5);
  CHECK(iqm(t, block_of(sp, 1, 1, {7})) == 7.0);
}

TEST_CASE("weighted qsort + qpick: median, quantiles and IQM as SystemDS", "[sort]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  auto sort = [&](size_t n) {
    t.set_matrix("X", block_of(sp, static_cast<int64_t>(n), 1, head(kX, n)));
    t.set_matrix("W", block_of(sp, static_cast<int64_t>(n), 1, head(kW, n)));
    t.run("CP°qsort°X·MATRIX·FP64°W·MATRIX·FP64°S·MATRIX·FP64°2");
  };
  auto scalar_pick = [&](const char* type) {
    t.run(std::string("CP°qpick°S·MATRIX·FP64°v·SCALAR·FP64°") + type + "°true");
    return t.scalar("v").to_double();
  };
  SECTION("the (value, weight) table: zeros in one row, zero weights kept") {
    sort(5);  // 3.5:2 1:1 0:3 7.25:1 3.5:0
    DMLRT_REQUIRE_CLOSE(t.matrix("S"), 5, 2, {0, 3, 1, 1, 3.5, 2, 3.5, 0, 7.25, 1});
  }
  SECTION("all 11 and the first 9") {
    sort(11);
    CHECK(scalar_pick("IQM") == Approx(1.35).epsilon(1e-15));
    CHECK(scalar_pick("MEDIAN") == 1.0);
    t.run("CP°qpick°S·MATRIX·FP64°0.3·SCALAR·FP64·true°v·SCALAR·FP64°VALUEPICK°true");
    CHECK(t.scalar("v").to_double() == 0.0);
    t.set_matrix("P", dense_of(5, 1, {0.1, 0.25, 0.5, 0.75, 0.9}));
    t.run("CP°qpick°S·MATRIX·FP64°P·MATRIX·FP64°Q·MATRIX·FP64°VALUEPICK°true");
    DMLRT_REQUIRE_CLOSE(t.matrix("Q"), 5, 1, {-2, 0, 1, 3.5, 4.75});
    sort(9);
    CHECK(scalar_pick("IQM") == Approx(0.65).epsilon(1e-15));
    CHECK(scalar_pick("MEDIAN") == 0.0);
    t.run("CP°qpick°S·MATRIX·FP64°0.8·SCALAR·FP64·true°v·SCALAR·FP64°VALUEPICK°true");
    CHECK(t.scalar("v").to_double() == 3.5);
    t.run("CP°qpick°S·MATRIX·FP64°P·MATRIX·FP64°Q·MATRIX·FP64°VALUEPICK°true");
    DMLRT_REQUIRE_CLOSE(t.matrix("Q"), 5, 1, {-2, -2, 0, 3.5, 7.25});
  }
  SECTION("errors: weight shape, non-integer weights, zero total weight, table shape") {
    t.set_matrix("X", dense_of(2, 1, {1, 2}));
    t.set_matrix("W", dense_of(3, 1, {1, 1, 1}));
    REQUIRE_THROWS_WITH(t.run("CP°qsort°X·MATRIX·FP64°W·MATRIX·FP64°S·MATRIX·FP64°2"),
                        Catch::Contains("qsort: invalid weight dimensions (3x1) for 2x1 values, "
                                        "expected 2x1"));
    t.set_matrix("W", dense_of(2, 1, {1, 0.5}));
    t.run("CP°qsort°X·MATRIX·FP64°W·MATRIX·FP64°S·MATRIX·FP64°2");
    REQUIRE_THROWS_WITH(scalar_pick("MEDIAN"),
                        Catch::Contains("qpick: weights must be integers, got 0.5 in row 3"));
    REQUIRE_THROWS_WITH(scalar_pick("IQM"),
                        Catch::Contains("qpick IQM: weights must be integers, got 0.5 in row 3"));
    t.set_matrix("W", dense_of(2, 1, {0, 0}));
    t.run("CP°qsort°X·MATRIX·FP64°W·MATRIX·FP64°S·MATRIX·FP64°2");
    REQUIRE_THROWS_WITH(scalar_pick("MEDIAN"),
                        Catch::Contains("qpick: quantile of a table with total weight 0"));
    REQUIRE_THROWS_WITH(scalar_pick("IQM"),
                        Catch::Contains("qpick IQM: interquartile mean of a table with total "
                                        "weight 0"));
    t.set_matrix("S", dense_of(1, 3, {1, 2, 3}));
    REQUIRE_THROWS_WITH(scalar_pick("IQM"),
                        Catch::Contains("qpick: expects qsort's output (m x 1, or m x 2 with "
                                        "weights), got 1x3"));
    REQUIRE_THROWS_WITH(t.run("CP°qsort°X·MATRIX·FP64°W·MATRIX·FP64°S·MATRIX·FP64°T·MATRIX·FP64"),
                        Catch::Contains("qsort takes `values[°weights]°out[°k]`"));
    REQUIRE_THROWS_WITH(t.run("CP°qsort°X·MATRIX·FP64°1·SCALAR·FP64·true°S·MATRIX·FP64°2"),
                        Catch::Contains("qsort needs matrix values, weights and output"));
  }
}
