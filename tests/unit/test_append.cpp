// Tests of append (2-input cbind/rbind), n-ary cbind and rbind: hand values, dense/sparse mixes,
// empty inputs as SystemDS's runtime handles them, output format, the shape errors, and append of
// strings.
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

MatrixBlock block(int64_t m, int64_t n, std::vector<double> v, bool sparse) {
  return sparse ? sparse_of(m, n, std::move(v)) : dense_of(m, n, std::move(v));
}

// Naive references through get().
MatrixBlock ref_cbind(const std::vector<MatrixBlock>& in) {
  int64_t n = 0;
  for (const auto& b : in) n += b.cols();
  MatrixBlock out = MatrixBlock::dense(in[0].rows(), n, 0.0);
  int64_t off = 0;
  for (const auto& b : in) {
    for (int64_t i = 0; i < b.rows(); ++i)
      for (int64_t j = 0; j < b.cols(); ++j) out.dense_values()[i * n + off + j] = b.get(i, j);
    off += b.cols();
  }
  return out;
}

MatrixBlock ref_rbind(const std::vector<MatrixBlock>& in) {
  int64_t m = 0;
  for (const auto& b : in) m += b.rows();
  const int64_t n = in[0].cols();
  MatrixBlock out = MatrixBlock::dense(m, n, 0.0);
  int64_t off = 0;
  for (const auto& b : in) {
    for (int64_t i = 0; i < b.rows(); ++i)
      for (int64_t j = 0; j < n; ++j) out.dense_values()[(off + i) * n + j] = b.get(i, j);
    off += b.rows();
  }
  return out;
}

}  // namespace

TEST_CASE("append: true is cbind, false is rbind", "[append]") {
  const bool sa = GENERATE(false, true);
  const bool sb = GENERATE(false, true);
  TestContext t;
  t.set_matrix("A", block(2, 2, {1, 2, 3, 4}, sa));
  t.set_matrix("B", block(2, 1, {5, 6}, sb));
  // SystemDS: CP append _mVar14 _mVar15 4.SCALAR.INT64.true _mVar16 true
  t.run("CP°append°A·MATRIX·FP64°B·MATRIX·FP64°2·SCALAR·INT64·true°C·MATRIX·FP64°true");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 3, {1, 2, 5, 3, 4, 6});
  t.set_matrix("R", block(1, 2, {7, 0}, sb));
  t.run("CP°append°A·MATRIX·FP64°R·MATRIX·FP64°2·SCALAR·INT64·true°C·MATRIX·FP64°false");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 3, 2, {1, 2, 3, 4, 7, 0});
}

