// Tests of eigen() (LAPACK dsyevd / dgeev): NumPy's eigenvalues, A V = V diag(values), V'V = I on
// random symmetric matrices (dense and CSR), ascending order, the sign convention of Note [eigen
// conventions], a non-symmetric input with real eigenvalues, and the errors.
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
const char* kEigen = "CP°eigen°A·MATRIX·FP64°ev°evec°2";

// Each column's entry of largest magnitude (the first on ties) is positive.
void check_signs(const MatrixBlock& v) {
  for (int64_t j = 0; j < v.cols(); ++j) {
    int64_t big = 0;
    for (int64_t i = 1; i < v.rows(); ++i)
      if (std::fabs(v.get(i, j)) > std::fabs(v.get(big, j))) big = i;
    REQUIRE(v.get(big, j) > 0);
  }
}

// max |A V - V diag(ev)| and max |V'V - I|, ascending values, the signs.
void check_decomposition(const MatrixBlock& a, const MatrixBlock& ev, const MatrixBlock& v) {
  const int64_t n = a.rows();
  double res = 0, orth = 0, scale = 1;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) scale = std::max(scale, std::fabs(a.get(i, j)));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double av = 0, vtv = 0;
      for (int64_t k = 0; k < n; ++k) {
        av += a.get(i, k) * v.get(k, j);
        vtv += v.get(k, i) * v.get(k, j);
      }
      res = std::max(res, std::fabs(av - v.get(i, j) * ev.get(j, 0)));
      orth = std::max(orth, std::fabs(vtv - (i == j ? 1.0 : 0.0)));
    }
  REQUIRE(res <= 1e-12 * scale * n);
  REQUIRE(orth <= 1e-12 * n);
  for (int64_t j = 1; j < n; ++j) REQUIRE(ev.get(j - 1, 0) <= ev.get(j, 0));
  check_signs(v);
}
}  // namespace

TEST_CASE("eigen: q q' + diag(q) against numpy.linalg.eigh", "[eigen]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  // q = (4, 1, 3, 2); SystemDS 3.4 printed 1.065 2.197 3.382 33.356.
  const std::vector<double> a = {20, 4, 12, 8, 4, 2, 3, 2, 12, 3, 12, 6, 8, 2, 6, 6};
  t.set_matrix("A", sp ? sparse_of(4, 4, a) : dense_of(4, 4, a));
  t.run(kEigen);
  DMLRT_REQUIRE_CLOSE(t.matrix("ev"), 4, 1, {1.06501601, 2.19747318, 3.38185275, 33.35565806}, 1e-8,
                      0);
  check_decomposition(dense_of(4, 4, a), t.matrix("ev"), t.matrix("evec"));
}

