// Tests of the opcodes added to existing families for the builtin algorithms: xor (binary:
// matrix-matrix, matrix-scalar, scalar-scalar), isnan and isinf (unary, dense/CSR/scalar) and
// urowcumk+ (unary: rowCumsum). Expected values by hand.
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

TEST_CASE("xor: matrix-matrix, matrix-scalar, scalar-scalar", "[binary]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  t.set_matrix("A", block_of(sp, 2, 2, {0, 1, 2, 0}));
  t.set_matrix("B", block_of(sp, 2, 2, {0, 0, -1, 3}));
  t.run("CP°xor°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 2, {0, 1, 0, 1});
  // SystemDS's outlier(): xor(I, opposite) with a boolean literal.
  t.run("CP°xor°A·MATRIX·FP64°false·SCALAR·BOOLEAN·true°C·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 2, {0, 1, 1, 0});
  t.run("CP°xor°true·SCALAR·BOOLEAN·true°A·MATRIX·FP64°C·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 2, {1, 0, 0, 1});
  t.run("CP°xor°true·SCALAR·BOOLEAN·true°false·SCALAR·BOOLEAN·true°b·SCALAR·BOOLEAN");
  REQUIRE(t.scalar("b").type() == dmlrt::inst::ValueType::kBoolean);
  REQUIRE(t.scalar("b").to_bool());
  t.run("CP°xor°true·SCALAR·BOOLEAN·true°true·SCALAR·BOOLEAN·true°b·SCALAR·BOOLEAN");
  REQUIRE_FALSE(t.scalar("b").to_bool());
  t.set_matrix("D", dense_of(1, 3, {1, 2, 3}));
  REQUIRE_THROWS_WITH(t.run("CP°xor°A·MATRIX·FP64°D·MATRIX·FP64°C·MATRIX·FP64°2"),
                      Catch::Contains("xor: incompatible shapes"));
}

TEST_CASE("isnan and isinf of dense, CSR and scalar inputs; urowcumk+", "[unary]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  t.set_matrix("X", block_of(sp, 2, 3, {0, kNaN, 1, 2, 0, kNaN}));
  t.run("CP°isnan°X·MATRIX·FP64°Y·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 3, {0, 1, 0, 0, 0, 1});
  t.run("CP°isnan°NaN·SCALAR·FP64·true°b·SCALAR·BOOLEAN°2");
  REQUIRE(t.scalar("b").to_bool());
  t.run("CP°isnan°1.5·SCALAR·FP64·true°b·SCALAR·BOOLEAN°2");
  REQUIRE_FALSE(t.scalar("b").to_bool());
  t.set_matrix("I", block_of(sp, 2, 3, {0, kNaN, 1, HUGE_VAL, 0, -HUGE_VAL}));
  t.run("CP°isinf°I·MATRIX·FP64°Y·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 3, {0, 0, 0, 1, 0, 1});
  t.run("CP°isinf°-Infinity·SCALAR·FP64·true°b·SCALAR·BOOLEAN°2");
  REQUIRE(t.scalar("b").to_bool());
  t.run("CP°isinf°NaN·SCALAR·FP64·true°b·SCALAR·BOOLEAN°2");
  REQUIRE_FALSE(t.scalar("b").to_bool());
  t.set_matrix("Z", block_of(sp, 2, 4, {1, 0, 2, 0.5, 0, 0, -3, 4}));
  t.run("CP°urowcumk+°Z·MATRIX·FP64°C·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 4, {1, 1, 3, 3.5, 0, 0, -3, 1});
  t.set_matrix("E", MatrixBlock::dense(3, 0));
  t.run("CP°urowcumk+°E·MATRIX·FP64°C·MATRIX·FP64°2");
  REQUIRE(t.matrix("C").rows() == 3);
  REQUIRE(t.matrix("C").cols() == 0);
  REQUIRE_THROWS_WITH(t.run("CP°urowcumk+°2·SCALAR·FP64·true°c·SCALAR·FP64°2"),
                      Catch::Contains("urowcumk+ needs a matrix input and output"));
}