TEST_CASE("n-ary cbind and rbind", "[append]") {
  const bool sparse = GENERATE(false, true);
  TestContext t;
  t.set_matrix("A", block(2, 2, {1, 2, 3, 4}, sparse));
  t.set_matrix("B", block(2, 1, {5, 6}, !sparse));
  t.set_matrix("C", block(2, 3, {0, 0, 7, 8, 0, 0}, sparse));
  t.run("CP°cbind°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 6, {1, 2, 5, 0, 0, 7, 3, 4, 6, 8, 0, 0});
  t.set_matrix("D", block(1, 2, {9, 10}, !sparse));
  t.run("CP°rbind°A·MATRIX·FP64°D·MATRIX·FP64°A·MATRIX·FP64°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 5, 2, {1, 2, 3, 4, 9, 10, 1, 2, 3, 4});
  // One input is a copy.
  t.run("CP°rbind°A·MATRIX·FP64°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 2, {1, 2, 3, 4});
}

TEST_CASE("cbind/rbind on random sparse inputs stay sparse when the result is", "[append]") {
  const double sp = GENERATE(1.0, 0.1, 0.001);
  const uint64_t seed = seed_from("append random");
  std::vector<MatrixBlock> in = {random_block(120, 30, sp, seed, -1, 1, sp < 1),
                                 random_block(120, 1, sp, seed + 1, -1, 1, false),
                                 random_block(120, 77, sp, seed + 2, -1, 1, sp < 1)};
  TestContext t;
  t.set_matrix("A", in[0]);
  t.set_matrix("B", in[1]);
  t.set_matrix("C", in[2]);
  t.run("CP°cbind°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°Y·MATRIX·FP64");
  const MatrixBlock& y = t.matrix("Y");
  DMLRT_REQUIRE_CLOSE(y, ref_cbind(in));
  REQUIRE(y.is_sparse() == MatrixBlock::prefers_sparse(120, 108, y.nnz()));
  if (sp < 0.4) REQUIRE(y.is_sparse());

  std::vector<MatrixBlock> rin = {in[0], random_block(1, 30, sp, seed + 3), in[0]};
  t.set_matrix("R", rin[1]);
  t.run("CP°rbind°A·MATRIX·FP64°R·MATRIX·FP64°A·MATRIX·FP64°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), ref_rbind(rin));
  REQUIRE(t.matrix("Y").is_sparse() == (sp < 0.4));
}

TEST_CASE("append with empty inputs follows SystemDS's runtime dimension checks", "[append]") {
  TestContext t;
  t.set_matrix("X", dense_of(3, 4, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  t.set_matrix("E04", MatrixBlock::dense(0, 4));
  t.set_matrix("E30", MatrixBlock::dense(3, 0));
  // rbind(X, matrix(0, rows=0, cols=4)) is X (SystemDS).
  t.run("CP°append°X·MATRIX·FP64°E04·MATRIX·FP64°3·SCALAR·INT64·true°Y·MATRIX·FP64°false");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), dense_of(3, 4, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  // cbind of two 0x4 blocks is 0x8 (SystemDS).
  t.run("CP°cbind°E04·MATRIX·FP64°E04·MATRIX·FP64°Y·MATRIX·FP64");
  REQUIRE(t.matrix("Y").rows() == 0);
  REQUIRE(t.matrix("Y").cols() == 8);
  // A 3x0 block adds no columns.
  t.run("CP°cbind°E30·MATRIX·FP64°X·MATRIX·FP64°E30·MATRIX·FP64°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), dense_of(3, 4, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  // SystemDS: "Invalid nRow dimension for append cbind: was 0 should be: 3".
  REQUIRE_THROWS_WITH(
      t.run("CP°append°X·MATRIX·FP64°E04·MATRIX·FP64°4·SCALAR·INT64·true°Y·MATRIX·FP64°true"),
      "append (cbind): row counts differ: input 1 is 3x4, input 2 is 0x4");
  t.set_matrix("E00", MatrixBlock::dense(0, 0));
  REQUIRE_THROWS_WITH(t.run("CP°rbind°X·MATRIX·FP64°E00·MATRIX·FP64°X·MATRIX·FP64°Y·MATRIX·FP64"),
                      "rbind: column counts differ: input 1 is 3x4, input 2 is 0x0");
}

TEST_CASE("append shape and operand errors", "[append]") {
  TestContext t;
  t.set_matrix("X", dense_of(3, 4, std::vector<double>(12, 1.0)));
  t.set_matrix("T", dense_of(4, 3, std::vector<double>(12, 1.0)));
  REQUIRE_THROWS_WITH(
      t.run("CP°append°X·MATRIX·FP64°T·MATRIX·FP64°4·SCALAR·INT64·true°Y·MATRIX·FP64°true"),
      "append (cbind): row counts differ: input 1 is 3x4, input 2 is 4x3");
  REQUIRE_THROWS_WITH(
      t.run("CP°append°X·MATRIX·FP64°T·MATRIX·FP64°3·SCALAR·INT64·true°Y·MATRIX·FP64°false"),
      "append (rbind): column counts differ: input 1 is 3x4, input 2 is 4x3");
  REQUIRE_THROWS_WITH(t.run("CP°cbind°X·MATRIX·FP64°X·MATRIX·FP64°T·MATRIX·FP64°Y·MATRIX·FP64"),
                      "cbind: row counts differ: input 1 is 3x4, input 3 is 4x3");
  REQUIRE_THROWS_WITH(t.run("CP°rbind°X·MATRIX·FP64°T·MATRIX·FP64°Y·MATRIX·FP64"),
                      "rbind: column counts differ: input 1 is 3x4, input 2 is 4x3");
  // DML rejects scalars in cbind/rbind ("Expecting matrix or frame parameter").
  REQUIRE_THROWS_WITH(t.run("CP°cbind°X·MATRIX·FP64°5·SCALAR·INT64·true°Y·MATRIX·FP64"),
                      Catch::Contains("cbind input 2 (5·SCALAR·INT64·true) is not a matrix"));
  REQUIRE_THROWS_WITH(
      t.run("CP°append°X·MATRIX·FP64°X·MATRIX·FP64°4·SCALAR·INT64·true°Y·MATRIX·FP64°yes"),
      Catch::Contains("append expects true (cbind) or false (rbind) as its last field, got 'yes'"));
  REQUIRE_THROWS_AS(t.run("CP°append°X·MATRIX·FP64°X·MATRIX·FP64°Y·MATRIX·FP64"),
                    dmlrt::ParseError);
  REQUIRE_THROWS_AS(t.run("CP°cbind°X·MATRIX·FP64"), dmlrt::ParseError);
}

TEST_CASE("append of strings joins them with a line feed, as SystemDS does", "[append]") {
  TestContext t;
  // The exact line SystemDS compiles for t = append(s, "b").
  t.set_scalar("s", dmlrt::inst::ScalarValue::string("a"));
  t.run(
      "CP°append°s·SCALAR·STRING·false°b·SCALAR·STRING·true°-1·SCALAR·INT64·true°"
      "o·SCALAR·STRING°true");
  REQUIRE(t.scalar("o").to_string() == "a\nb");
  t.run(
      "CP°append°o·SCALAR·STRING·false°·SCALAR·STRING·true°-1·SCALAR·INT64·true°"
      "o·SCALAR·STRING°true");
  REQUIRE(t.scalar("o").to_string() == "a\nb\n");
  // A number's string value is Java's.
  t.set_scalar("d", dmlrt::inst::ScalarValue::fp64(21.0));
  t.run(
      "CP°append°o·SCALAR·STRING·false°d·SCALAR·FP64·false°-1·SCALAR·INT64·true°"
      "o·SCALAR·STRING°true");
  REQUIRE(t.scalar("o").to_string() == "a\nb\n\n21.0");
}

TEST_CASE("append of strings: length limit and operand errors", "[append]") {
  TestContext t;
  // SystemDS's StringObject.MAX_STRING_SIZE, counted in UTF-16 units without the line feed.
  t.set_scalar("h", dmlrt::inst::ScalarValue::string(std::string(1 << 19, 'x')));
  t.run(
      "CP°append°h·SCALAR·STRING·false°h·SCALAR·STRING·false°-1·SCALAR·INT64·true°"
      "o·SCALAR·STRING°true");
  REQUIRE(t.scalar("o").to_string().size() == (1u << 20) + 1);
  REQUIRE_THROWS_WITH(t.run("CP°append°h·SCALAR·STRING·false°o·SCALAR·STRING·false°"
                            "-1·SCALAR·INT64·true°o·SCALAR·STRING°true"),
                      "append: output string length exceeds maximum scalar string length "
                      "(1572865 > 1048576)");
  // "é" is two UTF-8 bytes but one Java char.
  std::string e;
  for (int i = 0; i < (1 << 19); ++i) e += "\xC3\xA9";
  t.set_scalar("e", dmlrt::inst::ScalarValue::string(e));
  t.run(
      "CP°append°e·SCALAR·STRING·false°h·SCALAR·STRING·false°-1·SCALAR·INT64·true°"
      "o·SCALAR·STRING°true");
  t.set_matrix("X", dense_of(1, 1, {1.0}));
  REQUIRE_THROWS_WITH(t.run("CP°append°a·SCALAR·STRING·true°X·MATRIX·FP64°-1·SCALAR·INT64·true°"
                            "o·SCALAR·STRING°true"),
                      Catch::Contains("append of strings takes two scalars, got "
                                      "a·SCALAR·STRING·true and X·MATRIX·FP64"));
  REQUIRE_THROWS_WITH(t.run("CP°append°a·SCALAR·STRING·true°b·SCALAR·STRING·true°"
                            "-1·SCALAR·INT64·true°Y·MATRIX·FP64°true"),
                      Catch::Contains("append of strings expects a scalar output, got "
                                      "Y·MATRIX·FP64"));
  REQUIRE_THROWS_AS(t.run("CP°append°a·SCALAR·STRING·true°b·SCALAR·STRING·true°"
                          "o·SCALAR·STRING"),
                    dmlrt::ParseError);
}
