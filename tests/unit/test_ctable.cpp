// Tests of table(): ctable (two id vectors, weights, given or data-sized dims) and ctableexpand
// (table(seq(1, m), v)), with SystemDS 3.4 results and its error messages.
#include <catch2/catch.hpp>

#include <limits>

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
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST_CASE("ctableexpand: SystemDS's table(seq(1, 5), v)", "[ctable]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  t.set_matrix("v", block_of(sp, 5, 1, {2, 1.7, 3, 5, 1}));
  SECTION("data-sized: 5x5") {
    t.run("CP°ctableexpand°seq(1, 5)·SCALAR·STRING·true°v·MATRIX·FP64°1.0·SCALAR·FP64·true°-1·"
          "true°-1·true°T·MATRIX·FP64°false°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("T"), 5, 5, {0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0,
                                              0, 0, 0, 0, 1, 1, 0, 0, 0, 0});
  }
  SECTION("given width 3 drops v=5; weight 2.5") {
    t.run("CP°ctableexpand°seq(1, 5)·SCALAR·STRING·true°v·MATRIX·FP64°2.5·SCALAR·FP64·true°5·"
          "true°3·true°T·MATRIX·FP64°false°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("T"), 5, 3, {0, 2.5, 0, 2.5, 0, 0, 0, 0, 2.5, 0, 0, 0, 2.5, 0, 0});
  }
  SECTION("sequence on the right: table(v, seq(1, 5))") {
    t.run("CP°ctableexpand°v·MATRIX·FP64°seq(1, 5)·SCALAR·STRING·true°1.0·SCALAR·FP64·true°3·"
          "true°-1·true°T·MATRIX·FP64°false");
    DMLRT_REQUIRE_CLOSE(t.matrix("T"), 3, 5, {0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0});
  }
  SECTION("zero value (SystemDS: value <= zero) and length mismatch") {
    t.set_matrix("z", block_of(sp, 4, 1, {2, 0, 3, 1}));
    REQUIRE_THROWS_WITH(
        t.run("CP°ctableexpand°seq(1, 4)·SCALAR·STRING·true°z·MATRIX·FP64°1.0·SCALAR·FP64·true°-1"
              "·true°-1·true°T·MATRIX·FP64°false°2"),
        Catch::Contains("erroneous input while computing the contingency table (value <= zero): 0"));
    REQUIRE_THROWS_WITH(
        t.run("CP°ctableexpand°seq(1, 4)·SCALAR·STRING·true°v·MATRIX·FP64°1.0·SCALAR·FP64·true°-1"
              "·true°-1·true°T·MATRIX·FP64°false°2"),
        Catch::Contains("invalid input sizes for table(seq(1, 4), v): v is 5x1"));
  }
  SECTION("seq(1, -1): a plan with unknown nrow(v) uses v's rows") {
    t.run("CP°ctableexpand°seq(1, -1)·SCALAR·STRING·true°v·MATRIX·FP64°1.0·SCALAR·FP64·true°-1·"
          "true°-1·true°T·MATRIX·FP64°false°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("T"), 5, 5, {0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0,
                                              0, 0, 0, 0, 1, 1, 0, 0, 0, 0});
    t.run("CP°ctableexpand°v·MATRIX·FP64°seq(1, -1)·SCALAR·STRING·true°1.0·SCALAR·FP64·true°-1·"
          "true°-1·true°T·MATRIX·FP64°false");
    DMLRT_REQUIRE_CLOSE(t.matrix("T"), 5, 5, {0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0,
                                              0, 0, 0, 0, 0, 0, 0, 0, 1, 0});
  }
  SECTION("NaN is skipped") {
    t.set_matrix("n", dense_of(2, 1, {kNaN, 2}));
    t.run("CP°ctableexpand°seq(1, 2)·SCALAR·STRING·true°n·MATRIX·FP64°1.0·SCALAR·FP64·true°-1"
          "·true°-1·true°T·MATRIX·FP64°false°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("T"), 2, 2, {0, 0, 0, 1});
  }
}

