// Tests of the reorg instructions r' rshape rdiag rev on dense and CSR inputs, against hand values
// (rshape layouts checked with SystemDS's matrix(X, rows, cols, byrow)) and naive references.
#include <catch2/catch.hpp>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::random_block;
using dmlrt::test::seed_from;
using dmlrt::test::sparse_of;
using dmlrt::test::TestContext;

namespace {

// 3x4 with 1..12 row-major (the X.csv used for the SystemDS reference runs).
MatrixBlock x34(bool sparse) {
  std::vector<double> v(12);
  for (int i = 0; i < 12; ++i) v[i] = i + 1;
  return sparse ? sparse_of(3, 4, v) : dense_of(3, 4, v);
}

// Naive references, written cell by cell through get().
MatrixBlock ref_transpose(const MatrixBlock& a) {
  MatrixBlock t = MatrixBlock::dense(a.cols(), a.rows(), 0.0);
  for (int64_t i = 0; i < a.rows(); ++i)
    for (int64_t j = 0; j < a.cols(); ++j) t.dense_values()[j * a.rows() + i] = a.get(i, j);
  return t;
}

MatrixBlock ref_rev(const MatrixBlock& a) {
  MatrixBlock t = MatrixBlock::dense(a.rows(), a.cols(), 0.0);
  for (int64_t i = 0; i < a.rows(); ++i)
    for (int64_t j = 0; j < a.cols(); ++j)
      t.dense_values()[i * a.cols() + j] = a.get(a.rows() - 1 - i, j);
  return t;
}

}  // namespace

TEST_CASE("r' transposes dense and sparse blocks", "[reorg]") {
  const bool sparse = GENERATE(false, true);
  TestContext t;
  t.set_matrix("X", x34(sparse));
  t.run("CP°r'°X·MATRIX·FP64°Y·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 4, 3, {1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12});
  // Without the optional thread count.
  t.run("CP°r'°X·MATRIX·FP64°Z·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Z"), 4, 3, {1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12});
}

TEST_CASE("r' on random, sparse, ultra-sparse, odd and empty shapes", "[reorg]") {
  struct Case {
    int64_t m, n;
    double sp;
  };
  const Case c =
      GENERATE(Case{1, 1, 1.0}, Case{37, 53, 1.0}, Case{70, 45, 0.1}, Case{300, 200, 0.001},
               Case{0, 5, 1.0}, Case{5, 0, 1.0}, Case{1, 33, 0.5});
  const bool as_sparse = GENERATE(false, true);
  const MatrixBlock a = random_block(c.m, c.n, c.sp, seed_from("r'") + c.m, -1, 1, as_sparse);
  TestContext t;
  t.set_matrix("X", a);
  t.run("CP°r'°X·MATRIX·FP64°Y·MATRIX·FP64°2");
  const MatrixBlock& y = t.matrix("Y");
  DMLRT_REQUIRE_CLOSE(y, ref_transpose(a));
  // The output format is the one SystemDS would pick.
  REQUIRE(y.is_sparse() == MatrixBlock::prefers_sparse(y.rows(), y.cols(), y.nnz()));
  // Transposing twice gives the input back.
  t.run("CP°r'°Y·MATRIX·FP64°Z·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Z"), a);
}

