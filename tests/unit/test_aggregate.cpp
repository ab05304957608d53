// Aggregates through their instructions: every opcode on dense, CSR, empty, 1x1, odd and
// ultra-sparse inputs; SystemDS's semantics for NaN, ties, empty inputs and variance of one value;
// Kahan accuracy; nrow/ncol/length; parse errors. Expected values come from NumPy, SystemDS 3.4
// (noted where used) or a naive long-double reference written here.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"
#include "instructions/matrix_object.h"

using dmlrt::inst::MatrixMeta;
using dmlrt::inst::MatrixObject;
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

// Full aggregate `CP°op°X°s°2` -> the scalar.
double run_full(const std::string& op, const MatrixBlock& x, const std::string& tail = "°2") {
  TestContext t;
  t.set_matrix("X", x);
  t.run("CP°" + op + "°X·MATRIX·FP64°s·SCALAR·FP64" + tail);
  return t.scalar("s").to_double();
}

// Row / column aggregate `CP°op°X°Y°2` -> Y.
MatrixBlock run_partial(const std::string& op, const MatrixBlock& x, const std::string& tail = "°2") {
  TestContext t;
  t.set_matrix("X", x);
  t.run("CP°" + op + "°X·MATRIX·FP64°Y·MATRIX·FP64" + tail);
  return t.matrix("Y");
}

// Naive reference over the values of one row / column / the whole matrix.
double ref_reduce(const std::string& what, const std::vector<double>& v) {
  const size_t n = v.size();
  if (what == "sum" || what == "sq" || what == "mean") {
    long double s = 0;
    for (double x : v) s += what == "sq" ? static_cast<long double>(x) * x : x;
    return what == "mean" ? static_cast<double>(s / n) : static_cast<double>(s);
  }
  if (what == "prod") {
    long double p = 1;
    for (double x : v) p *= x;
    return static_cast<double>(p);
  }
  if (what == "max" || what == "min") {
    double m = what == "max" ? -kInf : kInf;
    for (double x : v) m = what == "max" ? std::max(m, x) : std::min(m, x);
    return m;
  }
  // var: two-pass sample variance
  if (n == 0) return kNaN;
  if (n == 1) return 0.0;
  long double mean = 0;
  for (double x : v) mean += x;
  mean /= n;
  long double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return static_cast<double>(ss / (n - 1));
}

struct OpSet {
  const char* what;
  const char* full;
  const char* row;
  const char* col;
};
const std::vector<OpSet> kOpSets = {
    {"sum", "uak+", "uark+", "uack+"},       {"sum", "ua+", "uar+", "uac+"},
    {"prod", "ua*", "uar*", "uac*"},         {"mean", "uamean", "uarmean", "uacmean"},
    {"max", "uamax", "uarmax", "uacmax"},    {"min", "uamin", "uarmin", "uacmin"},
    {"sq", "uasqk+", "uarsqk+", "uacsqk+"},  {"var", "uavar", "uarvar", "uacvar"},
};

}  // namespace

