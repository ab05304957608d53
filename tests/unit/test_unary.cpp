// Unary builtins through their instructions: every cell-wise opcode on dense, CSR, empty, 1x1 and
// odd shapes; scalar forms and their output types; log with a base; cumulative scans; softmax;
// parse and shape errors. Expected values come from NumPy or SystemDS 3.4 (noted where used).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::kernels::MatrixBlock;
using dmlrt::inst::ScalarValue;
using dmlrt::inst::ValueType;
using dmlrt::test::dense_of;
using dmlrt::test::random_block;
using dmlrt::test::seed_from;
using dmlrt::test::sparse_of;
using dmlrt::test::TestContext;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

const std::vector<std::string> kCellOps = {
    "exp", "log", "abs", "sqrt", "round", "floor", "ceil", "sin", "cos", "tan", "sinh",
    "cosh", "tanh", "asin", "acos", "atan", "sign", "sigmoid", "!", "^2", "*2"};

bool sparse_safe(const std::string& op) {
  return !(op == "exp" || op == "log" || op == "cos" || op == "cosh" || op == "acos" ||
           op == "sigmoid" || op == "!");
}

// Independent per-cell reference (std:: functions, Java's rules written out differently).
double ref_cell(const std::string& op, double x) {
  if (op == "exp") return std::exp(x);
  if (op == "log") return std::log(x);
  if (op == "abs") return std::fabs(x);
  if (op == "sqrt") return std::sqrt(x);
  if (op == "round") return std::isnan(x) ? 0.0 : std::floor(x + 0.5) + 0.0;  // fine for |x| < 1e15
  if (op == "floor") return std::floor(x);
  if (op == "ceil") return std::ceil(x);
  if (op == "sin") return std::sin(x);
  if (op == "cos") return std::cos(x);
  if (op == "tan") return std::tan(x);
  if (op == "sinh") return std::sinh(x);
  if (op == "cosh") return std::cosh(x);
  if (op == "tanh") return std::tanh(x);
  if (op == "asin") return std::asin(x);
  if (op == "acos") return std::acos(x);
  if (op == "atan") return std::atan(x);
  if (op == "sign") return x > 0 ? 1.0 : (x < 0 ? -1.0 : x);
  if (op == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (op == "!") return x == 0.0 ? 1.0 : 0.0;
  if (op == "^2") return x * x;
  return 2.0 * x;  // *2
}

MatrixBlock ref_map(const std::string& op, const MatrixBlock& in) {
  std::vector<double> v;
  for (int64_t r = 0; r < in.rows(); ++r)
    for (int64_t c = 0; c < in.cols(); ++c) v.push_back(ref_cell(op, in.get(r, c)));
  return dense_of(in.rows(), in.cols(), v);
}

// Runs `CP°op°X°Y°k[°extra]` on `x` and returns Y.
MatrixBlock run_matrix(const std::string& op, const MatrixBlock& x, const std::string& tail = "°2") {
  TestContext t;
  t.set_matrix("X", x);
  t.run("CP°" + op + "°X·MATRIX·FP64°Y·MATRIX·FP64" + tail);
  return t.matrix("Y");
}

}  // namespace