TEST_CASE("rshape follows matrix(X, rows, cols, byrow)", "[reorg]") {
  const bool sparse = GENERATE(false, true);
  TestContext t;
  t.set_matrix("X", x34(sparse));
  SECTION("byrow=TRUE keeps the row-major cell order") {
    t.run(
        "CP°rshape°X·MATRIX·FP64°2·SCALAR·INT64·true°6·SCALAR·INT64·true°-1·SCALAR·STRING·true°"
        "true·SCALAR·BOOLEAN·true°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 6, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  }
  SECTION("byrow=FALSE uses the column-major cell order (SystemDS output)") {
    t.run(
        "CP°rshape°X·MATRIX·FP64°6·SCALAR·INT64·true°2·SCALAR·INT64·true°-1·SCALAR·STRING·true°"
        "false·SCALAR·BOOLEAN·true°Y·MATRIX·FP64");
    // SystemDS: matrix(X, rows=6, cols=2, byrow=FALSE) prints 1 3 / 5 7 / 9 11 / 2 4 / 6 8 / 10 12
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 6, 2, {1, 3, 5, 7, 9, 11, 2, 4, 6, 8, 10, 12});
  }
  SECTION("to a column vector and back, with variable dims") {
    t.set_scalar("r", dmlrt::inst::ScalarValue::int64(12));
    t.set_scalar("c", dmlrt::inst::ScalarValue::fp64(1.0));
    t.run(
        "CP°rshape°X·MATRIX·FP64°r·SCALAR·INT64·false°c·SCALAR·FP64·false°-1·SCALAR·STRING·true°"
        "false·SCALAR·BOOLEAN·true°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 12, 1, {1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12});
  }
}

TEST_CASE("rshape on random sparse inputs matches a naive reshape", "[reorg]") {
  const double sp = GENERATE(1.0, 0.1, 0.001);
  const bool byrow = GENERATE(true, false);
  const MatrixBlock a = random_block(60, 50, sp, seed_from("rshape"), -1, 1, sp < 1.0);
  TestContext t;
  t.set_matrix("X", a);
  t.run(std::string("CP°rshape°X·MATRIX·FP64°40·SCALAR·INT64·true°75·SCALAR·INT64·true°") +
        "-1·SCALAR·STRING·true°" + (byrow ? "true" : "false") +
        "·SCALAR·BOOLEAN·true°Y·MATRIX·FP64");
  MatrixBlock ref = MatrixBlock::dense(40, 75, 0.0);
  for (int64_t i = 0; i < 60; ++i)
    for (int64_t j = 0; j < 50; ++j) {
      if (byrow) {
        ref.dense_values()[i * 50 + j] = a.get(i, j);
      } else {
        const int64_t idx = j * 60 + i;  // column-major position
        ref.dense_values()[(idx % 40) * 75 + idx / 40] = a.get(i, j);
      }
    }
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), ref);
}

TEST_CASE("rshape errors", "[reorg]") {
  TestContext t;
  t.set_matrix("X", x34(false));
  REQUIRE_THROWS_WITH(
      t.run("CP°rshape°X·MATRIX·FP64°5·SCALAR·INT64·true°2·SCALAR·INT64·true°-1·SCALAR·STRING·true°"
            "true·SCALAR·BOOLEAN·true°Y·MATRIX·FP64"),
      "rshape: cannot reshape a 3x4 matrix (12 cells) into 5x2 (10 cells)");
  REQUIRE_THROWS_AS(t.run("CP°rshape°X·MATRIX·FP64°5·SCALAR·INT64·true°Y·MATRIX·FP64"),
                    dmlrt::ParseError);
  REQUIRE_THROWS_WITH(
      t.run("CP°rshape°X·MATRIX·FP64°5·SCALAR·INT64·true°2·SCALAR·INT64·true°-1·SCALAR·STRING·true°"
            "true·SCALAR·BOOLEAN·true°Y·SCALAR·FP64"),
      Catch::Contains("rshape expects a matrix output"));
}