TEST_CASE("aggregates match NumPy on a dense and a sparse matrix", "[aggregate]") {
  // A = [[1.5, -2, 0, 4], [3, 0.5, -1, 2], [0, 0, 7, -3.5]]; values printed by NumPy.
  const MatrixBlock a = dense_of(3, 4, {1.5, -2.0, 0.0, 4.0, 3.0, 0.5, -1.0, 2.0, 0.0, 0.0, 7.0, -3.5});
  struct Want {
    const char* what;
    double full;
    std::vector<double> rows, cols;
  };
  const std::vector<Want> wants = {
      {"sum", 11.5, {3.5, 4.5, 3.5}, {4.5, -1.5, 6.0, 2.5}},
      {"prod", -0.0, {-0.0, -3.0, -0.0}, {0.0, -0.0, -0.0, -28.0}},
      {"mean", 0.9583333333333334, {0.875, 1.125, 0.875}, {1.5, -0.5, 2.0, 0.8333333333333334}},
      {"max", 7.0, {4.0, 3.0, 7.0}, {3.0, 0.5, 7.0, 4.0}},
      {"min", -3.5, {-2.0, -1.0, -3.5}, {0.0, -2.0, -1.0, -3.5}},
      {"sq", 97.75, {22.25, 14.25, 61.25}, {11.25, 4.25, 50.0, 32.25}},
      {"var", 7.884469696969696, {6.395833333333333, 3.0625, 19.395833333333332},
       {2.25, 1.75, 19.0, 15.083333333333332}},
  };
  for (const MatrixBlock& x : {a, a.to_sparse()}) {
    for (const auto& ops : kOpSets) {
      const Want* w = nullptr;
      for (const auto& c : wants)
        if (std::string(c.what) == ops.what) w = &c;
      REQUIRE(w != nullptr);
      INFO(ops.full << " on " << x.shape_string());
      CHECK(run_full(ops.full, x) == Approx(w->full).epsilon(1e-12).margin(1e-15));
      DMLRT_REQUIRE_CLOSE(run_partial(ops.row, x), 3, 1, w->rows);
      DMLRT_REQUIRE_CLOSE(run_partial(ops.col, x), 1, 4, w->cols);
      // GPU layout `in°out`.
      TestContext t;
      t.set_matrix("X", x);
      t.run(std::string("GPU°") + ops.row + "°X·MATRIX·FP64°Y·MATRIX·FP64");
      DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 3, 1, w->rows);
    }
    // rowIndexMax / rowIndexMin with SystemDS's layout `in°out°k°1`.
    DMLRT_REQUIRE_CLOSE(run_partial("uarimax", x, "°2°1"), 3, 1, {4, 1, 3});
    DMLRT_REQUIRE_CLOSE(run_partial("uarimin", x, "°2°1"), 3, 1, {2, 3, 4});
  }
}

TEST_CASE("aggregates on random dense, sparse, ultra-sparse and odd shapes", "[aggregate]") {
  const uint64_t seed = seed_from("aggregate random");
  struct Shape {
    int64_t rows, cols;
    double sparsity;
  };
  const std::vector<Shape> shapes = {{1, 1, 1.0},  {7, 13, 1.0}, {13, 7, 0.1},
                                     {50, 41, 0.001}, {1, 9, 0.5}, {9, 1, 0.5}};
  for (const auto& s : shapes) {
    for (bool as_sparse : {false, true}) {
      const MatrixBlock x = random_block(s.rows, s.cols, s.sparsity, seed, 0.5, 1.5, as_sparse);
      for (const auto& ops : kOpSets) {
        INFO(ops.full << " on " << x.shape_string());
        std::vector<double> all;
        std::vector<double> rows, cols;
        for (int64_t r = 0; r < x.rows(); ++r)
          for (int64_t c = 0; c < x.cols(); ++c) all.push_back(x.get(r, c));
        for (int64_t r = 0; r < x.rows(); ++r) {
          std::vector<double> v;
          for (int64_t c = 0; c < x.cols(); ++c) v.push_back(x.get(r, c));
          rows.push_back(ref_reduce(ops.what, v));
        }
        for (int64_t c = 0; c < x.cols(); ++c) {
          std::vector<double> v;
          for (int64_t r = 0; r < x.rows(); ++r) v.push_back(x.get(r, c));
          cols.push_back(ref_reduce(ops.what, v));
        }
        const double want = ref_reduce(ops.what, all);
        CHECK(run_full(ops.full, x) == Approx(want).epsilon(1e-10).margin(1e-300));
        DMLRT_REQUIRE_CLOSE(run_partial(ops.row, x), x.rows(), 1, rows);
        DMLRT_REQUIRE_CLOSE(run_partial(ops.col, x), 1, x.cols(), cols);
      }
      // rowIndexMax/Min: last position of the row's extreme value, implicit zeros included.
      std::vector<double> imax, imin;
      for (int64_t r = 0; r < x.rows(); ++r) {
        int64_t bmax = 0, bmin = 0;
        for (int64_t c = 0; c < x.cols(); ++c) {
          if (x.get(r, c) >= x.get(r, bmax)) bmax = c;
          if (x.get(r, c) <= x.get(r, bmin)) bmin = c;
        }
        imax.push_back(static_cast<double>(bmax + 1));
        imin.push_back(static_cast<double>(bmin + 1));
      }
      DMLRT_REQUIRE_CLOSE(run_partial("uarimax", x, "°2°1"), x.rows(), 1, imax);
      DMLRT_REQUIRE_CLOSE(run_partial("uarimin", x, "°2°1"), x.rows(), 1, imin);
    }
  }
}

