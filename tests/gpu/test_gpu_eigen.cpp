// eigen on the GPU (cuSOLVER syevd) against the CPU (LAPACK dsyevd) beyond the op registry's
// samples: random symmetric matrices (1x1, odd sizes, 200x200; dense, CSR and empty), FP64 and
// FP32, eigenvalues compared cell by cell, eigenvectors through A V = V diag(L) and V'V = I (and
// cell by cell, signs included, where the eigenvalues are well apart in FP64), repeated
// eigenvalues, 0x0, the CPU fallback for a non-symmetric input, and the CPU's errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

const char* kCpuLine = "CP°eigen°A·MATRIX·FP64°LR°VR°2";
const char* kGpuLine = "GPU°eigen°A·MATRIX·FP64°LG°VG";

// B + t(B) with B (n, n) uniform in [-2, 2] at the given density; CSR when sparsity < 1, rounded
// through float for an FP32 device (which keeps it exactly symmetric).
MatrixBlock random_symmetric(int64_t n, double sparsity, uint64_t seed, mem::DType dt) {
  const MatrixBlock b = test::random_block(n, n, sparsity, seed, -2, 2, false);
  std::vector<double> v(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) v[static_cast<size_t>(i * n + j)] = b.get(i, j) + b.get(j, i);
  MatrixBlock a = MatrixBlock::dense(n, n, std::move(v));
  if (sparsity < 1) a = a.to_sparse();
  return dt == mem::DType::kFloat32 ? rounded_f32(a) : a;
}

// max |A V - V diag(L)| and max |V'V - I|, in double on the host.
struct Residuals {
  double eig = 0, orth = 0;
};
Residuals residuals(const MatrixBlock& a, const MatrixBlock& l, const MatrixBlock& v) {
  const int64_t n = a.rows();
  const MatrixBlock ad = a.to_dense(), vd = v.to_dense();
  Residuals r;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double av = 0, vtv = 0;
      for (int64_t k = 0; k < n; ++k) {
        av += ad.get(i, k) * vd.get(k, j);
        vtv += vd.get(k, i) * vd.get(k, j);
      }
      r.eig = std::max(r.eig, std::fabs(av - vd.get(i, j) * l.get(j, 0)));
      r.orth = std::max(r.orth, std::fabs(vtv - (i == j ? 1.0 : 0.0)));
    }
  return r;
}

// The smallest gap between consecutive eigenvalues (ascending), relative to the largest
// magnitude; infinity for n < 2.
double relative_gap(const MatrixBlock& l) {
  double gap = HUGE_VAL, big = 1.0;
  for (int64_t j = 0; j < l.rows(); ++j) big = std::max(big, std::fabs(l.get(j, 0)));
  for (int64_t j = 1; j < l.rows(); ++j) gap = std::min(gap, l.get(j, 0) - l.get(j - 1, 0));
  return gap / big;
}

// eigen of `a` on the CPU and the GPU of `env`: the GPU run must take the device path; values
// within the precision's tolerance of the CPU's; the GPU's vectors an orthonormal eigenbasis of
// a (and equal to the CPU's when `vectors` and the eigenvalues are well apart).
void check_eigen(GpuEnv& env, mem::DType dt, const MatrixBlock& a, const std::string& label,
                 bool vectors = true) {
  INFO(label << " " << prec_name(dt));
  try {
    env.bind("A", a);
    env.run(kCpuLine);
    CHECK(env.run(kGpuLine));
    const int64_t n = a.rows();
    const MatrixBlock lr = env.host("LR"), lg = env.host("LG"), vg = env.host("VG");
    REQUIRE(lg.rows() == n);
    REQUIRE(lg.cols() == 1);
    REQUIRE(vg.rows() == n);
    REQUIRE(vg.cols() == n);
    double scale = 1.0;
    for (int64_t j = 0; j < n; ++j) scale = std::max(scale, std::fabs(lr.get(j, 0)));
    const bool fp64 = dt == mem::DType::kFloat64;
    const double tol = fp64 ? 1e-12 * scale * static_cast<double>(n) : 2e-5 * scale;
    const auto vals = test::compare(lg, lr, tol, 0);
    INFO("values: " << vals.report << " max_abs_err=" << vals.max_abs_err << " tol=" << tol);
    CHECK(vals.ok);
    for (int64_t j = 1; j < n; ++j) CHECK(lg.get(j - 1, 0) <= lg.get(j, 0));
    const Residuals r = residuals(a, lg, vg);
    const double orth_tol = fp64 ? 1e-12 * static_cast<double>(n) : 1e-4;
    INFO("|AV - VL| = " << r.eig << " |V'V - I| = " << r.orth);
    CHECK(r.eig <= (fp64 ? 1e-12 * static_cast<double>(n) : 1e-4) * scale);
    CHECK(r.orth <= orth_tol);
    // Well-separated eigenvalues: each eigenvector is unique up to sign, and the sign rule
    // (Note [eigen conventions]) makes it unique; perturbation ~ eps |A| / gap.
    if (fp64 && vectors && relative_gap(lr) > 1e-6) {
      const auto vecs = test::compare(vg, env.host("VR"), 1e-7, 0);
      INFO("vectors: " << vecs.report << " max_abs_err=" << vecs.max_abs_err);
      CHECK(vecs.ok);
    }
  } catch (const std::exception& e) {
    FAIL_CHECK("threw: " << e.what());
  }
}

}  // namespace

