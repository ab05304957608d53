// Tests of einsum: small products against hand results (SystemDS 3.4 printed the same values),
// a diagonal, a scalar output, and the errors for bad equations and operands.
#include <catch2/catch.hpp>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::test::block_of;
using dmlrt::test::dense_of;
using dmlrt::test::TestContext;

TEST_CASE("einsum: products, sums, diagonal, scalar", "[linalg]") {
  TestContext t;
  const bool sp = GENERATE(false, true);
  t.set_matrix("A", block_of(sp, 2, 3, {1, 2, 3, 4, 5, 6}));
  t.set_matrix("B", dense_of(3, 2, {1, 0, 2, 1, 3, 1}));
  t.run("CP°einsum°ij,jk->ik·SCALAR·STRING·true°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 2, {14, 5, 32, 11});
  t.run("CP°einsum°ij->ji·SCALAR·STRING·true°A·MATRIX·FP64°T·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("T"), 3, 2, {1, 4, 2, 5, 3, 6});
  t.run("CP°einsum°ij->i·SCALAR·STRING·true°A·MATRIX·FP64°R·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("R"), 2, 1, {6, 15});
  t.run("CP°einsum°ij->·SCALAR·STRING·true°A·MATRIX·FP64°s·SCALAR·FP64");
  CHECK(t.scalar("s").to_double() == 21.0);
  t.set_matrix("Q", dense_of(2, 2, {1, 2, 3, 4}));
  t.run("CP°einsum°ii->i·SCALAR·STRING·true°Q·MATRIX·FP64°D·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("D"), 2, 1, {1, 4});
  t.set_matrix("v", dense_of(1, 3, {1, 2, 3}));  // a row vector for a one-letter term
  t.run("CP°einsum°ij,j->i·SCALAR·STRING·true°A·MATRIX·FP64°v·MATRIX·FP64°w·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("w"), 2, 1, {14, 32});
}

TEST_CASE("einsum: bad equations and operands", "[linalg]") {
  TestContext t;
  t.set_matrix("A", dense_of(2, 3, {1, 2, 3, 4, 5, 6}));
  auto run = [&](const std::string& eq, const std::string& ops, const std::string& out) {
    t.run("CP°einsum°" + eq + "·SCALAR·STRING·true°" + ops + "°" + out);
  };
  CHECK_THROWS_WITH(run("ij,jk->ik", "A·MATRIX·FP64°A·MATRIX·FP64", "C·MATRIX·FP64"),
                    Catch::Contains("einsum: axis 'j' has size 3 and 2 (operand 2, 2x3)"));
  CHECK_THROWS_WITH(run("ij,jk", "A·MATRIX·FP64°A·MATRIX·FP64", "s·SCALAR·FP64"),
                    Catch::Contains("has no '->' output"));
  CHECK_THROWS_WITH(run("ij->ik", "A·MATRIX·FP64", "C·MATRIX·FP64"),
                    Catch::Contains("einsum: output axis 'k' of 'ij->ik' is in no operand"));
  CHECK_THROWS_WITH(run("ijk->i", "A·MATRIX·FP64", "C·MATRIX·FP64"),
                    Catch::Contains("must name one or two axes"));
  CHECK_THROWS_WITH(run("ij,jk->ik", "A·MATRIX·FP64", "C·MATRIX·FP64"),
                    Catch::Contains("has 2 operand terms but 1 operands are given"));
  CHECK_THROWS_WITH(run("i->i", "A·MATRIX·FP64", "C·MATRIX·FP64"),
                    Catch::Contains("operand 1 (2x3) is a matrix but its term 'i' names one axis"));
  CHECK_THROWS_WITH(run("ij->", "A·MATRIX·FP64", "C·MATRIX·FP64"),
                    Catch::Contains("gives a scalar but the output C is a matrix"));
}