TEST_CASE("max and min propagate NaN as SystemDS CP does", "[aggregate]") {
  // SystemDS 3.4 on N = [1 NaN 3; -1 -2 -3; 0 0 0; NaN NaN NaN]: max(N) = min(N) = NaN,
  // rowMaxs = [NaN -1 0 NaN], rowMins = [NaN -3 0 NaN], colMaxs = colMins = NaN NaN NaN.
  const MatrixBlock n = dense_of(4, 3, {1, kNaN, 3, -1, -2, -3, 0, 0, 0, kNaN, kNaN, kNaN});
  for (const MatrixBlock& x : {n, n.to_sparse()}) {
    CHECK(std::isnan(run_full("uamax", x)));
    CHECK(std::isnan(run_full("uamin", x)));
    DMLRT_REQUIRE_CLOSE(run_partial("uarmax", x), 4, 1, {kNaN, -1, 0, kNaN});
    DMLRT_REQUIRE_CLOSE(run_partial("uarmin", x), 4, 1, {kNaN, -3, 0, kNaN});
    DMLRT_REQUIRE_CLOSE(run_partial("uacmax", x), 1, 3, {kNaN, kNaN, kNaN});
    CHECK(std::isnan(run_full("uak+", x)));
    CHECK(std::isnan(run_full("uamean", x)));
  }
  // A NaN in the first place is not skipped either (Math.max, not a > comparison).
  DMLRT_REQUIRE_CLOSE(run_partial("uarmax", dense_of(1, 3, {kNaN, 1, 2})), 1, 1, {kNaN});
}

TEST_CASE("rowIndexMax and rowIndexMin take the last extreme, as SystemDS", "[aggregate]") {
  // SystemDS 3.4: rowIndexMax(N) = [3 1 3 1], rowIndexMin(N) = [1 3 3 1] (NaN skipped, an
  // all-NaN row gives 1, ties take the last index).
  const MatrixBlock n = dense_of(4, 3, {1, kNaN, 3, -1, -2, -3, 0, 0, 0, kNaN, kNaN, kNaN});
  DMLRT_REQUIRE_CLOSE(run_partial("uarimax", n, "°2°1"), 4, 1, {3, 1, 3, 1});
  DMLRT_REQUIRE_CLOSE(run_partial("uarimin", n, "°2°1"), 4, 1, {1, 3, 3, 1});
  // T: rowIndexMax = [3 3 3 3 2], rowIndexMin = [1 3 1 2 3].
  const MatrixBlock t = dense_of(5, 3, {1, 3, 3, 2, 2, 2, -1, 0, 0, 0, -1, 0, 5, 5, 1});
  for (const MatrixBlock& x : {t, t.to_sparse()}) {
    DMLRT_REQUIRE_CLOSE(run_partial("uarimax", x, "°2°1"), 5, 1, {3, 3, 3, 3, 2});
    DMLRT_REQUIRE_CLOSE(run_partial("uarimin", x, "°2°1"), 5, 1, {1, 3, 1, 2, 3});
  }
  // M: [NaN 1 2; 3 NaN 1; -Inf -Inf -5; Inf Inf 1; -Inf -Inf -Inf; 0 -0 1] gives
  // rowIndexMax = [3 1 3 2 3 3], rowIndexMin = [2 3 2 3 3 2].
  const MatrixBlock m = dense_of(6, 3, {kNaN, 1, 2, 3, kNaN, 1, -kInf, -kInf, -5, kInf, kInf, 1,
                                        -kInf, -kInf, -kInf, 0, -0.0, 1});
  DMLRT_REQUIRE_CLOSE(run_partial("uarimax", m, "°2°1"), 6, 1, {3, 1, 3, 2, 3, 3});
  DMLRT_REQUIRE_CLOSE(run_partial("uarimin", m, "°2°1"), 6, 1, {2, 3, 2, 3, 3, 2});
  // A sparse 6x20 matrix read by SystemDS in CSR (ijv 1-based: (1,3)=-1 (2,5)=2 (3,1)=-1
  // (3,2)=-2 (4,1)=1 (4,20)=1 (6,19)=-3 (6,20)=-3): rowIndexMax = [20 5 20 20 20 18],
  // rowIndexMin = [3 20 2 19 20 20] -- the last implicit zero wins a tie.
  std::vector<double> s(6 * 20, 0.0);
  s[0 * 20 + 2] = -1;
  s[1 * 20 + 4] = 2;
  s[2 * 20 + 0] = -1;
  s[2 * 20 + 1] = -2;
  s[3 * 20 + 0] = 1;
  s[3 * 20 + 19] = 1;
  s[5 * 20 + 18] = -3;
  s[5 * 20 + 19] = -3;
  const MatrixBlock sp = sparse_of(6, 20, s);
  REQUIRE(sp.is_sparse());
  for (const MatrixBlock& x : {sp, sp.to_dense()}) {
    DMLRT_REQUIRE_CLOSE(run_partial("uarimax", x, "°2°1"), 6, 1, {20, 5, 20, 20, 20, 18});
    DMLRT_REQUIRE_CLOSE(run_partial("uarimin", x, "°2°1"), 6, 1, {3, 20, 2, 19, 20, 20});
    // And the other aggregates of the same matrix: max 2, min -3, mean -0.05,
    // var 0.24957983193277314, prod 0.
    CHECK(run_full("uamax", x) == 2.0);
    CHECK(run_full("uamin", x) == -3.0);
    CHECK(run_full("uamean", x) == Approx(-0.05).epsilon(1e-14));
    CHECK(run_full("uavar", x) == Approx(0.24957983193277314).epsilon(1e-14));
    CHECK(run_full("ua*", x) == 0.0);
  }
  // No columns: SystemDS returns 0 for every row.
  DMLRT_REQUIRE_CLOSE(run_partial("uarimax", MatrixBlock::dense(2, 0), "°2°1"), 2, 1, {0, 0});
}