TEST_CASE("unary cell-wise ops match NumPy on a dense matrix", "[unary]") {
  // X = [[0.5, -1.25, 3], [-0.75, 2, 0]]; values printed by NumPy (repr).
  const MatrixBlock x = dense_of(2, 3, {0.5, -1.25, 3.0, -0.75, 2.0, 0.0});
  struct Case {
    const char* op;
    std::vector<double> want;
  };
  const std::vector<Case> cases = {
      {"exp", {1.6487212707001282, 0.2865047968601901, 20.085536923187668, 0.4723665527410147,
               7.38905609893065, 1.0}},
      {"log", {-0.6931471805599453, kNaN, 1.0986122886681098, kNaN, 0.6931471805599453, -kInf}},
      {"abs", {0.5, 1.25, 3.0, 0.75, 2.0, 0.0}},
      {"sqrt", {0.7071067811865476, kNaN, 1.7320508075688772, kNaN, 1.4142135623730951, 0.0}},
      {"round", {1.0, -1.0, 3.0, -1.0, 2.0, 0.0}},  // Java Math.round: -0.75 -> -1, 0.5 -> 1
      {"floor", {0.0, -2.0, 3.0, -1.0, 2.0, 0.0}},
      {"ceil", {1.0, -1.0, 3.0, -0.0, 2.0, 0.0}},
      {"sin", {0.479425538604203, -0.9489846193555862, 0.1411200080598672, -0.6816387600233341,
               0.9092974268256817, 0.0}},
      {"cos", {0.8775825618903728, 0.3153223623952687, -0.9899924966004454, 0.7316888688738209,
               -0.4161468365471424, 1.0}},
      {"tan", {0.5463024898437905, -3.0095696738628313, -0.1425465430742778, -0.9315964599440725,
               -2.185039863261519, 0.0}},
      {"sinh", {0.5210953054937474, -1.6019190803008256, 10.017874927409903, -0.82231673193583,
                3.6268604078470186, 0.0}},
      {"cosh", {1.1276259652063807, 1.8884238771610158, 10.067661995777765, 1.2946832846768448,
                3.7621956910836314, 1.0}},
      {"tanh", {0.46211715726000974, -0.8482836399575129, 0.9950547536867305, -0.6351489523872873,
                0.9640275800758169, 0.0}},
      {"asin", {0.5235987755982989, kNaN, kNaN, -0.848062078981481, kNaN, 0.0}},
      {"acos", {1.0471975511965976, kNaN, kNaN, 2.4188584057763776, kNaN, 1.5707963267948966}},
      {"atan", {0.4636476090008061, -0.8960553845713439, 1.2490457723982544, -0.6435011087932844,
                1.1071487177940904, 0.0}},
      {"sign", {1.0, -1.0, 1.0, -1.0, 1.0, 0.0}},
      {"sigmoid", {0.6224593312018546, 0.22270013882530884, 0.9525741268224334,
                   0.320821300824607, 0.8807970779778823, 0.5}},
      {"!", {0.0, 0.0, 0.0, 0.0, 0.0, 1.0}},
      {"^2", {0.25, 1.5625, 9.0, 0.5625, 4.0, 0.0}},
      {"*2", {1.0, -2.5, 6.0, -1.5, 4.0, 0.0}},
  };
  REQUIRE(cases.size() == kCellOps.size());
  for (const auto& c : cases) {
    INFO(c.op);
    // CP layouts with and without the inplace flag, and the GPU layout.
    DMLRT_REQUIRE_CLOSE(run_matrix(c.op, x, "°2°false"), 2, 3, c.want);
    DMLRT_REQUIRE_CLOSE(run_matrix(c.op, x, "°2"), 2, 3, c.want);
    DMLRT_REQUIRE_CLOSE(run_matrix(c.op, sparse_of(2, 3, x.dense_values()), ""), 2, 3, c.want);
  }
}

TEST_CASE("round, sign and ! follow SystemDS CP on halves, NaN and huge values", "[unary]") {
  // SystemDS 3.4: round(R) printed -2 3 0 1 0 -1 2 0 0 9223372036854776000 (Java Math.round:
  // half up, NaN -> 0, saturating at 2^63), sign(R) -1 1 -1 1 NaN -1 1 1 -1 1.
  const MatrixBlock r = dense_of(1, 10, {-2.5, 2.5, -0.5, 0.5, kNaN, -1.5, 1.5,
                                         0.49999999999999994, -0.49999999999999994, 1e300});
  const MatrixBlock rounded = run_matrix("round", r);
  DMLRT_REQUIRE_CLOSE(rounded, 1, 10,
                      {-2.0, 3.0, 0.0, 1.0, 0.0, -1.0, 2.0, 0.0, 0.0, 9223372036854775808.0});
  CHECK_FALSE(std::signbit(rounded.get(0, 2)));  // -0.5 rounds to +0 (a Java long)
  DMLRT_REQUIRE_CLOSE(run_matrix("sign", r), 1, 10,
                      {-1.0, 1.0, -1.0, 1.0, kNaN, -1.0, 1.0, 1.0, -1.0, 1.0});
  DMLRT_REQUIRE_CLOSE(run_matrix("round", dense_of(1, 2, {-kInf, kInf})), 1, 2,
                      {-9223372036854775808.0, 9223372036854775808.0});
  // !NaN is 0 (NaN != 0), sign(0) = 0.
  DMLRT_REQUIRE_CLOSE(run_matrix("!", dense_of(1, 3, {kNaN, 0.0, -0.0})), 1, 3, {0.0, 1.0, 1.0});
  DMLRT_REQUIRE_CLOSE(run_matrix("sign", dense_of(1, 2, {0.0, -kInf})), 1, 2, {0.0, -1.0});
}

