// Tests of inverse, cholesky, det, lu, qr and svd (LAPACK): NumPy/SciPy reference values, dense and
// sparse inputs, pivoting, SystemDS's near-singular det of 0, and every error message.
#include <catch2/catch.hpp>
#include <cmath>

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
const char* kInv = "CP°inverse°A·MATRIX·FP64°X·MATRIX·FP64°2";
const char* kChol = "CP°cholesky°A·MATRIX·FP64°X·MATRIX·FP64°2";
const char* kDet = "CP°det°A·MATRIX·FP64·false°d·SCALAR·FP64°2";
const char* kLu = "CP°lu°A·MATRIX·FP64°P°L°U°2";
const char* kQr = "CP°qr°A·MATRIX·FP64°H°R°2";
const char* kSvd = "CP°svd°A·MATRIX·FP64°U°S°V°2";
const std::vector<double> kA = {4, -2, 1, 3, 6, -4, 2, 1, 8};
}  // namespace

TEST_CASE("inverse, det and lu match numpy/scipy", "[linalg]") {
  const bool sparse = GENERATE(false, true);
  TestContext t;
  t.set_matrix("A", sparse ? sparse_of(3, 3, kA) : dense_of(3, 3, kA));
  t.run(kInv);
  DMLRT_REQUIRE_CLOSE(t.matrix("X"), 3, 3,
                      {0.19771863117870722, 0.06463878326996197, 0.007604562737642592,
                       -0.12167300380228137, 0.11406844106463877, 0.07224334600760458,
                       -0.034220532319391636, -0.030418250950570346, 0.1140684410646388});
  t.run(kDet);
  REQUIRE(t.scalar("d").to_double() == Approx(263.0).epsilon(1e-14));
  t.run(kLu);  // no pivoting needed: P = I
  DMLRT_REQUIRE_CLOSE(t.matrix("P"), 3, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  DMLRT_REQUIRE_CLOSE(t.matrix("L"), 3, 3, {1, 0, 0, 0.75, 1, 0, 0.5, 0.26666666666666666, 1});
  DMLRT_REQUIRE_CLOSE(t.matrix("U"), 3, 3, {4, -2, 1, 0, 7.5, -4.75, 0, 0, 8.766666666666666});
}

TEST_CASE("det and lu with a row swap; det's singular cases are 0 as in SystemDS", "[linalg]") {
  TestContext t;
  t.set_matrix("A", dense_of(2, 2, {1, 2, 3, 4}));
  t.run(kDet);
  REQUIRE(t.scalar("d").to_double() == Approx(-2.0).epsilon(1e-14));  // SystemDS prints -2.0
  t.run(kLu);  // SystemDS binds P first: P A = L U
  DMLRT_REQUIRE_CLOSE(t.matrix("P"), 2, 2, {0, 1, 1, 0});
  DMLRT_REQUIRE_CLOSE(t.matrix("L"), 2, 2, {1, 0, 1.0 / 3, 1});
  DMLRT_REQUIRE_CLOSE(t.matrix("U"), 2, 2, {3, 4, 0, 2.0 / 3});
  // SystemDS prints 0.0 for all three: an exact zero pivot, one below 1e-11, and an empty input.
  for (const MatrixBlock& a :
       {dense_of(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}), dense_of(2, 2, {1, 1, 1, 1.000000000001}),
        MatrixBlock::empty_sparse(2, 2)}) {
    t.set_matrix("A", a);
    t.run(kDet);
    REQUIRE(t.scalar("d").to_double() == 0.0);
  }
  t.set_matrix("A", dense_of(1, 1, {-2.5}));
  t.run(kDet);
  REQUIRE(t.scalar("d").to_double() == -2.5);
}

TEST_CASE("cholesky matches numpy and reads the upper triangle", "[linalg]") {
  const bool sparse = GENERATE(false, true);
  TestContext t;
  const std::vector<double> s = {4, 2, 2, 2, 5, 1, 2, 1, 6};
  t.set_matrix("A", sparse ? sparse_of(3, 3, s) : dense_of(3, 3, s));
  t.run(kChol);
  DMLRT_REQUIRE_CLOSE(t.matrix("X"), 3, 3, {2, 0, 0, 1, 2, 0, 1, 0, 2.23606797749979});
  // A lower entry off by 1e-7 relative passes the symmetry check; the upper one is used.
  t.set_matrix("A", dense_of(2, 2, {4, 2, 2.0000002, 3}));
  t.run(kChol);
  DMLRT_REQUIRE_CLOSE(t.matrix("X"), 2, 2, {2, 0, 1, 1.4142135623730951});
}

