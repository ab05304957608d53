// Tests of order() (rsort), qsort and qpick (median, quantile) against SystemDS 3.4 runs:
// stable ties in both directions, index return, multi-column keys, SystemDS's averaging quantile
// pick for even lengths, dense and CSR inputs, and the error messages.
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
    t.set_matrix("X", dense_of(2, 1, {1, 2}));
    REQUIRE_THROWS_WITH(t.run("CP°qsort°X·MATRIX·FP64°X·MATRIX·FP64°S·MATRIX·FP64°2"),
                        Catch::Contains("qsort with weights (weighted median/quantile) is not "
                                        "supported"));
    t.set_matrix("X", dense_of(2, 2, {1, 2, 3, 4}));
    REQUIRE_THROWS_WITH(t.run(kSort), Catch::Contains("invalid input dimensions (2x2)"));
    t.set_matrix("X", dense_of(2, 1, {1, 2}));
    t.run(kSort);
    REQUIRE_THROWS_WITH(pick("1.5"), Catch::Contains("qpick: quantile must be in [0, 1], got 1.5"));
    t.set_matrix("S", MatrixBlock::dense(0, 1));
    REQUIRE_THROWS_WITH(pick("0.5"), Catch::Contains("qpick: quantile of an empty vector"));
    REQUIRE_THROWS_WITH(t.run("CP°qpick°S·MATRIX·FP64°m·SCALAR·FP64°IQM°true"),
                        Catch::Contains("qpick IQM is not supported"));
  }
}