TEST_CASE("variance is the sample variance; one value gives 0", "[aggregate]") {
  // SystemDS 3.4: var([4 5 6]) = 1.0, colVars of one row = 0 0 0, rowVars = 1, var(7) = 0.
  const MatrixBlock o = dense_of(1, 3, {4, 5, 6});
  CHECK(run_full("uavar", o) == 1.0);
  DMLRT_REQUIRE_CLOSE(run_partial("uacvar", o), 1, 3, {0, 0, 0});
  DMLRT_REQUIRE_CLOSE(run_partial("uarvar", o), 1, 1, {1.0});
  CHECK(run_full("uavar", dense_of(1, 1, {7})) == 0.0);
  DMLRT_REQUIRE_CLOSE(run_partial("uarvar", dense_of(1, 1, {7})), 1, 1, {0.0});
  // Large offset: Welford keeps the digits a naive E[x^2] - E[x]^2 loses.
  CHECK(run_full("uavar", dense_of(1, 3, {1e9 + 4, 1e9 + 5, 1e9 + 6})) == Approx(1.0).epsilon(1e-9));
}

TEST_CASE("aggregates of empty inputs follow SystemDS", "[aggregate]") {
  // SystemDS 3.4 on matrix(0, rows=0, cols=3): sum 0, mean NaN, max -Infinity, min Infinity,
  // prod 1, var NaN, sum(E^2) 0; colMaxs/colMins/colMeans/colVars/colProds/colSums all 0, and
  // rowMaxs/rowMeans/rowVars/rowProds of a 2x0 matrix all 0.
  for (const MatrixBlock& e : {MatrixBlock::dense(0, 3), MatrixBlock::empty_sparse(0, 3)}) {
    CHECK(run_full("uak+", e) == 0.0);
    CHECK(std::isnan(run_full("uamean", e)));
    CHECK(run_full("uamax", e) == -kInf);
    CHECK(run_full("uamin", e) == kInf);
    CHECK(run_full("ua*", e) == 1.0);
    CHECK(std::isnan(run_full("uavar", e)));
    CHECK(run_full("uasqk+", e) == 0.0);
    for (const char* op : {"uacmax", "uacmin", "uacmean", "uacvar", "uac*", "uack+", "uacsqk+"}) {
      INFO(op);
      DMLRT_REQUIRE_CLOSE(run_partial(op, e), 1, 3, {0, 0, 0});
    }
    DMLRT_REQUIRE_CLOSE(run_partial("uarmax", e), 0, 1, {});
  }
  const MatrixBlock f = MatrixBlock::dense(2, 0);
  for (const char* op : {"uarmax", "uarmin", "uarmean", "uarvar", "uar*", "uark+"}) {
    INFO(op);
    DMLRT_REQUIRE_CLOSE(run_partial(op, f), 2, 1, {0, 0});
  }
  // An all-zero sparse block is a real (nonempty) matrix of zeros.
  const MatrixBlock z = MatrixBlock::empty_sparse(3, 2);
  CHECK(run_full("uamax", z) == 0.0);
  CHECK(run_full("uamean", z) == 0.0);
  CHECK(run_full("ua*", z) == 0.0);
  DMLRT_REQUIRE_CLOSE(run_partial("uacmin", z), 1, 2, {0, 0});
  DMLRT_REQUIRE_CLOSE(run_partial("uarimin", z, "°2°1"), 3, 1, {2, 2, 2});
}