TEST_CASE("inverse and cholesky on random well-conditioned inputs", "[linalg]") {
  const int64_t n = GENERATE(7, 64, 129);
  MatrixBlock b = random_block(n, n, 0.3, seed_from("linalg A") + n, -1, 1).to_dense();
  // S = B B^T + n I: symmetric positive definite and well conditioned.
  MatrixBlock s = MatrixBlock::dense(n, n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double v = i == j ? static_cast<double>(n) : 0.0;
      for (int64_t k = 0; k < n; ++k) v += b.get(i, k) * b.get(j, k);
      s.dense_values()[i * n + j] = v;
    }
  TestContext t;
  t.set_matrix("A", s);
  t.run(kInv);
  const MatrixBlock x = t.matrix("X");
  t.run(kChol);
  const MatrixBlock l = t.matrix("X");
  MatrixBlock eye = MatrixBlock::dense(n, n, 0.0), llt = MatrixBlock::dense(n, n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double e = 0, r = 0;
      for (int64_t k = 0; k < n; ++k) {
        e += s.get(i, k) * x.get(k, j);
        r += l.get(i, k) * l.get(j, k);
      }
      eye.dense_values()[i * n + j] = e;
      llt.dense_values()[i * n + j] = r;
      if (j > i) REQUIRE(l.get(i, j) == 0.0);
    }
  MatrixBlock id = MatrixBlock::dense(n, n, 0.0);
  for (int64_t i = 0; i < n; ++i) id.dense_values()[i * n + i] = 1.0;
  DMLRT_REQUIRE_CLOSE(eye, id, 1e-12, 1e-9);
  DMLRT_REQUIRE_CLOSE(llt, s, 1e-12, 1e-12);
}

TEST_CASE("qr gives commons-math's H and R as SystemDS prints them", "[linalg]") {
  TestContext t;
  SECTION("wide 2x3: the last reflection is one LAPACK skips") {
    const bool sparse = GENERATE(false, true);
    const std::vector<double> a = {1, 2, 3, 4, 5, 6};
    t.set_matrix("A", sparse ? sparse_of(2, 3, a) : dense_of(2, 3, a));
    t.run(kQr);
    DMLRT_REQUIRE_CLOSE(t.matrix("H"), 2, 3, {1.242535625036333, 0, 0, 0.970142500145332, 2, 0},
                        1e-14, 1e-13);
    DMLRT_REQUIRE_CLOSE(t.matrix("R"), 2, 3,
                        {-4.123105625617661, -5.335783750799326, -6.548461875980989, 0,
                         0.727606875108999, 1.455213750217997},
                        1e-14, 1e-13);
  }
  SECTION("a zero column: commons-math's 0/-0 makes H's column NaN") {
    t.set_matrix("A", dense_of(2, 2, {0, 1, 0, 2}));
    t.run(kQr);
    const MatrixBlock h = t.matrix("H");
    REQUIRE(std::isnan(h.get(0, 0)));
    REQUIRE(std::isnan(h.get(1, 0)));
    REQUIRE(h.get(0, 1) == 0.0);
    REQUIRE(h.get(1, 1) == 2.0);
    DMLRT_REQUIRE_CLOSE(t.matrix("R"), 2, 2, {0, 1, 0, -2});
  }
}

TEST_CASE("svd: SystemDS's values up to the sign of each singular vector pair", "[linalg]") {
  const bool wide = GENERATE(false, true);
  TestContext t;
  // SystemDS on [1 2; 3 4; 5 6]: U = [0.230 -0.883; 0.525 -0.241; 0.820 0.402],
  // S = diag(9.526, 0.514), V = [0.620 0.785; 0.785 -0.620]; the transpose swaps U and V.
  const std::vector<double> u = {0.2298476964000714,   -0.8834610176985254, 0.5247448187602937,
                                 -0.24078249213254635, 0.8196419411205158,  0.4018960334334318};
  const std::vector<double> v = {0.6196294838293405, 0.7848944532670524, 0.7848944532670524,
                                 -0.6196294838293405};
  t.set_matrix("A", wide ? dense_of(2, 3, {1, 3, 5, 2, 4, 6}) : dense_of(3, 2, {1, 2, 3, 4, 5, 6}));
  t.run(kSvd);
  const MatrixBlock gu = t.matrix(wide ? "V" : "U"), gv = t.matrix(wide ? "U" : "V");
  DMLRT_REQUIRE_CLOSE(t.matrix("S"), 2, 2, {9.52551809156511, 0, 0, 0.5143005806586441});
  REQUIRE(gu.rows() == 3);
  REQUIRE(gu.cols() == 2);
  REQUIRE(gv.rows() == 2);
  REQUIRE(gv.cols() == 2);
  for (int64_t j = 0; j < 2; ++j) {
    const double sign = gu.get(0, j) * u[static_cast<size_t>(j)] < 0 ? -1.0 : 1.0;
    for (int64_t i = 0; i < 3; ++i)
      REQUIRE(sign * gu.get(i, j) == Approx(u[static_cast<size_t>(i * 2 + j)]).epsilon(1e-12));
    for (int64_t i = 0; i < 2; ++i)
      REQUIRE(sign * gv.get(i, j) == Approx(v[static_cast<size_t>(i * 2 + j)]).epsilon(1e-12));
  }
}

