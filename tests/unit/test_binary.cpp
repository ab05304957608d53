// Cell-wise binary ops through their instructions: every opcode on dense and CSR inputs, right
// row/column-vector and outer broadcasting, matrix-scalar in both orders, scalar-scalar value
// types and string concatenation, NaN/Inf, division by zero, negative modulus, empty and 1x1
// shapes, and the error messages. Expected values are hand-computed or printed by SystemDS 3.4.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::inst::ScalarValue;
using dmlrt::inst::ValueType;
using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::random_block;
using dmlrt::test::seed_from;
using dmlrt::test::sparse_of;
using dmlrt::test::TestContext;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

const std::vector<std::string> kAllOps = {"+",  "-",   "*",   "/",   "^",  "%%", "%/%",
                                          "==", "!=",  "<",   ">",   "<=", ">=", "&&",
                                          "||", "min", "max", "1-*", "-nz"};

// "CP°op°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°2"
std::string mm(const std::string& op, const std::string& a = "A", const std::string& b = "B") {
  return "CP°" + op + "°" + a + "·MATRIX·FP64°" + b + "·MATRIX·FP64°C·MATRIX·FP64°2";
}

// Runs `op` on (a, b) and returns C.
MatrixBlock run_mm(const std::string& op, const MatrixBlock& a, const MatrixBlock& b) {
  TestContext t;
  t.set_matrix("A", a);
  t.set_matrix("B", b);
  t.run(mm(op));
  return t.matrix("C");
}

// Matrix-scalar with the scalar literal `s` (FP64) on the right, or on the left.
MatrixBlock run_ms(const std::string& op, const MatrixBlock& a, const std::string& s,
                   bool scalar_left) {
  TestContext t;
  t.set_matrix("A", a);
  const std::string lit = s + "·SCALAR·FP64·true";
  const std::string m = "A·MATRIX·FP64";
  t.run("CP°" + op + "°" + (scalar_left ? lit : m) + "°" + (scalar_left ? m : lit) +
        "°C·MATRIX·FP64°2");
  return t.matrix("C");
}

// Scalar-scalar: operands given as full operand strings; output value type `out_vt`.
ScalarValue run_ss(const std::string& op, const std::string& x, const std::string& y,
                   const std::string& out_vt) {
  TestContext t;
  t.run("CP°" + op + "°" + x + "°" + y + "°s·SCALAR·" + out_vt);
  return t.scalar("s");
}

// Independent per-cell reference for the ops whose C++ spelling is obvious.
double ref_simple(const std::string& op, double x, double y) {
  if (op == "+") return x + y;
  if (op == "-") return x - y;
  if (op == "*") return x * y;
  if (op == "/") return x / y;
  if (op == "==") return x == y;
  if (op == "!=") return x != y;
  if (op == "<") return x < y;
  if (op == ">") return x > y;
  if (op == "<=") return x <= y;
  if (op == ">=") return x >= y;
  if (op == "1-*") return 1 - x * y;
  if (op == "-nz") return x == 0 ? 0 : x - y;
  if (op == "&&") return (x != 0) && (y != 0);
  if (op == "||") return (x != 0) || (y != 0);
  if (op == "min") return std::isnan(x) || std::isnan(y) ? kNaN : std::min(x, y);
  return std::isnan(x) || std::isnan(y) ? kNaN : std::max(x, y);  // max
}

const std::vector<std::string> kSimpleOps = {"+",  "-",  "*",  "/",  "==",  "!=",  "<",   ">",
                                             "<=", ">=", "&&", "||", "min", "max", "1-*", "-nz"};

}  // namespace

