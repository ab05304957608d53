// Tests of uacd, uacdr, uacdc and the approximate uacdap* (values from SystemDS 3.4 runs of
// countDistinct / rowCountDistinct / countDistinctApprox): dense and CSR inputs (a sparse row
// counts only its stored values, as SystemDS), the (1, 1) [1] of an empty input, Java Double
// equality (NaN one value, -0.0 apart from 0.0), and the parse errors. The KMV estimate past 1024
// non-zeros is pinned by the conformance case count_distinct.
#include <catch2/catch.hpp>
#include <cmath>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::test::block_of;
using dmlrt::test::dense_of;
using dmlrt::test::TestContext;

TEST_CASE("countDistinct: whole, per row, per column", "[count_distinct]") {
  TestContext t;
  // X = matrix("1 2 2 0 3 3 3 1 0 0 5 6", rows=4, cols=3): SystemDS prints 6, rows 2 2 3 3,
  // columns 3 4 4.
  t.set_matrix("X", dense_of(4, 3, {1, 2, 2, 0, 3, 3, 3, 1, 0, 0, 5, 6}));
  SECTION("uacd and uacdap: a scalar") {
    t.run("CP°uacd°X·MATRIX·FP64°n·SCALAR·INT64°2");
    CHECK(t.scalar("n").to_int() == 6);
    t.run("CP°uacdap°X·MATRIX·FP64°m·SCALAR·INT64°2");
    CHECK(t.scalar("m").to_int() == 6);
  }
  SECTION("uacdr, uacdapr") {
    t.run("CP°uacdr°X·MATRIX·FP64°R·MATRIX·INT64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("R"), 4, 1, {2, 2, 3, 3});
    t.run("CP°uacdapr°X·MATRIX·FP64°R·MATRIX·UNKNOWN°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("R"), 4, 1, {2, 2, 3, 3});
  }
  SECTION("uacdc (SystemDS compiles uacdapc for it), uacdapc") {
    t.run("CP°uacdc°X·MATRIX·FP64°C·MATRIX·INT64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("C"), 1, 3, {3, 4, 4});
    t.run("CP°uacdapc°X·MATRIX·FP64°C·MATRIX·INT64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("C"), 1, 3, {3, 4, 4});
  }
  SECTION("sparse: the whole counts the zero, a row or column only its stored values") {
    t.set_matrix("S", block_of(true, 2, 4, {0, 1, 0, 3, 0, 0, 0, 1}));
    t.run("CP°uacd°S·MATRIX·FP64°n·SCALAR·INT64°2");
    CHECK(t.scalar("n").to_int() == 3);
    t.run("CP°uacdr°S·MATRIX·FP64°R·MATRIX·INT64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("R"), 2, 1, {2, 1});
    t.run("CP°uacdc°S·MATRIX·FP64°C·MATRIX·INT64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("C"), 1, 4, {0, 1, 0, 2});
  }
  SECTION("no non-zero, or one cell: (1, 1) holding 1 in every direction") {
    t.set_matrix("E", dense_of(3, 4, std::vector<double>(12, 0.0)));
    t.run("CP°uacdr°E·MATRIX·FP64°R·MATRIX·INT64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("R"), 1, 1, {1});
    t.set_matrix("O", dense_of(1, 1, {7}));
    t.run("CP°uacdapc°O·MATRIX·FP64°C·MATRIX·INT64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("C"), 1, 1, {1});
  }
  SECTION("Java Double equality: NaNs are one value, -0.0 is not 0.0") {
    t.set_matrix("N", dense_of(1, 5, {NAN, 1, NAN, -0.0, 0.0}));
    t.run("CP°uacd°N·MATRIX·FP64°n·SCALAR·INT64°2");
    CHECK(t.scalar("n").to_int() == 4);
  }
}

TEST_CASE("countDistinct: bad operands are parse errors", "[count_distinct]") {
  TestContext t;
  REQUIRE_THROWS_WITH(t.run("CP°uacd°X·MATRIX·FP64°R·MATRIX·INT64°2"),
                      Catch::Contains("uacd needs a matrix input and a scalar output"));
  REQUIRE_THROWS_WITH(t.run("CP°uacdapr°X·MATRIX·FP64°n·SCALAR·INT64°2"),
                      Catch::Contains("uacdapr needs a matrix input and a matrix output"));
  REQUIRE_THROWS_WITH(t.run("CP°uacdr°1·SCALAR·FP64·true°R·MATRIX·INT64°2"),
                      Catch::Contains("uacdr needs a matrix input and a matrix output"));
}