TEST_CASE("linalg errors", "[linalg]") {
  TestContext t;
  SECTION(
      "inverse of a singular matrix (SystemDS: SingularMatrixException -- matrix is singular)") {
    const bool sparse = GENERATE(false, true);
    t.set_matrix("A", sparse ? MatrixBlock::empty_sparse(2, 2) : MatrixBlock::dense(2, 2, 0.0));
    REQUIRE_THROWS_AS(t.run(kInv), dmlrt::RuntimeError);
    REQUIRE_THROWS_WITH(t.run(kInv),
                        "inverse: matrix is singular: U(1,1) of the LU factorisation of the 2x2 "
                        "input is exactly zero");
  }
  SECTION("lu of a singular matrix (SystemDS fails with a NullPointerException)") {
    t.set_matrix("A", dense_of(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
    REQUIRE_THROWS_AS(t.run(kLu), dmlrt::RuntimeError);
    REQUIRE_THROWS_WITH(t.run(kLu),
                        "lu: matrix is singular: |U(3,3)| of the 3x3 input is below 1e-11");
  }
  SECTION("cholesky of a matrix that is not positive definite") {
    // SystemDS: not positive definite matrix: value -3 at index 1
    t.set_matrix("A", dense_of(2, 2, {1, 2, 2, 1}));
    REQUIRE_THROWS_AS(t.run(kChol), dmlrt::RuntimeError);
    REQUIRE_THROWS_WITH(t.run(kChol),
                        "cholesky: matrix is not positive definite: pivot 1 of the 2x2 input is "
                        "not above 1e-10");
    // Positive, but at most commons-math's threshold 1e-10.
    t.set_matrix("A", dense_of(2, 2, {1e-11, 0, 0, 1}));
    REQUIRE_THROWS_WITH(t.run(kChol), Catch::Contains("pivot 0 of the 2x2 input"));
  }
  SECTION("cholesky of a non-symmetric matrix") {
    // SystemDS: non symmetric matrix: the difference between entries at (0,1) and (1,0) ...
    t.set_matrix("A", dense_of(2, 2, {4, 2, 3, 3}));
    REQUIRE_THROWS_AS(t.run(kChol), dmlrt::RuntimeError);
    REQUIRE_THROWS_WITH(t.run(kChol),
                        "cholesky: matrix is not symmetric: entries (0,1)=2 and (1,0)=3 differ by "
                        "more than the relative threshold 1e-6");
  }
  SECTION("non-square inputs (SystemDS: Input to inv() must be square matrix -- given: a 2x3)") {
    t.set_matrix("A", MatrixBlock::dense(2, 3, 1.0));
    for (const char* line : {kInv, kChol, kDet, kLu}) {
      const std::string l(line), op = l.substr(l.find("°") + 2, l.find("°A") - l.find("°") - 2);
      REQUIRE_THROWS_AS(t.run(line), dmlrt::ShapeError);
      REQUIRE_THROWS_WITH(t.run(line), op + ": input must be a square matrix, got 2x3");
    }
  }
  SECTION("qr and svd of an input without rows or columns") {
    t.set_matrix("A", MatrixBlock::dense(0, 3));
    REQUIRE_THROWS_AS(t.run(kQr), dmlrt::ShapeError);
    REQUIRE_THROWS_WITH(
        t.run(kQr), "qr: input is 0x3; SystemDS needs a matrix with at least one row and column");
    REQUIRE_THROWS_AS(t.run("CP°qr°A·MATRIX·FP64°H"), dmlrt::ParseError);
    t.set_matrix("A", MatrixBlock::dense(2, 0));
    REQUIRE_THROWS_WITH(
        t.run(kSvd), "svd: input is 2x0; SystemDS needs a matrix with at least one row and column");
    REQUIRE_THROWS_AS(t.run("CP°svd°A·MATRIX·FP64°U°S"), dmlrt::ParseError);
  }
  SECTION("0x0 inputs (SystemDS: matrix must have at least one row)") {
    t.set_matrix("A", MatrixBlock::dense(0, 0));
    for (const char* line : {kInv, kChol, kDet, kLu}) {
      const std::string l(line), op = l.substr(l.find("°") + 2, l.find("°A") - l.find("°") - 2);
      REQUIRE_THROWS_WITH(t.run(line),
                          op + ": input is 0x0; SystemDS needs a matrix with at least one row");
    }
  }
  SECTION("operands") {
    REQUIRE_THROWS_WITH(t.run("CP°inverse°2·SCALAR·INT64·true°X·MATRIX·FP64°2"),
                        Catch::Contains("inverse expects a matrix input, got 2·SCALAR·INT64·true"));
    REQUIRE_THROWS_WITH(t.run("CP°det°A·MATRIX·FP64°d·MATRIX·FP64°2"),
                        Catch::Contains("det expects a scalar output, got d·MATRIX·FP64"));
    REQUIRE_THROWS_WITH(t.run("CP°cholesky°A·MATRIX·FP64°d·SCALAR·FP64°2"),
                        Catch::Contains("cholesky expects a matrix output, got d·SCALAR·FP64"));
    REQUIRE_THROWS_AS(t.run("CP°lu°A·MATRIX·FP64°P°L"), dmlrt::ParseError);
  }
}