TEST_CASE("unary ops on random dense, sparse and odd shapes", "[unary]") {
  const uint64_t seed = seed_from("unary random");
  struct Shape {
    int64_t rows, cols;
    double sparsity;
  };
  const std::vector<Shape> shapes = {{0, 3, 1.0}, {3, 0, 1.0}, {0, 0, 1.0}, {1, 1, 1.0},
                                     {7, 13, 1.0}, {17, 9, 0.1},  {64, 33, 0.001}, {5, 1, 0.5}};
  for (const auto& s : shapes) {
    for (bool as_sparse : {false, true}) {
      const MatrixBlock x = random_block(s.rows, s.cols, s.sparsity, seed, -2.0, 2.0, as_sparse);
      for (const auto& op : kCellOps) {
        INFO(op << " on " << x.shape_string());
        const MatrixBlock y = run_matrix(op, x);
        DMLRT_REQUIRE_CLOSE(y, ref_map(op, x));
        // Format as SystemDS picks it: sparse-safe ops keep sparse inputs sparse.
        MatrixBlock want_format = ref_map(op, x);
        want_format.examine_format();
        CHECK(y.is_sparse() == want_format.is_sparse());
        if (as_sparse && sparse_safe(op) && s.sparsity < 0.4 && x.size() > 0)
          CHECK(y.is_sparse());
      }
    }
  }
}

TEST_CASE("sparse-safe ops drop values that become zero", "[unary]") {
  // round(0.3) = 0 must not stay as a stored zero.
  const MatrixBlock x = sparse_of(4, 5, {0, 0.3, 0, 0, 0, 0, 0, 0, 2.6, 0, 0, 0, 0, 0, 0,
                                         -0.2, 0, 0, 0, 0});
  const MatrixBlock y = run_matrix("round", x);
  REQUIRE(y.is_sparse());
  CHECK(y.csr_values().size() == 1);
  CHECK(y.get(1, 3) == 3.0);
}

