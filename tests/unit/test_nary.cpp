// N-ary ops n+ n* nmin nmax through their instructions: matrices (dense and CSR) with scalars
// folded in, all-scalar forms (INT64 kept integral, FP64, string concatenation), and errors.
// Expected values are printed by SystemDS 3.4 for A=[1 0; -2 3], B=[0 5; 0 -1], C=[2 0; 0 0], s=0.5.
#include <catch2/catch.hpp>
#include <string>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::inst::ScalarValue;
using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::TestContext;

namespace {

const char* kM = "·MATRIX·FP64";

MatrixBlock as(bool sparse, const MatrixBlock& m) { return sparse ? m.to_sparse() : m.to_dense(); }

std::string abc(const std::string& op, const std::string& extra) {
  return "CP°" + op + "°A" + kM + "°B" + kM + "°C" + kM + extra + "°O" + kM;
}

}  // namespace

TEST_CASE("n-ary ops over matrices and scalars", "[nary]") {
  for (bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("A", as(sparse, dense_of(2, 2, {1, 0, -2, 3})));
    t.set_matrix("B", as(sparse, dense_of(2, 2, {0, 5, 0, -1})));
    t.set_matrix("C", as(sparse, dense_of(2, 2, {2, 0, 0, 0})));
    t.set_scalar("s", ScalarValue::fp64(0.5));
    t.run(abc("n+", "°s·SCALAR·FP64·false"));
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {3.5, 5.5, -1.5, 2.5});
    t.run(abc("n*", "°s·SCALAR·FP64·false"));
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {0, 0, 0, 0});
    t.run(abc("nmin", ""));
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {0, 0, -2, -1});
    t.run(abc("nmax", "°s·SCALAR·FP64·false"));
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {2, 5, 0.5, 3});
    // Two matrices and a literal: (A * B) * 2 with the scalar folded first.
    t.run(std::string("CP°n*°A") + kM + "°A" + kM + "°2·SCALAR·INT64·true°O" + kM);
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 2, {2, 0, 8, 18});
  }
}

TEST_CASE("n-ary ops on 1x1, odd-shaped and empty matrices", "[nary]") {
  TestContext t;
  t.set_matrix("A", dense_of(1, 1, {4}));
  t.run(std::string("CP°n+°A") + kM + "°A" + kM + "°-1·SCALAR·INT64·true°O" + kM);
  DMLRT_REQUIRE_CLOSE(t.matrix("O"), 1, 1, {7});
  t.set_matrix("R", dense_of(1, 3, {1, -1, 2}));
  t.set_matrix("Q", dense_of(1, 3, {0, -3, 5}).to_sparse());
  t.run(std::string("CP°nmax°R") + kM + "°Q" + kM + "°R" + kM + "°O" + kM);
  DMLRT_REQUIRE_CLOSE(t.matrix("O"), 1, 3, {1, -1, 5});
  t.set_matrix("E", MatrixBlock::dense(0, 3));
  t.run(std::string("CP°n+°E") + kM + "°E" + kM + "°O" + kM);
  CHECK(t.matrix("O").rows() == 0);
  CHECK(t.matrix("O").cols() == 3);
}

TEST_CASE("n-ary ops on scalars", "[nary]") {
  TestContext t;
  t.set_scalar("i", ScalarValue::int64(3));
  t.set_scalar("j", ScalarValue::int64(-2));
  t.set_scalar("s", ScalarValue::fp64(0.5));
  t.run("CP°n*°7·SCALAR·INT64·true°i·SCALAR·INT64·false°j·SCALAR·INT64·false°k·SCALAR·INT64");
  CHECK(t.scalar("k").to_string() == "-42");
  t.run("CP°n+°j·SCALAR·INT64·false°i·SCALAR·INT64·false°7·SCALAR·INT64·true°k·SCALAR·INT64");
  CHECK(t.scalar("k").to_string() == "8");
  t.run("CP°nmin°j·SCALAR·INT64·false°i·SCALAR·INT64·false°1·SCALAR·INT64·true°k·SCALAR·INT64");
  CHECK(t.scalar("k").to_string() == "-2");
  t.run("CP°nmax°j·SCALAR·INT64·false°i·SCALAR·INT64·false°1·SCALAR·INT64·true°k·SCALAR·INT64");
  CHECK(t.scalar("k").to_string() == "3");
  t.run("CP°n*°3·SCALAR·INT64·true°i·SCALAR·INT64·false°s·SCALAR·FP64·false°d·SCALAR·FP64");
  CHECK(t.scalar("d").to_string() == "4.5");
  t.run("CP°n+°a·SCALAR·STRING·true°i·SCALAR·INT64·false°s·SCALAR·FP64·false°d·SCALAR·STRING");
  CHECK(t.scalar("d").to_string() == "a30.5");
}

TEST_CASE("n-ary errors", "[nary]") {
  TestContext t;
  t.set_matrix("A", dense_of(2, 2, {1, 2, 3, 4}));
  t.set_matrix("B", dense_of(3, 1, {1, 2, 3}));
  t.set_scalar("str", ScalarValue::string("abc"));
  REQUIRE_THROWS_AS(t.run(std::string("CP°n+°A") + kM + "°B" + kM + "°O" + kM), dmlrt::ShapeError);
  REQUIRE_THROWS_WITH(t.run(std::string("CP°n+°A") + kM + "°B" + kM + "°O" + kM),
                      Catch::Contains("n+: matrix operands differ in shape: 2x2") &&
                          Catch::Contains("3x1"));
  REQUIRE_THROWS_WITH(t.run(std::string("CP°nmin°A") + kM + "°str·SCALAR·STRING°O" + kM),
                      Catch::Contains("nmin: string scalar 'abc' cannot be combined with a matrix"));
  REQUIRE_THROWS_WITH(t.run("CP°n*°str·SCALAR·STRING°str·SCALAR·STRING°o·SCALAR·STRING"),
                      Catch::Contains("n*: string operands are only supported by n+"));
  REQUIRE_THROWS_WITH(t.run(std::string("CP°n+°A") + kM + "°O" + kM),
                      Catch::Contains("n+ expects"));
  REQUIRE_THROWS_WITH(t.run(std::string("CP°nmax°A") + kM + "°A" + kM + "°o·SCALAR·FP64"),
                      Catch::Contains("output 'o' must be a MATRIX"));
}