TEST_CASE("binary %% %/% ^ follow SystemDS on dense and sparse", "[binary]") {
  // SystemDS 3.4: A %% B, A %/% B, A ^ B (truncating integer division; %% takes x's sign).
  const std::vector<double> a = {5, -5, 5, -5, 0, 7.5, -7.5, 3};
  const std::vector<double> b = {3, 3, -3, -3, 0, 0, 2, -2};
  for (bool sa : {false, true})
    for (bool sb : {false, true}) {
      const MatrixBlock A = sa ? sparse_of(2, 4, a) : dense_of(2, 4, a);
      const MatrixBlock B = sb ? sparse_of(2, 4, b) : dense_of(2, 4, b);
      DMLRT_REQUIRE_CLOSE(run_mm("%%", A, B), 2, 4, {2, -2, 2, -2, kNaN, kNaN, -1.5, 1});
      DMLRT_REQUIRE_CLOSE(run_mm("%/%", A, B), 2, 4, {1, -1, -1, 1, kNaN, kInf, -3, -1});
      DMLRT_REQUIRE_CLOSE(run_mm("^", A, B), 2, 4,
                          {125, -125, 1.0 / 125, -1.0 / 125, 1, 1, 56.25, 1.0 / 9});
    }
}

TEST_CASE("binary NaN handling matches SystemDS", "[binary]") {
  // A = [1 0; NaN 2], B = [NaN 1; 1 0]; values printed by SystemDS 3.4.
  const std::vector<double> a = {1, 0, kNaN, 2};
  const std::vector<double> b = {kNaN, 1, 1, 0};
  for (bool sparse : {false, true}) {
    const MatrixBlock A = sparse ? sparse_of(2, 2, a) : dense_of(2, 2, a);
    const MatrixBlock B = sparse ? sparse_of(2, 2, b) : dense_of(2, 2, b);
    DMLRT_REQUIRE_CLOSE(run_mm("max", A, B), 2, 2, {kNaN, 1, kNaN, 2});
    DMLRT_REQUIRE_CLOSE(run_mm("min", A, B), 2, 2, {kNaN, 0, kNaN, 0});
    DMLRT_REQUIRE_CLOSE(run_mm("==", A, B), 2, 2, {0, 0, 0, 0});
    DMLRT_REQUIRE_CLOSE(run_mm("!=", A, B), 2, 2, {1, 1, 1, 1});
    DMLRT_REQUIRE_CLOSE(run_mm("<", A, B), 2, 2, {0, 1, 0, 0});
    DMLRT_REQUIRE_CLOSE(run_mm("&&", A, B), 2, 2, {1, 0, 1, 0});  // NaN counts as true
    DMLRT_REQUIRE_CLOSE(run_mm("||", A, B), 2, 2, {1, 1, 1, 1});
    DMLRT_REQUIRE_CLOSE(run_mm("^", A, B), 2, 2, {kNaN, 0, kNaN, 1});  // Java: 1^NaN = NaN
    DMLRT_REQUIRE_CLOSE(run_mm("1-*", A, B), 2, 2, {kNaN, 1, kNaN, 1});
    DMLRT_REQUIRE_CLOSE(run_ms("-nz", A, "3", false), 2, 2, {-2, 0, kNaN, -1});
  }
}

TEST_CASE("binary simple ops on random dense, sparse and ultra-sparse inputs", "[binary]") {
  const uint64_t seed = seed_from("binary simple ops");
  for (double sp : {1.0, 0.1, 0.001}) {
    const MatrixBlock a = random_block(37, 23, sp, seed, -2, 2);
    const MatrixBlock b = random_block(37, 23, sp, seed + 1, -2, 2);
    for (bool sa : {false, true})
      for (bool sb : {false, true}) {
        const MatrixBlock A = sa ? a.to_sparse() : a;
        const MatrixBlock B = sb ? b.to_sparse() : b;
        for (const auto& op : kSimpleOps) {
          INFO("op " << op << " sparsity " << sp << " sparse " << sa << sb);
          std::vector<double> ref;
          for (int64_t r = 0; r < 37; ++r)
            for (int64_t c = 0; c < 23; ++c)
              ref.push_back(ref_simple(op, a.get(r, c), b.get(r, c)));
          const MatrixBlock got = run_mm(op, A, B);
          DMLRT_REQUIRE_CLOSE(got, 37, 23, ref);
        }
      }
  }
}