TEST_CASE("scalar unary ops keep SystemDS's output value types", "[unary]") {
  TestContext t;
  t.set_scalar("i", ScalarValue::int64(-9007199254740993));  // not exact as a double
  t.set_scalar("d", ScalarValue::fp64(-2.5));
  t.set_scalar("b", ScalarValue::boolean(true));
  // Layouts printed by SystemDS: CP°abs°_Var59·SCALAR·INT64·false°_Var60·SCALAR·INT64°2 etc.
  t.run("CP°abs°i·SCALAR·INT64·false°a·SCALAR·INT64°2");
  CHECK(t.scalar("a").type() == ValueType::kINT64);
  CHECK(t.scalar("a").to_int() == 9007199254740993);
  t.run("CP°round°i·SCALAR·INT64·false°r·SCALAR·FP64°2");
  CHECK(t.scalar("r").type() == ValueType::kFP64);
  t.run("CP°round°d·SCALAR·FP64·false°r2·SCALAR·FP64°2");
  CHECK(t.scalar("r2").to_double() == -2.0);
  t.run("CP°sign°i·SCALAR·INT64·false°s·SCALAR·FP64°2");
  CHECK(t.scalar("s").to_double() == -1.0);
  t.run("CP°!°b·SCALAR·BOOLEAN·false°n·SCALAR·BOOLEAN°2");
  CHECK(t.scalar("n").type() == ValueType::kBoolean);
  CHECK_FALSE(t.scalar("n").to_bool());
  t.run("CP°!°0·SCALAR·INT64·true°n2·SCALAR·BOOLEAN°2");
  CHECK(t.scalar("n2").to_bool());
  t.run("CP°exp°1·SCALAR·INT64·true°e·SCALAR·FP64°2");
  CHECK(t.scalar("e").to_double() == Approx(2.718281828459045).epsilon(1e-15));
  t.run("CP°log°8·SCALAR·INT64·true°l·SCALAR·FP64°2");  // unary log: third field is k
  CHECK(t.scalar("l").to_double() == Approx(2.0794415416798357).epsilon(1e-15));
  t.run("CP°sqrt°d·SCALAR·FP64·false°q·SCALAR·FP64°2");
  CHECK(std::isnan(t.scalar("q").to_double()));
  t.run("CP°sigmoid°0·SCALAR·FP64·true°g·SCALAR·FP64°2");
  CHECK(t.scalar("g").to_double() == 0.5);
  t.run("CP°ceil°d·SCALAR·FP64·false°c·SCALAR·FP64");  // without k
  CHECK(t.scalar("c").to_double() == -2.0);
  t.run("CP°^2°i·SCALAR·INT64·false°sq·SCALAR·FP64°2");
  CHECK(t.scalar("sq").to_double() == Approx(8.1129638414606682e31));
  t.run("CP°*2°d·SCALAR·FP64·false°t2·SCALAR·FP64°2");
  CHECK(t.scalar("t2").to_double() == -5.0);

  t.set_scalar("str", ScalarValue::string("abc"));
  CHECK_THROWS_WITH(t.run("CP°exp°str·SCALAR·STRING·false°e·SCALAR·FP64°2"),
                    Catch::Contains("exp: cannot apply to the STRING value 'abc'"));
  CHECK_THROWS_AS(t.run("CP°exp°str·SCALAR·STRING·false°e·SCALAR·FP64°2"), dmlrt::RuntimeError);
}

TEST_CASE("log with a base is log(x) / log(base) in every operand form", "[unary]") {
  TestContext t;
  t.set_matrix("X", dense_of(1, 4, {1.0, 2.0, 8.0, 0.5}));
  t.set_matrix("B", dense_of(1, 4, {2.0, 2.0, 2.0, 2.0}));
  t.set_matrix("Bc", dense_of(1, 1, {2.0}));
  t.set_scalar("d", ScalarValue::fp64(8.0));
  // SystemDS: CP°log°_mVar0·MATRIX·FP64°2·SCALAR·INT64·true°_mVar42·MATRIX·FP64°2
  t.run("CP°log°X·MATRIX·FP64°2·SCALAR·INT64·true°Y·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 1, 4, {0.0, 1.0, 3.0, -1.0});
  t.run("GPU°log°X·MATRIX·FP64°2·SCALAR·INT64·true°Y2·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y2"), 1, 4, {0.0, 1.0, 3.0, -1.0});
  t.run("CP°log°X·MATRIX·FP64°B·MATRIX·FP64°Y3·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y3"), 1, 4, {0.0, 1.0, 3.0, -1.0});
  t.run("CP°log°X·MATRIX·FP64°Bc·MATRIX·FP64°Y4·MATRIX·FP64°2");  // 1x1 base broadcasts
  DMLRT_REQUIRE_CLOSE(t.matrix("Y4"), 1, 4, {0.0, 1.0, 3.0, -1.0});
  // Scalar-matrix: log(8, X) = log(8) / log(X).
  t.run("CP°log°d·SCALAR·FP64·false°X·MATRIX·FP64°Y5·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y5"), 1, 4, {kInf, 3.0, 1.0, -3.0});
  // Scalar-scalar: SystemDS prints CP°log°_Var77·SCALAR·FP64·false°2·SCALAR·INT64·true°_Var81·SCALAR·FP64
  t.run("CP°log°d·SCALAR·FP64·false°2·SCALAR·INT64·true°s·SCALAR·FP64");
  CHECK(t.scalar("s").to_double() == Approx(3.0).epsilon(1e-15));
  // A sparse x densifies (log(0) = -Inf).
  t.set_matrix("S", sparse_of(2, 3, {0, 0, 4, 0, 0, 0}));
  t.run("CP°log°S·MATRIX·FP64°2·SCALAR·INT64·true°Y6·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y6"), 2, 3, {-kInf, -kInf, 2.0, -kInf, -kInf, -kInf});
  CHECK_FALSE(t.matrix("Y6").is_sparse());

  t.set_matrix("B2", dense_of(2, 2, {2, 2, 2, 2}));
  CHECK_THROWS_WITH(t.run("CP°log°X·MATRIX·FP64°B2·MATRIX·FP64°Y7·MATRIX·FP64°2"),
                    Catch::Contains("log: base of shape 2x2 does not fit x of shape 1x4"));
  CHECK_THROWS_AS(t.run("CP°log°X·MATRIX·FP64°B2·MATRIX·FP64°Y7·MATRIX·FP64°2"),
                  dmlrt::ShapeError);
  CHECK_THROWS_WITH(t.run("CP°log°X·MATRIX·FP64°2·SCALAR·INT64·true°s·SCALAR·FP64°2"),
                    Catch::Contains("log with a base needs a MATRIX output, got SCALAR"));
}

