// Tests of the parameterized builtins replace, contains, rexpand and groupedagg (aggregate()):
// expected values worked by hand and from SystemDS 3.4 runs of table()/aggregate() (noted per
// case), dense and CSR inputs, empty shapes and the error messages.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"
#include "kernels/cpu/parameterized.h"

using dmlrt::inst::ScalarValue;
using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::sparse_of;
using dmlrt::test::TestContext;
using dmlrt::test::block_of;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST_CASE("replace: values, NaN pattern, zero pattern on CSR", "[parameterized]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  t.set_matrix("X", block_of(sp, 2, 3, {0, 4, kNaN, 4, 0, 1}));
  SECTION("4 -> 9") {
    t.run("CP°replace°pattern=4°replacement=9°target=X°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 3, {0, 9, kNaN, 9, 0, 1});
  }
  SECTION("NaN -> 0 (parameters in any order)") {
    t.run("CP°replace°target=X°pattern=NaN°replacement=0°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 3, {0, 4, 0, 4, 0, 1});
  }
  SECTION("0 -> 1 touches the implicit zeros of CSR") {
    t.run("CP°replace°pattern=0°replacement=1°target=X°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 3, {1, 4, kNaN, 4, 1, 1});
  }
  SECTION("pattern from a scalar variable, Infinity replacement") {
    t.set_scalar("p", ScalarValue::fp64(1));
    t.run("CP°replace°pattern=p°replacement=Infinity°target=X°Y·MATRIX·FP64");
    REQUIRE(std::isinf(t.matrix("Y").get(1, 2)));
  }
  SECTION("empty 0x3") {
    t.set_matrix("E", MatrixBlock::dense(0, 3));
    t.run("CP°replace°pattern=0°replacement=1°target=E°Y·MATRIX·FP64");
    REQUIRE(t.matrix("Y").rows() == 0);
    REQUIRE(t.matrix("Y").cols() == 3);
  }
}

TEST_CASE("contains: NaN, zero and absent patterns", "[parameterized]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  t.set_matrix("X", block_of(sp, 2, 2, {0, 2, kNaN, 3}));
  t.run("CP°contains°pattern=NaN°target=X°k=2°b·SCALAR·BOOLEAN");
  REQUIRE(t.scalar("b").to_bool());
  t.run("CP°contains°pattern=0°target=X°k=2°b·SCALAR·BOOLEAN");
  REQUIRE(t.scalar("b").to_bool());
  t.run("CP°contains°pattern=5°target=X°k=2°b·SCALAR·BOOLEAN");
  REQUIRE_FALSE(t.scalar("b").to_bool());
  t.set_matrix("E", MatrixBlock::dense(0, 0));
  t.run("CP°contains°pattern=0°target=E°b·SCALAR·BOOLEAN");
  REQUIRE_FALSE(t.scalar("b").to_bool());
}

TEST_CASE("rexpand: SystemDS's table(seq(1,n), v, n, 3)", "[parameterized]") {
  // SystemDS 3.4, v = (2, 1.7, 3, 5, 1), max 3: 1.7 casts to 1, 5 (> max) is dropped.
  const bool sp = GENERATE(false, true);
  TestContext t;
  t.set_matrix("v", block_of(sp, 5, 1, {2, 1.7, 3, 5, 1}));
  t.set_scalar("m", ScalarValue::int64(3));
  SECTION("dir=cols") {
    t.run("CP°rexpand°cast=true°max=3°ignore=false°dir=cols°target=v°k=2°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 5, 3, {0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0});
  }
  SECTION("dir=rows, max from a variable") {
    t.run("CP°rexpand°target=v°max=m°dir=rows°cast=true°ignore=false°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 5, {0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0});
  }
  SECTION("zeros: an error unless ignore=true (SystemDS's message)") {
    t.set_matrix("z", block_of(sp, 4, 1, {2, 0, 3, 1}));
    REQUIRE_THROWS_WITH(
        t.run("CP°rexpand°cast=true°max=3°ignore=false°dir=cols°target=z°Y·MATRIX·FP64"),
        Catch::Contains("invalid input w/ zeros for rexpand ignore=false (rlen=4, nnz=3)"));
    t.run("CP°rexpand°cast=true°max=3°ignore=true°dir=cols°target=z°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 4, 3, {0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0});
  }
  SECTION("negative value with ignore=false") {
    t.set_matrix("z", block_of(sp, 2, 1, {-1, 2}));
    REQUIRE_THROWS_WITH(
        t.run("CP°rexpand°cast=true°max=3°ignore=false°dir=cols°target=z°Y·MATRIX·FP64"),
        Catch::Contains("rexpand: invalid input value -1 (<= 0) at row 1"));
  }
  SECTION("not a column vector") {
    t.set_matrix("w", dense_of(2, 2, {1, 2, 1, 2}));
    REQUIRE_THROWS_WITH(
        t.run("CP°rexpand°cast=true°max=3°ignore=false°dir=cols°target=w°Y·MATRIX·FP64"),
        Catch::Contains("rexpand: the target must be a column vector"));
  }
  SECTION("bad dir and missing parameter") {
    REQUIRE_THROWS_WITH(t.run("CP°rexpand°max=3°dir=up°target=v°Y·MATRIX·FP64"),
                        Catch::Contains("rexpand: dir must be 'rows' or 'cols', got 'up'"));
    REQUIRE_THROWS_WITH(t.run("CP°rexpand°dir=cols°target=v°Y·MATRIX·FP64"),
                        Catch::Contains("rexpand: missing parameter 'max'"));
  }
}

TEST_CASE("groupedagg: SystemDS's aggregate() results", "[parameterized]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  // s = (3,1,2,3,1,2); SystemDS 3.4: aggregate(target=cbind(s, seq(1,6)), groups=s, fn="sum",
  // ngroups=2) = [2 7; 4 9]; aggregate(target=seq(1,6), groups=s, fn="mean") = (3.5, 4.5, 2.5).
  t.set_matrix("s", block_of(sp, 6, 1, {3, 1, 2, 3, 1, 2}));
  t.set_matrix("M", block_of(sp, 6, 2, {3, 1, 1, 2, 2, 3, 3, 4, 1, 5, 2, 6}));
  t.set_matrix("q", block_of(sp, 6, 1, {1, 2, 3, 4, 5, 6}));
  SECTION("sum with ngroups dropping group 3") {
    t.run("CP°groupedagg°target=M°groups=s°fn=sum°ngroups=2°k=2°G·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 2, 2, {2, 7, 4, 9});
  }
  SECTION("mean, count, variance, centralmoment") {
    t.run("CP°groupedagg°target=q°groups=s°fn=mean°k=2°G·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 3, 1, {3.5, 4.5, 2.5});
    t.run("CP°groupedagg°target=q°groups=s°fn=count°G·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 3, 1, {2, 2, 2});
    t.run("CP°groupedagg°target=q°groups=s°fn=variance°G·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 3, 1, {4.5, 4.5, 4.5});  // pairs 3 apart
    t.run("CP°groupedagg°target=q°groups=s°fn=centralmoment°order=2°G·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 3, 1, {2.25, 2.25, 2.25});
  }
  SECTION("weighted sum and mean") {
    t.set_matrix("w", dense_of(6, 1, {1, 2, 1, 1, 0, 3}));
    t.run("CP°groupedagg°target=q°groups=s°weights=w°fn=sum°G·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 3, 1, {4, 21, 5});
    t.run("CP°groupedagg°target=q°groups=s°weights=w°fn=mean°G·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 3, 1, {2, 21.0 / 4, 2.5});
  }
  SECTION("group id 0 (SystemDS: Invalid value (0.0) encountered in 'groups')") {
    t.set_matrix("g", dense_of(6, 1, {0, 1, 3, 2, 1, 1}));
    REQUIRE_THROWS_WITH(t.run("CP°groupedagg°target=q°groups=g°fn=sum°G·MATRIX·FP64"),
                        Catch::Contains("groupedagg: invalid value (0) encountered in 'groups'"));
  }
  SECTION("shape and parameter errors") {
    t.set_matrix("g", dense_of(5, 1, {1, 1, 1, 1, 1}));
    REQUIRE_THROWS_WITH(t.run("CP°groupedagg°target=q°groups=g°fn=sum°G·MATRIX·FP64"),
                        Catch::Contains("groups must be a column vector with one row per target "
                                        "row, got target 6x1 and groups 5x1"));
    REQUIRE_THROWS_WITH(t.run("CP°groupedagg°target=q°groups=s°fn=median°G·MATRIX·FP64"),
                        Catch::Contains("groupedagg: unsupported fn 'median'"));
    REQUIRE_THROWS_WITH(t.run("CP°groupedagg°target=q°groups=s°fn°G·MATRIX·FP64"),
                        Catch::Contains("field 'fn' is not name=value"));
  }
}

TEST_CASE("toString: SystemDS's print(toString(A)) layouts", "[parameterized]") {
  // SystemDS 3.4 on A = q q' / 7, q = (4, 1, 3, 2), A[1,1] = NaN, A[1,2] = -Inf, A[2,2] = 0.
  const bool sp = GENERATE(false, true);
  TestContext t;
  std::vector<double> a(16);
  const double q[4] = {4, 1, 3, 2};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) a[i * 4 + j] = q[i] * q[j] / 7;
  a[0] = kNaN;
  a[1] = -std::numeric_limits<double>::infinity();
  a[5] = 0;
  t.set_matrix("A", block_of(sp, 4, 4, a));
  t.run("CP°toString°target=A°s·SCALAR·STRING");
  REQUIRE(t.scalar("s").to_string() ==
          "NaN -Infinity 1.714 1.143\n0.571 0.000 0.429 0.286\n1.714 0.429 1.286 0.857\n"
          "1.143 0.286 0.857 0.571\n");
  t.run("CP°toString°decimal=1°rows=2°cols=3°target=A°s·SCALAR·STRING");
  REQUIRE(t.scalar("s").to_string() == "NaN -Infinity 1.7\n0.6 0.0 0.4\n");
  t.run("CP°toString°sparse=true°rows=2°target=A°s·SCALAR·STRING");
  REQUIRE(t.scalar("s").to_string() ==
          "1 1 NaN\n1 2 -Infinity\n1 3 1.714\n1 4 1.143\n2 1 0.571\n2 3 0.429\n2 4 0.286\n");
  t.run("CP°toString°linesep=|°sep=,°target=A°s·SCALAR·STRING");
  REQUIRE(t.scalar("s").to_string() ==
          "NaN,-Infinity,1.714,1.143|0.571,0.000,0.429,0.286|1.714,0.429,1.286,0.857|"
          "1.143,0.286,0.857,0.571|");
  // DecimalFormat: HALF_EVEN on the exact value (0.125 -> 0.12, 0.15 is below the tie -> 0.1),
  // negative values that round to zero keep their sign, -0 prints as 0.
  t.set_matrix("B", dense_of(1, 4, {0.125, 0.15, -0.0001, -0.0}));
  t.run("CP°toString°decimal=2°target=B°s·SCALAR·STRING");
  REQUIRE(t.scalar("s").to_string() == "0.12 0.15 -0.00 0.00\n");
  t.run("CP°toString°decimal=1°target=B°s·SCALAR·STRING");
  REQUIRE(t.scalar("s").to_string() == "0.1 0.1 -0.0 0.0\n");
  REQUIRE_THROWS_WITH(t.run("CP°toString°decimal=-1°target=B°s·SCALAR·STRING"),
                      Catch::Contains("toString: decimal must be in [0, 340], got -1"));
}

TEST_CASE("lowertri and uppertri: every diag/values form on square and non-square inputs",
          "[parameterized]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  // (3, 4): every row holds a nonzero, so both formats give the same masks.
  t.set_matrix("X", block_of(sp, 3, 4, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  t.run("CP°lowertri°diag=true°values=true°target=X°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 4, {1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0});
  t.run("CP°lowertri°diag=false°values=true°target=X°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 4, {0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0});
  t.run("CP°lowertri°diag=true°values=false°target=X°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 4, {1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0});
  t.run("CP°uppertri°diag=true°values=true°target=X°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 4, {1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12});
  t.run("CP°uppertri°diag=false°values=false°target=X°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 4, {0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1});
  // Parameters in any order; missing diag/values are false (Boolean.parseBoolean(null)).
  t.run("CP°uppertri°target=X°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 4, {0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1});
  // Tall (4, 2): rows below the last column keep the whole row (lower) or nothing (upper).
  t.set_matrix("T", block_of(sp, 4, 2, {1, 2, 3, 4, 5, 6, 7, 8}));
  t.run("CP°lowertri°diag=false°values=true°target=T°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 4, 2, {0, 0, 3, 0, 5, 6, 7, 8});
  t.run("CP°uppertri°diag=true°values=false°target=T°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 4, 2, {1, 1, 0, 1, 0, 0, 0, 0});
}

// SystemDS 3.4: print(toString(upper.tri(target=X, diag=TRUE, values=FALSE))) of a sparse X with
// empty rows masks only its nonempty rows; an all-zero X gives zeros in either format.
TEST_CASE("lowertri/uppertri values=false follow SystemDS on empty rows and empty inputs",
          "[parameterized]") {
  TestContext t;
  const std::vector<double> v = {0, 0, 0, 0, 5, 0, 0, 0, 0};
  t.set_matrix("S", sparse_of(3, 3, v));
  t.run("CP°uppertri°diag=true°values=false°target=S°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 3, {0, 0, 0, 0, 1, 1, 0, 0, 0});
  t.set_matrix("D", dense_of(3, 3, v));
  t.run("CP°uppertri°diag=true°values=false°target=D°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 3, {1, 1, 1, 0, 1, 1, 0, 0, 1});
  for (const MatrixBlock& e : {MatrixBlock::dense(2, 3), MatrixBlock::empty_sparse(2, 3)}) {
    t.set_matrix("E", e);
    t.run("CP°lowertri°diag=true°values=false°target=E°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 3, {0, 0, 0, 0, 0, 0});
  }
  t.set_matrix("Z", MatrixBlock::dense(0, 4));
  t.run("CP°lowertri°diag=true°values=true°target=Z°Y·MATRIX·FP64");
  CHECK(t.matrix("Y").rows() == 0);
  CHECK(t.matrix("Y").cols() == 4);
}

TEST_CASE("lowertri/uppertri parse errors name the instruction", "[parameterized]") {
  TestContext t;
  t.set_matrix("X", dense_of(2, 2, {1, 2, 3, 4}));
  CHECK_THROWS_WITH(t.run("CP°lowertri°diag=true°values=true°Y·MATRIX·FP64"),
                    Catch::Contains("lowertri: missing parameter 'target'"));
  CHECK_THROWS_WITH(t.run("CP°uppertri°diag=true°target=X°s·SCALAR·FP64"),
                    Catch::Contains("uppertri output must be a MATRIX, got SCALAR"));
  CHECK_THROWS_WITH(t.run("CP°uppertri°diag°target=X°Y·MATRIX·FP64"),
                    Catch::Contains("uppertri: field 'diag' is not name=value"));
}

// removeEmpty (rmempty) as LibMatrixReorg.rmempty, the shapes checked against SystemDS 3.4 runs
// (conformance case param_rmempty).
TEST_CASE("rmempty: rows/cols, select, empty.return on dense, CSR and all-zero inputs",
          "[parameterized]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  // rows 2 and 4 and column 2 are empty; a NaN alone keeps row 3 / column 3
  t.set_matrix("X", block_of(sp, 4, 3, {1, 0, 2, 0, 0, 0, 0, 0, kNaN, 0, 0, 0}));
  SECTION("empty rows and columns") {
    t.run("CP°rmempty°margin=rows°empty.return=true°target=X°bRmEmptyBC=false°Y·MATRIX·FP64");
    const MatrixBlock y = t.matrix("Y");
    REQUIRE(y.rows() == 2);
    CHECK(y.get(0, 2) == 2);
    CHECK(std::isnan(y.get(1, 2)));
    t.run("CP°rmempty°margin=cols°empty.return=false°target=X°bRmEmptyBC=false°Y·MATRIX·FP64");
    REQUIRE(t.matrix("Y").cols() == 2);
    CHECK(t.matrix("Y").get(0, 1) == 2);
  }
  SECTION("select keeps the rows/columns of its nonzero cells, in any vector shape") {
    t.set_matrix("s", dense_of(4, 1, {0, 3, 0, -1}));
    t.run("CP°rmempty°margin=rows°select=s°empty.return=true°target=X°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 3, {0, 0, 0, 0, 0, 0});
    t.set_matrix("c", sparse_of(3, 1, {1, 0, 1}));
    t.run("CP°rmempty°margin=cols°select=c°empty.return=true°target=X°Y·MATRIX·FP64");
    REQUIRE(t.matrix("Y").cols() == 2);
    CHECK(t.matrix("Y").get(0, 1) == 2);
  }
  SECTION("an all-zero select: 1 (empty.return) or 0 rows/columns of zeros") {
    t.set_matrix("z", dense_of(1, 3, {0, 0, 0}));
    t.run("CP°rmempty°margin=cols°select=z°empty.return=true°target=X°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 4, 1, {0, 0, 0, 0});
    t.run("CP°rmempty°margin=cols°select=z°empty.return=false°target=X°Y·MATRIX·FP64");
    CHECK(t.matrix("Y").rows() == 4);
    CHECK(t.matrix("Y").cols() == 0);
  }
  SECTION("an all-ones select passes the target through") {
    t.set_matrix("o", dense_of(4, 1, {1, 1, 1, 1}));
    t.run("CP°rmempty°margin=rows°select=o°empty.return=false°target=X°Y·MATRIX·FP64");
    REQUIRE(t.matrix("Y").rows() == 4);
  }
  SECTION("all-zero target: 1 x n / m x 1, or 0 x n / m x 0 without empty.return") {
    t.set_matrix("E", block_of(sp, 3, 2, {0, 0, 0, 0, 0, 0}));
    t.run("CP°rmempty°margin=rows°empty.return=true°target=E°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 1, 2, {0, 0});
    t.run("CP°rmempty°margin=cols°empty.return=true°target=E°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 1, {0, 0, 0});
    t.run("CP°rmempty°margin=rows°empty.return=false°target=E°Y·MATRIX·FP64");
    CHECK(t.matrix("Y").rows() == 0);
    CHECK(t.matrix("Y").cols() == 2);
  }
  SECTION("errors") {
    t.set_matrix("s", dense_of(3, 1, {1, 0, 1}));
    CHECK_THROWS_WITH(
        t.run("CP°rmempty°margin=rows°select=s°empty.return=true°target=X°Y·MATRIX·FP64"),
        Catch::Contains("rmempty: select must have one cell per target row, got target 4x3 "
                        "and select 3x1"));
    CHECK_THROWS_WITH(t.run("CP°rmempty°margin=diag°empty.return=true°target=X°Y·MATRIX·FP64"),
                      Catch::Contains("rmempty: margin must be 'rows' or 'cols', got 'diag'"));
    CHECK_THROWS_WITH(t.run("CP°rmempty°empty.return=true°target=X°Y·MATRIX·FP64"),
                      Catch::Contains("rmempty: missing parameter 'margin'"));
    // the kernel's own guard, for callers that skip the instruction's check()
    const MatrixBlock x = dense_of(2, 2, {1, 0, 0, 1});
    const MatrixBlock s3 = dense_of(1, 3, {1, 0, 1});
    CHECK_THROWS_WITH(dmlrt::kernels::cpu::remove_empty(x, false, true, &s3),
                      Catch::Contains("rmempty: select must have one cell per target column (2), "
                                      "got 1x3 dense for target 2x2 dense"));
  }
}