TEST_CASE("eigen: random symmetric matrices, 1x1, diagonal, empty", "[eigen]") {
  TestContext t;
  SECTION("random") {
    const int64_t n = GENERATE(2, 7, 33);
    const double density = GENERATE(1.0, 0.1);
    MatrixBlock r = random_block(n, n, density, seed_from("eigen") + n, -2, 2).to_dense();
    std::vector<double> s(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) s[i * n + j] = r.get(i, j) + r.get(j, i);
    MatrixBlock a = dense_of(n, n, s);
    t.set_matrix("A", density < 1 ? sparse_of(n, n, s) : a);
    t.run(kEigen);
    check_decomposition(a, t.matrix("ev"), t.matrix("evec"));
  }
  SECTION("1x1 and diagonal (already converged)") {
    t.set_matrix("A", dense_of(1, 1, {-3}));
    t.run(kEigen);
    DMLRT_REQUIRE_CLOSE(t.matrix("ev"), 1, 1, {-3});
    DMLRT_REQUIRE_CLOSE(t.matrix("evec"), 1, 1, {1});
    t.set_matrix("A", dense_of(3, 3, {5, 0, 0, 0, -1, 0, 0, 0, 2}));
    t.run(kEigen);
    DMLRT_REQUIRE_CLOSE(t.matrix("ev"), 3, 1, {-1, 2, 5});
    DMLRT_REQUIRE_CLOSE(t.matrix("evec"), 3, 3, {0, 0, 1, 1, 0, 0, 0, 1, 0});
  }
  SECTION("0x0") {
    t.set_matrix("A", MatrixBlock::dense(0, 0));
    t.run(kEigen);
    REQUIRE(t.matrix("ev").rows() == 0);
    REQUIRE(t.matrix("evec").cols() == 0);
  }
  SECTION("repeated eigenvalues: 2 I + e e' (3, 3, 3, 6)") {
    const std::vector<double> a = {3, 1, 1, 1, 1, 3, 1, 1, 1, 1, 3, 1, 1, 1, 1, 3};
    t.set_matrix("A", dense_of(4, 4, a));
    t.run(kEigen);
    DMLRT_REQUIRE_CLOSE(t.matrix("ev"), 4, 1, {2, 2, 2, 6}, 1e-12, 1e-12);
    check_decomposition(dense_of(4, 4, a), t.matrix("ev"), t.matrix("evec"));
  }
  SECTION("errors") {
    t.set_matrix("A", dense_of(2, 3, {1, 2, 3, 4, 5, 6}));
    REQUIRE_THROWS_WITH(t.run(kEigen),
                        Catch::Contains("eigen: input must be a square matrix, got 2x3"));
    // A rotation: eigenvalues +/- i, where SystemDS returns the real parts (0, 0).
    t.set_matrix("A", dense_of(2, 2, {0, -1, 1, 0}));
    REQUIRE_THROWS_WITH(t.run(kEigen),
                        Catch::Contains("eigen: the 2x2 input is not symmetric and has complex "
                                        "eigenvalues (0 +/- 1i)"));
    // NaN: SystemDS's commons-math fails to converge.
    t.set_matrix("A", dense_of(2, 2, {1, std::nan(""), std::nan(""), 2}));
    REQUIRE_THROWS_WITH(t.run(kEigen),
                        Catch::Contains("eigen: cell (1,2) of the 2x2 input is nan; the eigen "
                                        "decomposition needs finite values"));
    t.set_matrix("A", sparse_of(3, 3, {0, 0, 0, 0, 0, HUGE_VAL, 0, HUGE_VAL, 0}));
    REQUIRE_THROWS_WITH(t.run(kEigen),
                        Catch::Contains("eigen: cell (2,3) of the 3x3 input is inf"));
    // Checked before anything is densified.
    t.set_matrix("A", MatrixBlock::empty_sparse(40000, 40000));
    REQUIRE_THROWS_WITH(t.run(kEigen),
                        Catch::Contains("eigen: 40000x40000 exceeds LAPACK's 32-bit sizes"));
    REQUIRE_THROWS_WITH(t.run("CP°eigen°A·MATRIX·FP64°ev"),
                        Catch::Contains("eigen expects 3 to 4 operand fields, got 2"));
  }
}

TEST_CASE("eigen: a non-symmetric input with real eigenvalues (dgeev)", "[eigen]") {
  const bool sp = GENERATE(false, true);
  TestContext t;
  // SystemDS 3.4 printed the values 0.795 2.650 4.555 and unnormalised vectors whose columns are
  // multiples of these (Note [eigen conventions]); values and vectors from numpy.linalg.eig,
  // sorted, each column's largest entry made positive.
  const std::vector<double> a = {4, 1, 2, 0.5, 3, 1, 0.2, 0.3, 1};
  t.set_matrix("A", sp ? sparse_of(3, 3, a) : dense_of(3, 3, a));
  t.run(kEigen);
  DMLRT_REQUIRE_CLOSE(t.matrix("ev"), 3, 1,
                      {0.79539291317644, 2.649893842727622, 4.554713244095933}, 1e-12, 1e-12);
  DMLRT_REQUIRE_CLOSE(t.matrix("evec"), 3, 3,
                      {-0.441672758237336, -0.649272454901494, 0.93213593282085, -0.285612708170011,
                       0.758250906347838, 0.352653608531134, 0.850500179637145, 0.059167916381011,
                       0.082207269351154},
                      1e-12, 1e-12);
  check_signs(t.matrix("evec"));
}
