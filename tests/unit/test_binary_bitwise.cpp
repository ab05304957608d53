// bitwAnd, bitwOr, bitwXor, bitwShiftL, bitwShiftR (binary, CPU only): operands cast to Java int
// as SystemDS's UtilFunctions.toInt (toward zero, saturating, NaN -> 0), 32-bit results, shift
// counts mod 32. Expected values by hand.
#include <catch2/catch.hpp>

#include <limits>

#include "common/compare.h"
#include "common/fake_services.h"

using dmlrt::test::block_of;
using dmlrt::test::TestContext;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST_CASE("bitwise ops: matrix-matrix, matrix-scalar, scalar-scalar", "[binary]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  t.set_matrix("A", block_of(sp, 2, 3, {12, -3.7, 0, kNaN, 5.9, 1}));
  t.set_matrix("B", block_of(sp, 2, 3, {10, 6, 7, 5, 3, 0}));
  t.run("CP°bitwAnd°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 3, {8, 4, 0, 0, 1, 0});
  t.run("CP°bitwOr°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 3, {14, -1, 7, 5, 7, 1});
  t.run("CP°bitwXor°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 3, {6, -5, 7, 5, 6, 1});
  t.run("CP°bitwShiftL°A·MATRIX·FP64°2·SCALAR·INT64·true°C·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 3, {48, -12, 0, 0, 20, 4});
  t.run("CP°bitwShiftR°A·MATRIX·FP64°1·SCALAR·INT64·true°C·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 3, {6, -2, 0, 0, 2, 0});
  // Java int shifts: the count is taken mod 32, and 1 << 31 is the int minimum.
  t.run("CP°bitwShiftL°B·MATRIX·FP64°33·SCALAR·INT64·true°C·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 3, {20, 12, 14, 10, 6, 0});
  t.run("CP°bitwShiftL°1·SCALAR·INT64·true°31·SCALAR·INT64·true°s·SCALAR·INT64");
  REQUIRE(t.scalar("s").to_int() == -2147483648LL);
  t.run("CP°bitwXor°5·SCALAR·INT64·true°3·SCALAR·INT64·true°s·SCALAR·INT64");
  REQUIRE(t.scalar("s").type() == dmlrt::inst::ValueType::kINT64);
  REQUIRE(t.scalar("s").to_int() == 6);
  t.run("CP°bitwAnd°13.7·SCALAR·FP64·true°11·SCALAR·INT64·true°s·SCALAR·FP64");
  REQUIRE(t.scalar("s").to_double() == 9.0);
  t.run("CP°bitwShiftR°-8·SCALAR·INT64·true°1·SCALAR·INT64·true°s·SCALAR·INT64");
  REQUIRE(t.scalar("s").to_int() == -4);
  t.set_matrix("D", block_of(sp, 1, 2, {1, 2}));
  REQUIRE_THROWS_WITH(t.run("CP°bitwAnd°A·MATRIX·FP64°D·MATRIX·FP64°C·MATRIX·FP64°2"),
                      Catch::Contains("bitwand: incompatible shapes"));
}