TEST_CASE("binary sparse-safe ops keep sparse outputs", "[binary]") {
  const uint64_t seed = seed_from("binary sparse outputs");
  const MatrixBlock a = random_block(200, 150, 0.01, seed, -1, 1, true);
  const MatrixBlock b = random_block(200, 150, 0.01, seed + 7, -1, 1, true);
  CHECK(run_mm("*", a, b).is_sparse());
  CHECK(run_mm("+", a, b).is_sparse());
  CHECK(run_mm("-", a, b).is_sparse());
  CHECK(run_mm("*", a, b.to_dense()).is_sparse());
  CHECK(run_ms("*", a, "3", false).is_sparse());
  CHECK(run_ms("-nz", a, "3", false).is_sparse());
  CHECK_FALSE(run_ms("+", a, "1", false).is_sparse());
  CHECK_FALSE(run_mm("==", a, b).is_sparse());  // 0 == 0 is 1
  // The row-vector broadcast of * stays sparse too.
  const MatrixBlock r = random_block(1, 150, 1.0, seed + 9, 1, 2);
  const MatrixBlock got = run_mm("*", a, r);
  CHECK(got.is_sparse());
  std::vector<double> ref;
  for (int64_t i = 0; i < 200; ++i)
    for (int64_t j = 0; j < 150; ++j) ref.push_back(a.get(i, j) * r.get(0, j));
  DMLRT_REQUIRE_CLOSE(got, 200, 150, ref);
}

TEST_CASE("binary IEEE values do not depend on the format", "[binary]") {
  // 0 * Inf and 0 * NaN are NaN even where the zero is a sparse cell.
  const MatrixBlock a = sparse_of(2, 3, {0, 2, 0, 0, 0, 1});
  const MatrixBlock b = dense_of(2, 3, {kInf, 1, 1, 1, kNaN, 2});
  DMLRT_REQUIRE_CLOSE(run_mm("*", a, b), 2, 3, {kNaN, 2, 0, 0, kNaN, 2});
  DMLRT_REQUIRE_CLOSE(run_mm("*", b, a), 2, 3, {kNaN, 2, 0, 0, kNaN, 2});
  DMLRT_REQUIRE_CLOSE(run_ms("*", a, "Infinity", false), 2, 3,
                      {kNaN, kInf, kNaN, kNaN, kNaN, kInf});
  // Division by zero.
  DMLRT_REQUIRE_CLOSE(run_ms("/", a, "0", false), 2, 3, {kNaN, kInf, kNaN, kNaN, kNaN, kInf});
  DMLRT_REQUIRE_CLOSE(run_ms("/", a, "0", true), 2, 3, {kNaN, 0, kNaN, kNaN, kNaN, 0});
  DMLRT_REQUIRE_CLOSE(run_ms("%/%", dense_of(1, 3, {-4, 0, 4}), "0", false), 1, 3,
                      {-kInf, kNaN, kInf});
  DMLRT_REQUIRE_CLOSE(run_ms("%%", dense_of(1, 3, {-4, 0, 4}), "0", false), 1, 3,
                      {kNaN, kNaN, kNaN});
}