TEST_CASE("products with zeros and implicit zeros", "[aggregate]") {
  // SystemDS: rowProds(T) = [9 8 0 0 25], colProds(T) = 0 0 0, prod(T) = 0.
  const MatrixBlock t = dense_of(5, 3, {1, 3, 3, 2, 2, 2, -1, 0, 0, 0, -1, 0, 5, 5, 1});
  for (const MatrixBlock& x : {t, t.to_sparse()}) {
    DMLRT_REQUIRE_CLOSE(run_partial("uar*", x), 5, 1, {9, 8, 0, 0, 25});
    DMLRT_REQUIRE_CLOSE(run_partial("uac*", x), 1, 3, {0, 0, 0});
    CHECK(run_full("ua*", x) == 0.0);
  }
  // Inf times an implicit zero is NaN, as in the dense form.
  const MatrixBlock inf = sparse_of(1, 3, {kInf, 0, 0});
  CHECK(std::isnan(run_full("ua*", inf)));
  CHECK(std::isnan(run_full("ua*", inf.to_dense())));
}

TEST_CASE("sums use Kahan summation", "[aggregate]") {
  // SystemDS 3.4: sum, colSums and rowSums of [1e16, 1 x 10] are 1.000000000000001E16 (naive
  // summation gives 1e16); sum of squares 1.0E32; mean 9.0909090909091E14.
  std::vector<double> v = {1e16};
  for (int i = 0; i < 10; ++i) v.push_back(1.0);
  const MatrixBlock col = dense_of(11, 1, v);
  const MatrixBlock row = dense_of(1, 11, v);
  for (const char* op : {"uak+", "ua+"}) CHECK(run_full(op, col) == 1.000000000000001e16);
  CHECK(run_full("uak+", row.to_sparse()) == 1.000000000000001e16);
  CHECK(run_partial("uack+", col).get(0, 0) == 1.000000000000001e16);
  CHECK(run_partial("uac+", col).get(0, 0) == 1.000000000000001e16);
  CHECK(run_partial("uark+", row).get(0, 0) == 1.000000000000001e16);
  CHECK(run_partial("uar+", row).get(0, 0) == 1.000000000000001e16);
  CHECK(run_full("uasqk+", col) == 1e32);
  CHECK(run_full("uamean", col) == Approx(9.0909090909091e14).epsilon(1e-14));
  // Infinities: IEEE results (Inf + 1 = Inf; Inf + -Inf = NaN; see Note [Kahan summation]).
  CHECK(run_full("uak+", dense_of(4, 1, {1, kInf, 1, 1})) == kInf);
  CHECK(std::isnan(run_full("uak+", dense_of(2, 1, {kInf, -kInf}))));
}