TEST_CASE("ctable: counts, weights, dims, NaN and errors", "[ctable]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  t.set_matrix("A", block_of(sp, 4, 1, {1, 2, 2, 3}));
  t.set_matrix("B", block_of(sp, 4, 1, {1, 3, 3, 2}));
  SECTION("counts, data-sized") {
    t.run("CP°ctable°A·MATRIX·FP64°B·MATRIX·FP64°1.0·SCALAR·FP64·true°-1·true°-1·true°T·MATRIX·"
          "FP64°false°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("T"), 3, 3, {1, 0, 0, 0, 0, 2, 0, 1, 0});
  }
  SECTION("matrix weights, dims from variables drop row 3") {
    t.set_matrix("W", block_of(sp, 4, 1, {0.5, 1, 2, 7}));
    t.set_scalar("N", ScalarValue::int64(2));
    t.set_scalar("K", ScalarValue::int64(4));
    t.run("CP°ctable°A·MATRIX·FP64°B·MATRIX·FP64°W·MATRIX·FP64°N·false°K·false°T·MATRIX·FP64°"
          "false°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("T"), 2, 4, {0.5, 0, 0, 0, 0, 0, 3, 0});
  }
  SECTION("scalar second input") {
    t.run("CP°ctable°A·MATRIX·FP64°2·SCALAR·FP64·true°1.0·SCALAR·FP64·true°-1·true°-1·true°T·"
          "MATRIX·FP64°false");
    DMLRT_REQUIRE_CLOSE(t.matrix("T"), 3, 2, {0, 1, 0, 2, 0, 1});
  }
  SECTION("NaN skipped, zeros an error unless both are zero and ignored") {
    t.set_matrix("C", dense_of(3, 1, {0, kNaN, 1}));
    t.set_matrix("D", dense_of(3, 1, {0, 1, 1}));
    REQUIRE_THROWS_WITH(
        t.run("CP°ctable°C·MATRIX·FP64°D·MATRIX·FP64°1.0·SCALAR·FP64·true°-1·true°-1·true°T·"
              "MATRIX·FP64°false°2"),
        Catch::Contains("(one of the value <= zero): 0 0"));
    t.run("CP°ctable°C·MATRIX·FP64°D·MATRIX·FP64°1.0·SCALAR·FP64·true°-1·true°-1·true°T·MATRIX·"
          "FP64°true°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("T"), 1, 1, {1});
  }
  SECTION("shape mismatch and field count") {
    t.set_matrix("C", dense_of(3, 1, {1, 1, 1}));
    REQUIRE_THROWS_WITH(
        t.run("CP°ctable°A·MATRIX·FP64°C·MATRIX·FP64°1.0·SCALAR·FP64·true°-1·true°-1·true°T·"
              "MATRIX·FP64°false°2"),
        Catch::Contains("ctable: inputs must have the same dimensions, got 4x1 and 3x1"));
    REQUIRE_THROWS_WITH(t.run("CP°ctable°A·MATRIX·FP64°B·MATRIX·FP64°T·MATRIX·FP64"),
                        Catch::Contains("ctable expects 7 to 8 operand fields, got 3"));
  }
  SECTION("a (1, n) first input pairs with an (n, 1) column vector (km's table(Is, seq(1, n)))") {
    // SystemDS reads the column vector by dense linear position: cell (0, j) is its row j.
    t.set_matrix("R", dense_of(1, 3, {3, 1, 2}));
    t.set_matrix("S", dense_of(3, 1, {1, 2, 3}));
    t.run("CP°ctable°R·MATRIX·FP64°S·MATRIX·FP64°1.0·SCALAR·FP64·true°4·true°3·true°T·MATRIX·"
          "FP64°false°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("T"), 4, 3, {0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0});
    // the other way round, and (n, 1) with (1, m != n), stay shape errors
    REQUIRE_THROWS_WITH(
        t.run("CP°ctable°S·MATRIX·FP64°R·MATRIX·FP64°1.0·SCALAR·FP64·true°-1·true°-1·true°T·"
              "MATRIX·FP64°false°2"),
        Catch::Contains("ctable: inputs must have the same dimensions, got 3x1 and 1x3"));
    t.set_matrix("Q", dense_of(2, 1, {1, 2}));
    REQUIRE_THROWS_WITH(
        t.run("CP°ctable°R·MATRIX·FP64°Q·MATRIX·FP64°1.0·SCALAR·FP64·true°-1·true°-1·true°T·"
              "MATRIX·FP64°false°2"),
        Catch::Contains("ctable: inputs must have the same dimensions, got 1x3 and 2x1"));
  }
  SECTION("empty inputs give a 0x0 table") {
    t.set_matrix("E", MatrixBlock::dense(0, 1));
    t.run("CP°ctable°E·MATRIX·FP64°E·MATRIX·FP64°1.0·SCALAR·FP64·true°-1·true°-1·true°T·MATRIX·"
          "FP64°false°2");
    REQUIRE(t.matrix("T").rows() == 0);
    REQUIRE(t.matrix("T").cols() == 0);
  }
}

TEST_CASE("ctable ids go through SystemDS's UtilFunctions.toLong", "[ctable]") {
  TestContext t;
  // signum(v) * floor(|v| + 2^-53): 2.9999999999999996 stays id 2 (the epsilon is below its ulp),
  // 1.5 is id 1, and -0.5 truncates to 0 (an error).
  t.set_matrix("A", dense_of(2, 1, {2.9999999999999996, 1.5}));
  t.set_matrix("B", dense_of(2, 1, {1, 1}));
  t.run("CP°ctable°A·MATRIX·FP64°B·MATRIX·FP64°1.0·SCALAR·FP64·true°-1·true°-1·true°T·MATRIX·"
        "FP64°false°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("T"), 2, 1, {1, 1});
  t.set_matrix("A", dense_of(1, 1, {-0.5}));
  t.set_matrix("B", dense_of(1, 1, {1}));
  REQUIRE_THROWS_WITH(
      t.run("CP°ctable°A·MATRIX·FP64°B·MATRIX·FP64°1.0·SCALAR·FP64·true°-1·true°-1·true°T·MATRIX·"
            "FP64°false°2"),
      Catch::Contains("(one of the value <= zero): -0.5 1"));
}