TEST_CASE("rdiag: vector to diagonal matrix and square matrix to vector", "[reorg]") {
  TestContext t;
  SECTION("column vector") {
    const bool sparse = GENERATE(false, true);
    t.set_matrix("v", sparse ? sparse_of(3, 1, {2, 0, -1}) : dense_of(3, 1, {2, 0, -1}));
    t.run("CP°rdiag°v·MATRIX·FP64°D·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("D"), 3, 3, {2, 0, 0, 0, 0, 0, 0, 0, -1});
  }
  SECTION("large vector gives a sparse diagonal") {
    const MatrixBlock v = random_block(500, 1, 1.0, seed_from("rdiag"));
    t.set_matrix("v", v);
    t.run("CP°rdiag°v·MATRIX·FP64°D·MATRIX·FP64");
    const MatrixBlock& d = t.matrix("D");
    REQUIRE(d.rows() == 500);
    REQUIRE(d.cols() == 500);
    REQUIRE(d.is_sparse());
    REQUIRE(d.nnz() == v.nnz());
    for (int64_t i = 0; i < 500; ++i) REQUIRE(d.get(i, i) == v.get(i, 0));
  }
  SECTION("square matrix") {
    const bool sparse = GENERATE(false, true);
    t.set_matrix("A", sparse ? sparse_of(3, 3, {1, 2, 3, 4, 0, 6, 7, 8, 9})
                             : dense_of(3, 3, {1, 2, 3, 4, 0, 6, 7, 8, 9}));
    t.run("CP°rdiag°A·MATRIX·FP64°d·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("d"), 3, 1, {1, 0, 9});
  }
  SECTION("1x1") {
    t.set_matrix("A", dense_of(1, 1, {4}));
    t.run("CP°rdiag°A·MATRIX·FP64°d·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("d"), 1, 1, {4});
  }
  SECTION("other shapes are an error") {
    t.set_matrix("X", x34(false));
    REQUIRE_THROWS_WITH(t.run("CP°rdiag°X·MATRIX·FP64°d·MATRIX·FP64"),
                        "rdiag: expects a column vector (n x 1) or a square matrix, got 3x4");
    t.set_matrix("r", dense_of(1, 3, {1, 2, 3}));
    REQUIRE_THROWS_AS(t.run("CP°rdiag°r·MATRIX·FP64°d·MATRIX·FP64"), dmlrt::ShapeError);
  }
}

TEST_CASE("rev reverses the row order", "[reorg]") {
  SECTION("hand values") {
    const bool sparse = GENERATE(false, true);
    TestContext t;
    t.set_matrix("X", x34(sparse));
    t.run("CP°rev°X·MATRIX·FP64°Y·MATRIX·FP64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 4, {9, 10, 11, 12, 5, 6, 7, 8, 1, 2, 3, 4});
  }
  SECTION("random shapes") {
    struct Case {
      int64_t m, n;
      double sp;
    };
    const Case c = GENERATE(Case{1, 1, 1.0}, Case{41, 7, 1.0}, Case{100, 30, 0.1},
                            Case{400, 100, 0.001}, Case{0, 3, 1.0}, Case{3, 0, 1.0});
    const MatrixBlock a = random_block(c.m, c.n, c.sp, seed_from("rev") + c.n, -1, 1, c.sp < 1);
    TestContext t;
    t.set_matrix("X", a);
    t.run("CP°rev°X·MATRIX·FP64°Y·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), ref_rev(a));
    REQUIRE(t.matrix("Y").is_sparse() == (c.sp < 0.4 && a.nnz() > 0 && c.m * c.n > 100));
  }
}

TEST_CASE("reorg operand errors", "[reorg]") {
  TestContext t;
  REQUIRE_THROWS_WITH(t.run("CP°r'°x·SCALAR·FP64°Y·MATRIX·FP64°2"),
                      Catch::Contains("r' expects a matrix input, got x·SCALAR·FP64"));
  REQUIRE_THROWS_WITH(t.run("CP°rev°X·MATRIX·FP64"),
                      Catch::Contains("rev expects 2 to 3 operand fields, got 1"));
}

TEST_CASE("roll rolls rows down by the shift on dense and CSR", "[reorg]") {
  for (const bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("X", x34(sparse));
    t.set_scalar("k", dmlrt::inst::ScalarValue::int64(-4));
    t.run("CP°roll°X·MATRIX·FP64°1·SCALAR·INT64·true°Y·MATRIX·FP64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("Y"), dense_of(3, 4, {9, 10, 11, 12, 1, 2, 3, 4, 5, 6, 7, 8}));
    // -4 mod 3 rolls up by one, as SystemDS's roll(X, -4).
    t.run("CP°roll°X·MATRIX·FP64°k·SCALAR·INT64·false°Z·MATRIX·FP64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("Z"), dense_of(3, 4, {5, 6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4}));
  }
  TestContext t;
  t.set_matrix("E", MatrixBlock::dense(0, 3, 0.0));
  t.run("CP°roll°E·MATRIX·FP64°2·SCALAR·INT64·true°Y·MATRIX·FP64");
  REQUIRE(t.matrix("Y").rows() == 0);
}

TEST_CASE("roll operand errors", "[reorg]") {
  TestContext t;
  REQUIRE_THROWS_WITH(t.run("CP°roll°X·MATRIX·FP64°S·MATRIX·FP64°Y·MATRIX·FP64°2"),
                      Catch::Contains("roll expects a scalar shift operand, got S·MATRIX·FP64"));
  REQUIRE_THROWS_WITH(t.run("CP°roll°X·MATRIX·FP64°Y·MATRIX·FP64"),
                      Catch::Contains("roll expects 3 to 4 operand fields, got 2"));
}