TEST_CASE("full aggregates write scalars or 1x1 matrices", "[aggregate]") {
  TestContext t;
  t.set_matrix("X", dense_of(2, 2, {1, 2, 3, 4}));
  t.run("CP°uak+°X·MATRIX·FP64°s·SCALAR·FP64");  // without k
  CHECK(t.scalar("s").type() == ValueType::kFP64);
  CHECK(t.scalar("s").to_double() == 10.0);
  t.run("GPU°uamean°X·MATRIX·FP64°Y·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("Y"), 1, 1, {2.5});
}

TEST_CASE("nrow, ncol and length", "[aggregate]") {
  TestContext t;
  t.set_matrix("X", MatrixBlock::dense(4, 3));
  // SystemDS: CP°nrow°_mVar3·MATRIX·FP64·false°_Var4·SCALAR·INT64°2
  t.run("CP°nrow°X·MATRIX·FP64·false°r·SCALAR·INT64°2");
  t.run("CP°ncol°X·MATRIX·FP64·false°c·SCALAR·INT64°2");
  t.run("CP°length°X·MATRIX·FP64°n·SCALAR·INT64");
  CHECK(t.scalar("r").type() == ValueType::kINT64);
  CHECK(t.scalar("r").to_int() == 4);
  CHECK(t.scalar("c").to_int() == 3);
  CHECK(t.scalar("n").to_int() == 12);
  t.set_matrix("E", MatrixBlock::empty_sparse(0, 5));
  t.run("CP°length°E·MATRIX·FP64·false°n0·SCALAR·INT64°2");
  CHECK(t.scalar("n0").to_int() == 0);

  // Known metadata answers without reading the file (the fake has no such file).
  auto known = std::make_shared<MatrixObject>(MatrixMeta{7, 9, -1, 1000}, "missing.csv",
                                              dmlrt::inst::FileFormat{});
  t.ec.set("K", known);
  t.run("CP°ncol°K·MATRIX·FP64·false°kc·SCALAR·INT64°2");
  CHECK(t.scalar("kc").to_int() == 9);
  // Unknown dims read the file.
  t.services.files["u.csv"] = MatrixBlock::dense(2, 6);
  auto unknown = std::make_shared<MatrixObject>(MatrixMeta{}, "u.csv", dmlrt::inst::FileFormat{});
  t.ec.set("U", unknown);
  t.run("CP°nrow°U·MATRIX·FP64·false°ur·SCALAR·INT64°2");
  CHECK(t.scalar("ur").to_int() == 2);
  auto gone = std::make_shared<MatrixObject>(MatrixMeta{}, "gone.csv", dmlrt::inst::FileFormat{});
  t.ec.set("G", gone);
  CHECK_THROWS_AS(t.run("CP°nrow°G·MATRIX·FP64·false°gr·SCALAR·INT64°2"), dmlrt::IoError);

  CHECK_THROWS_WITH(t.run("CP°nrow°2·SCALAR·INT64·true°r·SCALAR·INT64°2"),
                    Catch::Contains("nrow needs a matrix input, got SCALAR"));
  CHECK_THROWS_WITH(t.run("CP°nrow°X·MATRIX·FP64°R·MATRIX·FP64°2"),
                    Catch::Contains("nrow needs a scalar output, got MATRIX"));
}

TEST_CASE("aggregate parse errors name the instruction", "[aggregate]") {
  TestContext t;
  t.set_matrix("X", dense_of(1, 1, {1}));
  CHECK_THROWS_WITH(t.run("CP°uak+°X·MATRIX·FP64"),
                    Catch::Contains("instruction 'CP°uak+°X·MATRIX·FP64'") &&
                        Catch::Contains("uak+ expects 2 to 3 operand fields, got 1"));
  CHECK_THROWS_WITH(t.run("CP°uarmax°X·MATRIX·FP64°Y·MATRIX·FP64°2°1"),
                    Catch::Contains("uarmax expects 2 to 3 operand fields, got 4"));
  CHECK_THROWS_WITH(t.run("CP°uarimax°X·MATRIX·FP64°Y·MATRIX·FP64°2°1°x"),
                    Catch::Contains("uarimax expects 2 to 4 operand fields, got 5"));
  CHECK_THROWS_AS(t.run("CP°uarimax°X·MATRIX·FP64°Y·MATRIX·FP64°2°1°x"), dmlrt::ParseError);
  CHECK_THROWS_WITH(t.run("CP°uak+°X·MATRIX·FP64°s·SCALAR·FP64°k"),
                    Catch::Contains("uak+: thread count must be an integer, got 'k'"));
  CHECK_THROWS_WITH(t.run("CP°uak+°3·SCALAR·FP64·true°s·SCALAR·FP64°2"),
                    Catch::Contains("uak+ needs a matrix input, got SCALAR"));
  CHECK_THROWS_WITH(t.run("CP°uarmean°X·MATRIX·FP64°s·SCALAR·FP64°2"),
                    Catch::Contains("uarmean needs a matrix output, got SCALAR"));
}

TEST_CASE("uaktrace and uatrace sum the diagonal of dense, CSR and empty squares", "[aggregate]") {
  TestContext t;
  for (const char* op : {"uaktrace", "uatrace"}) {
    const std::string o = op;
    t.set_matrix("D", dense_of(3, 3, {1, 9, 9, 9, 2.5, 9, 9, 9, -4}));
    t.run("CP°" + o + "°D·MATRIX·FP64°s·SCALAR·FP64°2");
    CHECK(t.scalar("s").to_double() == -0.5);
    // CSR: a stored off-diagonal value and an implicit zero on the diagonal.
    t.set_matrix("S", sparse_of(4, 4, {1.5, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 2}));
    t.run("CP°" + o + "°S·MATRIX·FP64°s·SCALAR·FP64°2");
    CHECK(t.scalar("s").to_double() == 3.5);
    t.set_matrix("E", MatrixBlock::empty_sparse(5, 5));
    t.run("CP°" + o + "°E·MATRIX·FP64°s·SCALAR·FP64°2");
    CHECK(t.scalar("s").to_double() == 0.0);
    t.set_matrix("Z", MatrixBlock::dense(0, 0));
    t.run("CP°" + o + "°Z·MATRIX·FP64°s·SCALAR·FP64°2");
    CHECK(t.scalar("s").to_double() == 0.0);
    t.set_matrix("N", dense_of(2, 2, {1, 0, 0, kNaN}));
    t.run("CP°" + o + "°N·MATRIX·FP64°s·SCALAR·FP64°2");
    CHECK(std::isnan(t.scalar("s").to_double()));
    // A 1x1 matrix output is accepted as for the other full aggregates.
    t.run("CP°" + o + "°D·MATRIX·FP64°M·MATRIX·FP64°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("M"), 1, 1, {-0.5});
  }
  // Kahan: 1 + 1e-16 * 4 on the diagonal.
  MatrixBlock k = MatrixBlock::dense(5, 5);
  for (int64_t i = 0; i < 5; ++i) k.dense_data()[i * 5 + i] = i == 0 ? 1.0 : 1e-16;
  t.set_matrix("K", k);
  t.run("CP°uaktrace°K·MATRIX·FP64°s·SCALAR·FP64°2");
  CHECK(t.scalar("s").to_double() == 1.0000000000000004);
}

TEST_CASE("trace of a non-square matrix is a shape error naming the operand", "[aggregate]") {
  TestContext t;
  t.set_matrix("X", MatrixBlock::dense(5, 4, 1.0));
  CHECK_THROWS_AS(t.run("CP°uaktrace°X·MATRIX·FP64°s·SCALAR·FP64°2"), dmlrt::ShapeError);
  CHECK_THROWS_WITH(
      t.run("CP°uaktrace°X·MATRIX·FP64°s·SCALAR·FP64°2"),
      Catch::Contains("uaktrace: trace is only defined on square matrices, got X 5x4"));
  CHECK_THROWS_WITH(t.run("CP°uatrace°X·MATRIX·FP64°s·SCALAR·FP64°2"),
                    Catch::Contains("uatrace: trace is only defined on square matrices"));
  CHECK_THROWS_WITH(t.run("CP°uaktrace°2·SCALAR·FP64·true°s·SCALAR·FP64°2"),
                    Catch::Contains("uaktrace needs a matrix input, got SCALAR"));
}