TEST_CASE("cumulative scans run down the columns", "[unary]") {
  // N as in SystemDS's check: cummax(N) = [1 NaN 3; 1 NaN 3; 1 NaN 3; NaN NaN NaN], cummin
  // [1 NaN 3; -1 NaN -3; -1 NaN -3; NaN..], cumsum [1 NaN 3; 0 NaN 0; 0 NaN 0; NaN..], cumprod
  // [1 NaN 3; -1 NaN -9; 0 NaN 0; NaN..].
  const MatrixBlock n = dense_of(4, 3, {1, kNaN, 3, -1, -2, -3, 0, 0, 0, kNaN, kNaN, kNaN});
  const double N = kNaN;
  for (bool sparse : {false, true}) {
    const MatrixBlock x = sparse ? n.to_sparse() : n;
    DMLRT_REQUIRE_CLOSE(run_matrix("ucummax", x, "°2°false"), 4, 3,
                        {1, N, 3, 1, N, 3, 1, N, 3, N, N, N});
    DMLRT_REQUIRE_CLOSE(run_matrix("ucummin", x), 4, 3, {1, N, 3, -1, N, -3, -1, N, -3, N, N, N});
    DMLRT_REQUIRE_CLOSE(run_matrix("ucumk+", x, ""), 4, 3, {1, N, 3, 0, N, 0, 0, N, 0, N, N, N});
    DMLRT_REQUIRE_CLOSE(run_matrix("ucum*", x), 4, 3, {1, N, 3, -1, N, -9, 0, N, 0, N, N, N});
  }
  // Ultra-sparse input and empty shapes.
  const MatrixBlock u = sparse_of(5, 2, {0, 0, 0, 3, 0, 0, 0, 0, 2, 0});
  const MatrixBlock c = run_matrix("ucumk+", u);
  DMLRT_REQUIRE_CLOSE(c, 5, 2, {0, 0, 0, 3, 0, 3, 0, 3, 2, 3});
  DMLRT_REQUIRE_CLOSE(run_matrix("ucummax", u), 5, 2, {0, 0, 0, 3, 0, 3, 0, 3, 2, 3});
  DMLRT_REQUIRE_CLOSE(run_matrix("ucum*", MatrixBlock::dense(0, 3)), 0, 3, {});
  DMLRT_REQUIRE_CLOSE(run_matrix("ucumk+", dense_of(1, 1, {-4})), 1, 1, {-4});
}

