// plogp and log_nz (cell-wise unary): x * log(x) and log(x), with 0 for x == 0 as SystemDS's
// Builtin PLOGP / LOG_NZ, so a sparse input stays sparse. Expected values by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "common/compare.h"
#include "common/fake_services.h"

using dmlrt::test::block_of;
using dmlrt::test::TestContext;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST_CASE("plogp and log_nz of dense, CSR and scalar inputs", "[unary]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  t.set_matrix("X", block_of(sp, 2, 3, {0, 1, 2, 0, 0.5, kNaN}));
  t.run("CP°plogp°X·MATRIX·FP64°Y·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 3, {0, 0, 2 * std::log(2.0), 0, 0.5 * std::log(0.5), kNaN});
  t.run("CP°log_nz°X·MATRIX·FP64°Y·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 3, {0, 0, std::log(2.0), 0, std::log(0.5), kNaN});
  t.run("CP°log_nz°0·SCALAR·FP64·true°s·SCALAR·FP64°2");
  REQUIRE(t.scalar("s").to_double() == 0.0);
  t.run("CP°plogp°0·SCALAR·FP64·true°s·SCALAR·FP64°2");
  REQUIRE(t.scalar("s").to_double() == 0.0);
  t.run("CP°log_nz°-1·SCALAR·FP64·true°s·SCALAR·FP64°2");
  REQUIRE(std::isnan(t.scalar("s").to_double()));
  t.run("CP°plogp°4·SCALAR·FP64·true°s·SCALAR·FP64°2");
  REQUIRE(t.scalar("s").to_double() == Approx(4 * std::log(4.0)));
}
