// Tests of time (a monotonic INT64 nanosecond count) and exists (name probes by string literal,
// string variable and matrix operand), and of their operand errors.
#include <catch2/catch.hpp>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::inst::ScalarValue;
using dmlrt::kernels::MatrixBlock;
using dmlrt::test::TestContext;

TEST_CASE("time answers an increasing positive INT64", "[meta]") {
  TestContext t;
  t.run("CP°time°t1·SCALAR·INT64");
  t.run("CP°time°t2·SCALAR·INT64");
  REQUIRE(t.scalar("t1").type() == dmlrt::inst::ValueType::kINT64);
  REQUIRE(t.scalar("t1").to_int() > 0);
  REQUIRE(t.scalar("t2").to_int() >= t.scalar("t1").to_int());
}

TEST_CASE("exists probes names", "[meta]") {
  TestContext t;
  t.set_matrix("X", MatrixBlock::dense(2, 2, 1.0));
  t.set_scalar("n", ScalarValue::string("X"));
  t.set_scalar("m", ScalarValue::string("zz"));
  t.run("CP°exists°X·SCALAR·STRING·true°a·SCALAR·BOOLEAN°2");
  t.run("CP°exists°zz·SCALAR·STRING·true°b·SCALAR·BOOLEAN°2");
  t.run("CP°exists°X·MATRIX·FP64·false°c·SCALAR·BOOLEAN°2");
  t.run("CP°exists°n·SCALAR·STRING·false°d·SCALAR·BOOLEAN");
  t.run("CP°exists°m·SCALAR·STRING·false°e·SCALAR·BOOLEAN");
  REQUIRE(t.scalar("a").to_bool());
  REQUIRE_FALSE(t.scalar("b").to_bool());
  REQUIRE(t.scalar("c").to_bool());
  REQUIRE(t.scalar("d").to_bool());
  REQUIRE_FALSE(t.scalar("e").to_bool());
  // SystemDS declares some exists outputs STRING; the value prints as DML's boolean.
  t.run("CP°exists°X·SCALAR·STRING·true°s·SCALAR·STRING°2");
  REQUIRE(t.scalar("s").to_string() == "TRUE");
}

TEST_CASE("time and exists operand errors", "[meta]") {
  TestContext t;
  REQUIRE_THROWS_WITH(t.run("CP°time°T·MATRIX·FP64"),
                      Catch::Contains("time expects a scalar output, got T·MATRIX·FP64"));
  REQUIRE_THROWS_WITH(t.run("CP°time°a·SCALAR·INT64°b·SCALAR·INT64"),
                      Catch::Contains("time expects 1 operand field"));
  REQUIRE_THROWS_WITH(t.run("CP°exists°X·SCALAR·STRING·true°Y·MATRIX·FP64"),
                      Catch::Contains("exists expects a scalar output, got Y·MATRIX·FP64"));
  REQUIRE_THROWS_WITH(t.run("CP°exists°X·SCALAR·STRING·true"),
                      Catch::Contains("exists expects 2 to 3 operand fields, got 1"));
}