TEST_CASE("ucumk+ uses Kahan summation", "[unary]") {
  // SystemDS cumsum of [1e16, 1 x 10] ends at 10000000000000010; naive summation stays at 1e16.
  std::vector<double> v = {1e16};
  for (int i = 0; i < 10; ++i) v.push_back(1.0);
  const MatrixBlock y = run_matrix("ucumk+", dense_of(11, 1, v));
  CHECK(y.get(10, 0) == 1.000000000000001e16);
  CHECK(y.get(1, 0) == 1e16);
  // Infinity stays Infinity afterwards (no Inf - Inf NaN from the compensation).
  const MatrixBlock z = run_matrix("ucumk+", dense_of(4, 1, {1, kInf, 1, 1}));
  DMLRT_REQUIRE_CLOSE(z, 4, 1, {1, kInf, kInf, kInf});
}

TEST_CASE("ucumk+* is SystemDS's cumsumprod", "[unary]") {
  // SystemDS: cumsumprod([1 2; 3 4; 5 6; 7 0.5]) = [1; 7; 47; 30.5].
  const MatrixBlock c = dense_of(4, 2, {1, 2, 3, 4, 5, 6, 7, 0.5});
  // Layout from SystemDS: CP°ucumk+*°_mVar53·MATRIX·FP64°_mVar54·MATRIX·FP64°2°false
  DMLRT_REQUIRE_CLOSE(run_matrix("ucumk+*", c, "°2°false"), 4, 1, {1, 7, 47, 30.5});
  DMLRT_REQUIRE_CLOSE(run_matrix("ucumk+*", c.to_sparse(), ""), 4, 1, {1, 7, 47, 30.5});
  DMLRT_REQUIRE_CLOSE(run_matrix("ucumk+*", sparse_of(3, 2, {0, 5, 2, 0, 0, 0})), 3, 1,
                      {0, 2, 0});
  DMLRT_REQUIRE_CLOSE(run_matrix("ucumk+*", MatrixBlock::dense(0, 2)), 0, 1, {});
  CHECK_THROWS_WITH(run_matrix("ucumk+*", MatrixBlock::dense(4, 3)),
                    Catch::Contains("ucumk+*: cumsumprod needs a 2-column input [a, b], got 4x3"));
  CHECK_THROWS_AS(run_matrix("ucumk+*", MatrixBlock::dense(4, 1)), dmlrt::ShapeError);
}