TEST_CASE("gpu eigen matches the CPU on random symmetric matrices", "[gpu][cusolver][eigen]") {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (int64_t n : {1, 2, 7, 37, 200}) {
      for (const Format& f : formats()) {
        if (f.sparsity == 0.0) {
          // All zeros: eigenvalue 0, n times; syevd and dsyevd both answer the identity.
          check_eigen(env, dt, MatrixBlock::empty_sparse(n, n), "empty " + std::to_string(n));
          continue;
        }
        const uint64_t seed = test::seed_from("gpu eigen") + static_cast<uint64_t>(n);
        check_eigen(env, dt, random_symmetric(n, f.sparsity, seed, dt),
                    std::string(f.name) + " " + std::to_string(n));
      }
    }
  }
}

TEST_CASE("gpu eigen of repeated eigenvalues and 0x0", "[gpu][cusolver][eigen]") {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    SECTION(std::string("2 I + u u' (2, n-1 times, and 2 + |u|^2) ") + prec_name(dt)) {
      for (int64_t n : {4, 51}) {
        const MatrixBlock u = test::random_block(n, 1, 1.0, test::seed_from("gpu eigen u"), -1, 1);
        std::vector<double> v(static_cast<size_t>(n * n));
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j)
            v[static_cast<size_t>(i * n + j)] = u.get(i, 0) * u.get(j, 0) + (i == j ? 2.0 : 0.0);
        MatrixBlock a = MatrixBlock::dense(n, n, std::move(v));
        if (dt == mem::DType::kFloat32) a = rounded_f32(a);
        check_eigen(env, dt, a, "2 I + u u' " + std::to_string(n), false);
      }
    }
    SECTION(std::string("block diagonal with the values 3, 3, 3, -1, -1, 5 ") + prec_name(dt)) {
      // diag(3, 3, 3) and the rotated [[1, 2], [2, 1]] (3 and -1) and 5 and [[-1]].
      const std::vector<double> v = {3, 0, 0, 0, 0, 0,  //
                                     0, 3, 0, 0, 0, 0,  //
                                     0, 0, 1, 2, 0, 0,  //
                                     0, 0, 2, 1, 0, 0,  //
                                     0, 0, 0, 0, 5, 0,  //
                                     0, 0, 0, 0, 0, -1};
      check_eigen(env, dt, MatrixBlock::dense(6, 6, v), "block diagonal", false);
      CHECK(test::compare(env.host("LG"), 6, 1, {-1, -1, 3, 3, 3, 5}, 1e-5, 0).ok);
    }
    SECTION(std::string("0x0 ") + prec_name(dt)) {
      env.bind("A", MatrixBlock::dense(0, 0));
      CHECK(env.run(kGpuLine));
      CHECK(env.host("LG").rows() == 0);
      CHECK(env.host("LG").cols() == 1);
      CHECK(env.host("VG").rows() == 0);
      CHECK(env.host("VG").cols() == 0);
    }
  }
}

TEST_CASE("gpu eigen runs the CPU kernel for inputs syevd does not take",
          "[gpu][cusolver][eigen]") {
  GpuEnv env;
  SECTION("non-symmetric with real eigenvalues: the CPU's dgeev result") {
    env.bind("A", MatrixBlock::dense(3, 3, {4, 1, 2, 0.5, 3, 1, 0.2, 0.3, 1}));
    env.run(kCpuLine);
    env.run(kGpuLine);
    CHECK(test::compare(env.host("LG"), env.host("LR"), 1e-15, 0).ok);
    CHECK(test::compare(env.host("VG"), env.host("VR"), 1e-15, 0).ok);
    CHECK(test::compare(env.host("LG"), 3, 1,
                        {0.79539291317644, 2.649893842727622, 4.554713244095933}, 1e-12, 1e-12)
              .ok);
  }
  SECTION("complex eigenvalues, NaN and Inf fail with the CPU's messages") {
    for (const MatrixBlock& a :
         {MatrixBlock::dense(2, 2, {0, -1, 1, 0}), MatrixBlock::dense(2, 2, {1, NAN, NAN, 2}),
          MatrixBlock::dense(2, 2, {1, 0, 0, HUGE_VAL})}) {
      env.bind("A", a);
      const std::string cpu = error_of(env, kCpuLine);
      CHECK(cpu.find("eigen: ") != std::string::npos);
      CHECK(error_of(env, kGpuLine) == cpu);
    }
  }
  SECTION("shapes are the instruction's check") {
    env.bind("A", MatrixBlock::dense(2, 3, 1.0));
    const std::string cpu = error_of(env, kCpuLine);
    CHECK(cpu.find("eigen: input must be a square matrix, got 2x3") != std::string::npos);
    CHECK(error_of(env, kGpuLine) == cpu);
    env.bind("A", MatrixBlock::empty_sparse(40000, 40000));
    const std::string big = error_of(env, kCpuLine);
    CHECK(big.find("eigen: 40000x40000 exceeds LAPACK's 32-bit sizes") != std::string::npos);
    CHECK(error_of(env, kGpuLine) == big);
  }
}