TEST_CASE("binary broadcasting: right row and column vectors and outer vectors", "[binary]") {
  // SystemDS 3.4 output of X - r, X - c and outer(c, r, "-").
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<double> r = {1, 2, 3, 4};
  const std::vector<double> c = {10, 20, 30};
  for (bool sparse : {false, true}) {
    auto mk = [&](int64_t m, int64_t n, const std::vector<double>& v) {
      return sparse ? sparse_of(m, n, v) : dense_of(m, n, v);
    };
    DMLRT_REQUIRE_CLOSE(run_mm("-", mk(3, 4, x), mk(1, 4, r)), 3, 4,
                        {0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8});
    DMLRT_REQUIRE_CLOSE(run_mm("-", mk(3, 4, x), mk(3, 1, c)), 3, 4,
                        {-9, -8, -7, -6, -15, -14, -13, -12, -21, -20, -19, -18});
    DMLRT_REQUIRE_CLOSE(run_mm("-", mk(3, 1, c), mk(1, 4, r)), 3, 4,
                        {9, 8, 7, 6, 19, 18, 17, 16, 29, 28, 27, 26});
    DMLRT_REQUIRE_CLOSE(run_mm("<", mk(3, 1, c), mk(1, 3, c)), 3, 3, {0, 1, 1, 0, 0, 1, 0, 0, 0});
    DMLRT_REQUIRE_CLOSE(run_mm("*", mk(3, 4, x), mk(1, 4, r)), 3, 4,
                        {1, 4, 9, 16, 5, 12, 21, 32, 9, 20, 33, 48});
    DMLRT_REQUIRE_CLOSE(run_mm("/", mk(3, 4, x), mk(3, 1, c)), 3, 4,
                        {0.1, 0.2, 0.3, 0.4, 0.25, 0.3, 0.35, 0.4, 0.3, 10.0 / 30, 11.0 / 30, 0.4});
  }
}

TEST_CASE("binary shape errors name both shapes", "[binary]") {
  // SystemDS only broadcasts the right operand: a left row vector is rejected.
  REQUIRE_THROWS_WITH(
      run_mm("-", dense_of(1, 4, {1, 2, 3, 4}), dense_of(3, 4, std::vector<double>(12, 1))),
      Catch::Contains("-: incompatible shapes 1x4 and 3x4"));
  REQUIRE_THROWS_AS(run_mm("+", dense_of(2, 3, std::vector<double>(6, 1)),
                           dense_of(3, 2, std::vector<double>(6, 1))),
                    dmlrt::ShapeError);
  REQUIRE_THROWS_WITH(run_mm("+", dense_of(2, 3, std::vector<double>(6, 1)),
                             dense_of(3, 2, std::vector<double>(6, 1))),
                      Catch::Contains("+: incompatible shapes 2x3 and 3x2"));
}

TEST_CASE("binary matrix-scalar in both orders", "[binary]") {
  const std::vector<double> v = {-7, -2, 0, 2, 7, 7.5};
  for (bool sparse : {false, true}) {
    const MatrixBlock x = sparse ? sparse_of(2, 3, v) : dense_of(2, 3, v);
    DMLRT_REQUIRE_CLOSE(run_ms("-", x, "10", false), 2, 3, {-17, -12, -10, -8, -3, -2.5});
    DMLRT_REQUIRE_CLOSE(run_ms("-", x, "10", true), 2, 3, {17, 12, 10, 8, 3, 2.5});
    DMLRT_REQUIRE_CLOSE(run_ms("/", x, "2", true), 2, 3, {-2.0 / 7, -1, kInf, 1, 2.0 / 7, 2 / 7.5});
    DMLRT_REQUIRE_CLOSE(run_ms("^", x, "2", false), 2, 3, {49, 4, 0, 4, 49, 56.25});
    DMLRT_REQUIRE_CLOSE(run_ms("^", x, "2", true), 2, 3,
                        {1.0 / 128, 0.25, 1, 4, 128, std::pow(2.0, 7.5)});
    DMLRT_REQUIRE_CLOSE(run_ms("%%", x, "3", false), 2, 3, {-1, -2, 0, 2, 1, 1.5});
    DMLRT_REQUIRE_CLOSE(run_ms("%%", x, "-3", false), 2, 3, {-1, -2, 0, 2, 1, 1.5});
    DMLRT_REQUIRE_CLOSE(run_ms("%%", x, "10", true), 2, 3, {3, 0, kNaN, 0, 3, 2.5});
    DMLRT_REQUIRE_CLOSE(run_ms("%/%", x, "2", false), 2, 3, {-3, -1, 0, 1, 3, 3});
    DMLRT_REQUIRE_CLOSE(run_ms("%/%", x, "-15", true), 2, 3, {2, 7, -kInf, -7, -2, -2});
    DMLRT_REQUIRE_CLOSE(run_ms("<", x, "2", false), 2, 3, {1, 1, 1, 0, 0, 0});
    DMLRT_REQUIRE_CLOSE(run_ms("<", x, "2", true), 2, 3, {0, 0, 0, 0, 1, 1});
    DMLRT_REQUIRE_CLOSE(run_ms(">=", x, "2", true), 2, 3, {1, 1, 1, 1, 0, 0});
    DMLRT_REQUIRE_CLOSE(run_ms("max", x, "0", false), 2, 3, {0, 0, 0, 2, 7, 7.5});
    DMLRT_REQUIRE_CLOSE(run_ms("min", x, "0", true), 2, 3, {-7, -2, 0, 0, 0, 0});
    DMLRT_REQUIRE_CLOSE(run_ms("max", x, "NaN", false), 2, 3, {kNaN, kNaN, kNaN, kNaN, kNaN, kNaN});
    DMLRT_REQUIRE_CLOSE(run_ms("&&", x, "1", false), 2, 3, {1, 1, 0, 1, 1, 1});
    DMLRT_REQUIRE_CLOSE(run_ms("||", x, "0", true), 2, 3, {1, 1, 0, 1, 1, 1});
    DMLRT_REQUIRE_CLOSE(run_ms("1-*", x, "2", false), 2, 3, {15, 5, 1, -3, -13, -14});
    DMLRT_REQUIRE_CLOSE(run_ms("-nz", x, "1", false), 2, 3, {-8, -3, 0, 1, 6, 6.5});
  }
}