TEST_CASE("softmax is row-wise and max-subtracted", "[unary]") {
  // NumPy: e = exp(S - S.max(1)); e / e.sum(1).
  const MatrixBlock s = dense_of(3, 3, {1, 2, 3, 1000, 1001, 1002, -1, 0, 0});
  const std::vector<double> want = {0.09003057317038046, 0.24472847105479764, 0.6652409557748218,
                                    0.09003057317038046, 0.24472847105479764, 0.6652409557748218,
                                    0.15536240349696362, 0.4223187982515182, 0.4223187982515182};
  // GPU layout `in°out` (input with the literal flag, as UnaryCP prints it), and under CP.
  TestContext t;
  t.set_matrix("X", s);
  t.run("GPU°softmax°X·MATRIX·FP64·false°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 3, want);
  DMLRT_REQUIRE_CLOSE(run_matrix("softmax", s.to_sparse(), ""), 3, 3, want);
  // An all-zero sparse row is uniform; empty shapes pass through.
  DMLRT_REQUIRE_CLOSE(run_matrix("softmax", MatrixBlock::empty_sparse(2, 4), ""), 2, 4,
                      {0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25});
  DMLRT_REQUIRE_CLOSE(run_matrix("softmax", MatrixBlock::dense(0, 4), ""), 0, 4, {});
  DMLRT_REQUIRE_CLOSE(run_matrix("softmax", dense_of(1, 1, {-7}), ""), 1, 1, {1.0});
  // A NaN poisons its row only.
  DMLRT_REQUIRE_CLOSE(run_matrix("softmax", dense_of(2, 2, {kNaN, 1, 0, 0}), ""), 2, 2,
                      {kNaN, kNaN, 0.5, 0.5});
  CHECK_THROWS_WITH(t.run("CP°softmax°2·SCALAR·FP64·true°y·SCALAR·FP64"),
                    Catch::Contains("softmax needs a matrix input and output, got SCALAR -> SCALAR"));
}

TEST_CASE("unary parse errors name the instruction", "[unary]") {
  TestContext t;
  t.set_matrix("X", dense_of(1, 1, {1}));
  CHECK_THROWS_WITH(t.run("CP°exp°X·MATRIX·FP64"),
                    Catch::Contains("exp expects 2 to 4 operand fields, got 1"));
  CHECK_THROWS_WITH(t.run("CP°exp°X·MATRIX·FP64°Y·MATRIX·FP64°2°false°x"),
                    Catch::Contains("exp expects 2 to 4 operand fields, got 5"));
  CHECK_THROWS_AS(t.run("CP°exp°X·MATRIX·FP64°Y·MATRIX·FP64°2°false°x"), dmlrt::ParseError);
  CHECK_THROWS_WITH(t.run("CP°sqrt°X·MATRIX·FP64°Y·MATRIX·FP64°two"),
                    Catch::Contains("sqrt: thread count must be an integer, got 'two'"));
  CHECK_THROWS_WITH(t.run("CP°abs°X·MATRIX·FP64°y·SCALAR·FP64°2"),
                    Catch::Contains("abs of a MATRIX input needs a MATRIX output, got SCALAR"));
  CHECK_THROWS_WITH(t.run("CP°ucumk+°2·SCALAR·FP64·true°Y·MATRIX·FP64°2"),
                    Catch::Contains("ucumk+ needs a matrix input and output, got SCALAR -> MATRIX"));
  CHECK_THROWS_WITH(t.run("CP°exp°X·MATRIX·FP64"),
                    Catch::Contains("instruction 'CP°exp°X·MATRIX·FP64'"));
}

TEST_CASE("^2 and *2 accept SystemDS's literal second operand", "[unary]") {
  // SystemDS 3.4 compiles X * 2 to `CP *2 X.MATRIX.FP64 2.SCALAR.INT64.true _mVar4.MATRIX.FP64 2`.
  TestContext t;
  t.set_matrix("X", dense_of(2, 2, {1.0, -2.0, 0.5, 3.0}));
  t.run("CP°*2°X·MATRIX·FP64°2·SCALAR·INT64·true°Y·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 2, {2.0, -4.0, 1.0, 6.0});
  t.run("CP°^2°X·MATRIX·FP64°2·SCALAR·INT64·true°Z·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Z"), 2, 2, {1.0, 4.0, 0.25, 9.0});
  t.run("GPU°*2°X·MATRIX·FP64°2·SCALAR·INT64·true°W·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("W"), 2, 2, {2.0, -4.0, 1.0, 6.0});
}

TEST_CASE("isna is SystemDS's isNaN on dense, CSR and scalar inputs", "[unary]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  const MatrixBlock x = dmlrt::test::block_of(sp, 2, 3, {0, kNaN, kInf, -kInf, 0, kNaN});
  t.set_matrix("X", x);
  t.run("CP°isna°X·MATRIX·FP64°Y·MATRIX·FP64°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 2, 3, {0, 1, 0, 0, 0, 1});
  CHECK(t.matrix("Y").equals(run_matrix("isnan", x)));
  // Sparse-safe: an all-zero CSR input stays empty.
  t.set_matrix("E", MatrixBlock::empty_sparse(3, 4));
  t.run("CP°isna°E·MATRIX·FP64°Z·MATRIX·FP64°2");
  CHECK(t.matrix("Z").nnz() == 0);
  t.run("CP°isna°NaN·SCALAR·FP64·true°b·SCALAR·BOOLEAN°2");
  CHECK(t.scalar("b").to_bool());
  t.run("CP°isna°Infinity·SCALAR·FP64·true°b·SCALAR·BOOLEAN°2");
  CHECK_FALSE(t.scalar("b").to_bool());
}