TEST_CASE("binary integer and boolean scalar operands of matrix ops", "[binary]") {
  TestContext t;
  t.set_matrix("A", dense_of(1, 3, {1, 2, 3}));
  t.run("CP°*°A·MATRIX·FP64°2·SCALAR·INT64·true°C·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 1, 3, {2, 4, 6});
  t.run("CP°+°TRUE·SCALAR·BOOLEAN·true°A·MATRIX·FP64°C·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 1, 3, {2, 3, 4});
  t.set_scalar("s", ScalarValue::string("abc"));
  REQUIRE_THROWS_WITH(t.run("CP°+°A·MATRIX·FP64°s·SCALAR·STRING°C·MATRIX·FP64°2"),
                      Catch::Contains("string scalar 'abc' cannot be combined with a matrix"));
}

TEST_CASE("binary empty and 1x1 shapes", "[binary]") {
  for (const auto& op : kAllOps) {
    INFO(op);
    const MatrixBlock e = run_mm(op, MatrixBlock::dense(0, 3), MatrixBlock::dense(0, 3));
    CHECK(e.rows() == 0);
    CHECK(e.cols() == 3);
    const MatrixBlock e2 = run_ms(op, MatrixBlock::dense(4, 0), "2", false);
    CHECK(e2.rows() == 4);
    CHECK(e2.cols() == 0);
    const MatrixBlock e3 = run_mm(op, MatrixBlock::empty_sparse(0, 0), MatrixBlock::dense(0, 0));
    CHECK(e3.size() == 0);
  }
  DMLRT_REQUIRE_CLOSE(run_mm("+", dense_of(1, 1, {2}), dense_of(1, 1, {3})), 1, 1, {5});
  DMLRT_REQUIRE_CLOSE(run_mm("^", sparse_of(1, 1, {2}), dense_of(1, 1, {3})), 1, 1, {8});
  // An m x 1 column op a 1x1: broadcast as a row vector of length 1.
  DMLRT_REQUIRE_CLOSE(run_mm("*", dense_of(3, 1, {1, 2, 3}), dense_of(1, 1, {2})), 3, 1, {2, 4, 6});
}

TEST_CASE("binary GPU layout and InPlace flag are accepted", "[binary]") {
  TestContext t;
  t.set_matrix("A", dense_of(1, 2, {1, 2}));
  t.set_matrix("B", dense_of(1, 2, {3, 4}));
  t.run("GPU°+°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 1, 2, {4, 6});
  t.run("CP°*°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°2°InPlace");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 1, 2, {3, 8});
}

TEST_CASE("binary scalar-scalar value types follow SystemDS", "[binary]") {
  const std::string i7 = "7·SCALAR·INT64·true", i2 = "2·SCALAR·INT64·true",
                    n7 = "-7·SCALAR·INT64·true", i0 = "0·SCALAR·INT64·true",
                    d2 = "2.0·SCALAR·FP64·true", bt = "TRUE·SCALAR·BOOLEAN·true";
  // Values and print forms as SystemDS 3.4 prints them for the same plan lines.
  auto check = [](const ScalarValue& v, ValueType vt, const std::string& printed) {
    CHECK(v.type() == vt);
    CHECK(v.to_string() == printed);
  };
  check(run_ss("+", i7, i2, "INT64"), ValueType::kINT64, "9");
  check(run_ss("-", i7, i2, "INT64"), ValueType::kINT64, "5");
  check(run_ss("*", i7, i2, "INT64"), ValueType::kINT64, "14");
  check(run_ss("/", i7, i2, "FP64"), ValueType::kFP64, "3.5");
  check(run_ss("^", i7, i2, "FP64"), ValueType::kFP64, "49.0");
  check(run_ss("%%", i7, i2, "INT64"), ValueType::kINT64, "1");
  check(run_ss("%%", n7, i2, "INT64"), ValueType::kINT64, "-1");
  check(run_ss("%/%", i7, i2, "INT64"), ValueType::kINT64, "3");
  check(run_ss("%/%", n7, i2, "INT64"), ValueType::kINT64, "-3");
  check(run_ss("%%", i7, i0, "INT64"), ValueType::kINT64, "0");  // NaN cast to long
  check(run_ss("min", i7, i2, "INT64"), ValueType::kINT64, "2");
  check(run_ss("max", i7, i2, "STRING"), ValueType::kINT64, "7");
  check(run_ss("<", i7, i2, "BOOLEAN"), ValueType::kBoolean, "FALSE");
  check(run_ss("==", i7, "7.0·SCALAR·FP64·true", "BOOLEAN"), ValueType::kBoolean, "TRUE");
  check(run_ss("+", i7, d2, "FP64"), ValueType::kFP64, "9.0");
  check(run_ss("*", d2, d2, "FP64"), ValueType::kFP64, "4.0");
  check(run_ss("+", bt, bt, "BOOLEAN"), ValueType::kFP64, "2.0");
  check(run_ss("&&", bt, bt, "BOOLEAN"), ValueType::kBoolean, "TRUE");
  check(run_ss("||", d2, "false·SCALAR·BOOLEAN·true", "BOOLEAN"), ValueType::kFP64, "1.0");
  check(run_ss("==", bt, "1·SCALAR·INT64·true", "BOOLEAN"), ValueType::kBoolean, "TRUE");
  // Integer overflow of an INT64 result is an error, as in SystemDS.
  REQUIRE_THROWS_AS(run_ss("%/%", i7, i0, "INT64"), dmlrt::RuntimeError);
  REQUIRE_THROWS_WITH(run_ss("%/%", i7, i0, "INT64"),
                      Catch::Contains("integer operation created numerical result overflow"));
  // An FP64 output computes in double.
  check(run_ss("%/%", i7, i0, "FP64"), ValueType::kFP64, "Infinity");
}

TEST_CASE("binary scalar doubles: NaN, Inf and Java's pow", "[binary]") {
  const std::string d2 = "2.0·SCALAR·FP64·true", z = "0.0·SCALAR·FP64·true",
                    nan = "NaN·SCALAR·FP64·true", inf = "Infinity·SCALAR·FP64·true";
  CHECK(run_ss("%/%", d2, z, "FP64").to_string() == "Infinity");
  CHECK(run_ss("%%", d2, z, "FP64").to_string() == "NaN");
  CHECK(run_ss("/", d2, z, "FP64").to_string() == "Infinity");
  CHECK(run_ss("max", nan, d2, "FP64").to_string() == "NaN");
  CHECK(run_ss("max", d2, nan, "FP64").to_string() == "NaN");
  CHECK(run_ss("min", d2, nan, "FP64").to_string() == "NaN");
  CHECK(run_ss("^", "1·SCALAR·INT64·true", nan, "FP64").to_string() == "NaN");
  CHECK(run_ss("^", "-1·SCALAR·INT64·true", inf, "FP64").to_string() == "NaN");
  CHECK(run_ss("%%", "-2.0·SCALAR·FP64·true", inf, "FP64").to_string() == "NaN");
  CHECK(run_ss("^", nan, z, "FP64").to_string() == "1.0");
  CHECK(run_ss("-", inf, inf, "FP64").to_string() == "NaN");
  CHECK(run_ss("<", nan, d2, "BOOLEAN").to_string() == "FALSE");
  CHECK(run_ss("!=", nan, nan, "BOOLEAN").to_string() == "TRUE");
}

TEST_CASE("binary scalar strings: concatenation and comparison", "[binary]") {
  const std::string a = "a·SCALAR·STRING·true";
  CHECK(run_ss("+", a, "7·SCALAR·INT64·true", "STRING").to_string() == "a7");
  CHECK(run_ss("+", a, "1·SCALAR·INT64·true", "STRING").to_string() == "a1");
  CHECK(run_ss("+", a, "1.0·SCALAR·FP64·true", "STRING").to_string() == "a1.0");
  CHECK(run_ss("+", "2.0·SCALAR·FP64·true", a, "STRING").to_string() == "2.0a");
  CHECK(run_ss("+", a, "TRUE·SCALAR·BOOLEAN·true", "STRING").to_string() == "aTRUE");
  CHECK(run_ss("+", a, "0.6666666666666666·SCALAR·FP64·true", "STRING").to_string() ==
        "a0.6666666666666666");
  CHECK(run_ss("+", a, "1.0E-20·SCALAR·FP64·true", "STRING").to_string() == "a1.0E-20");
  CHECK(run_ss("+", "·SCALAR·STRING·true", a, "STRING").to_string() == "a");
  CHECK(run_ss("<", a, "b·SCALAR·STRING·true", "BOOLEAN").to_bool());
  CHECK(run_ss("<", "10·SCALAR·STRING·true", "9·SCALAR·STRING·true", "BOOLEAN").to_bool());
  CHECK(run_ss("==", a, a, "BOOLEAN").to_bool());
  CHECK_FALSE(run_ss("!=", a, a, "BOOLEAN").to_bool());
  CHECK(run_ss(">=", "b·SCALAR·STRING·true", a, "BOOLEAN").to_bool());
  REQUIRE_THROWS_WITH(run_ss("-", a, "1·SCALAR·INT64·true", "STRING"),
                      Catch::Contains("arithmetic '-' is not supported over string inputs"));
}

TEST_CASE("binary scalar operands read from variables", "[binary]") {
  TestContext t;
  t.set_scalar("x", ScalarValue::int64(5));
  t.set_scalar("y", ScalarValue::fp64(0.5));
  t.run("CP°*°x·SCALAR·INT64·false°y·SCALAR·FP64·false°z·SCALAR·FP64");
  CHECK(t.scalar("z").to_double() == 2.5);
}

TEST_CASE("binary parse errors", "[binary]") {
  TestContext t;
  REQUIRE_THROWS_WITH(t.run("CP°+°A·MATRIX·FP64°B·MATRIX·FP64"),
                      Catch::Contains("+ expects 3 to 5 operand fields, got 2"));
  REQUIRE_THROWS_WITH(t.run("CP°+°A·MATRIX·FP64°B·MATRIX·FP64°c·SCALAR·FP64°2"),
                      Catch::Contains("output 'c' must be a MATRIX"));
  REQUIRE_THROWS_WITH(t.run("CP°+°1·SCALAR·INT64·true°2·SCALAR·INT64·true°C·MATRIX·FP64"),
                      Catch::Contains("output 'C' must be a SCALAR"));
}
