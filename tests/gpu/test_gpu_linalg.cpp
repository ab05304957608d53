// inverse, cholesky, det, lu, qr and svd on the GPU (cuSOLVER) beyond the op registry's random
// samples: the errors (singular, not symmetric, not positive definite) with the CPU's messages,
// det's singular cases (0 as in SystemDS), lu's pivoting, qr's skipped reflections and zero
// columns (NaN in H), svd of tall and wide inputs, and a larger n than the registry's sizes.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

MatrixBlock dense_of(int64_t r, int64_t c, std::vector<double> v) {
  return MatrixBlock::dense(r, c, std::move(v));
}

// Runs opcode on `in` into the bare outputs `outs` on the CPU (names suffixed R) and on the GPU
// (suffixed G) of one environment and compares the outputs `compared` (all when empty).
void check_multi(GpuEnv& env, mem::DType dt, const std::string& opcode, const std::string& in,
                 const std::vector<std::string>& outs, const std::string& label,
                 std::vector<std::string> compared = {}) {
  if (compared.empty()) compared = outs;
  INFO(label << " " << prec_name(dt));
  std::string r = opcode + "°" + in, g = r;
  for (const std::string& o : outs) {
    r += "°" + o + "R";
    g += "°" + o + "G";
  }
  try {
    env.run("CP°" + r + "°2");
    CHECK(env.run("GPU°" + g));
    for (const std::string& o : compared) {
      const auto cmp = test::compare(env.host(o + "G"), env.host(o + "R"), tol_of(dt), tol_of(dt));
      INFO("output " << o << ": " << cmp.report << " max_abs_err=" << cmp.max_abs_err);
      CHECK(cmp.ok);
    }
  } catch (const std::exception& e) {
    FAIL_CHECK("threw: " << e.what());
  }
}

}  // namespace

TEST_CASE("gpu linalg fails with the CPU's messages", "[gpu][cusolver][linalg]") {
  GpuEnv env;
  SECTION("inverse of a singular matrix, dense and sparse") {
    env.bind("A", MatrixBlock::dense(2, 2, 0.0));
    check_same_error(env, "inverse", "A·MATRIX·FP64°OUT");
    env.bind("A", MatrixBlock::empty_sparse(3, 3));
    check_same_error(env, "inverse", "A·MATRIX·FP64°OUT");
  }
  SECTION("lu of a singular matrix") {
    env.bind("A", dense_of(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
    const std::string cpu = error_of(env, "CP°lu°A·MATRIX·FP64°P°L°U");
    CHECK(cpu == "lu: matrix is singular: |U(3,3)| of the 3x3 input is below 1e-11");
    CHECK(error_of(env, "GPU°lu°A·MATRIX·FP64°P°L°U") == cpu);
  }
  SECTION("cholesky of a matrix that is not symmetric, not positive definite, or barely so") {
    for (const MatrixBlock& a :
         {dense_of(2, 2, {4, 2, 3, 3}), dense_of(2, 2, {1, 2, 2, 1}),
          dense_of(2, 2, {1e-11, 0, 0, 1}), dense_of(3, 3, {4, 1, 1, 1, 4, 1, 1, 1.5, 4})}) {
      env.bind("A", a);
      check_same_error(env, "cholesky", "A·MATRIX·FP64°OUT");
    }
  }
  SECTION("shapes are the instruction's check, before any device work") {
    env.bind("A", MatrixBlock::dense(2, 3, 1.0));
    check_same_error(env, "inverse", "A·MATRIX·FP64°OUT");
    check_same_error(env, "det", "A·MATRIX·FP64°OUT", "SCALAR");
  }
}

TEST_CASE("gpu linalg matches the CPU on fixed and larger inputs", "[gpu][cusolver][linalg]") {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    SECTION(std::string("det: singular inputs are 0, pivoting flips the sign ") + prec_name(dt)) {
      for (const MatrixBlock& a :
           {dense_of(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}), MatrixBlock::empty_sparse(2, 2),
            dense_of(2, 2, {1, 2, 3, 4}), dense_of(1, 1, {-2.5})}) {
        env.bind("A", a);
        env.run("CP°det°A·MATRIX·FP64°dR·SCALAR·FP64°2");
        CHECK(env.run("GPU°det°A·MATRIX·FP64°dG·SCALAR·FP64"));
        const double r = env.ec->scalar("dR").to_double(), g = env.ec->scalar("dG").to_double();
        CHECK(g == Approx(r).epsilon(tol_of(dt)).margin(tol_of(dt)));
      }
    }
    SECTION(std::string("lu with row swaps, qr's special columns, svd tall and wide ") +
            prec_name(dt)) {
      env.bind("A", dense_of(3, 3, {1, 2, 0, 4, 1, 3, 2, 8, 1}));
      check_multi(env, dt, "lu", "A·MATRIX·FP64", {"P", "L", "U"}, "lu 3x3 with swaps");
      env.bind("A", dense_of(2, 3, {1, 2, 3, 4, 5, 6}));
      check_multi(env, dt, "qr", "A·MATRIX·FP64", {"H", "R"}, "qr wide 2x3");
      env.bind("A", dense_of(2, 2, {0, 1, 0, 2}));
      check_multi(env, dt, "qr", "A·MATRIX·FP64", {"H", "R"}, "qr zero column");
      // Singular values (sign-free) of a tall and a wide input.
      env.bind("A", dense_of(3, 2, {1, 2, 3, 4, 5, 6}));
      check_multi(env, dt, "svd", "A·MATRIX·FP64", {"U", "S", "V"}, "svd tall 3x2", {"S"});
      env.bind("A", dense_of(2, 3, {1, 3, 5, 2, 4, 6}));
      check_multi(env, dt, "svd", "A·MATRIX·FP64", {"U", "S", "V"}, "svd wide 2x3", {"S"});
    }
  }
}

TEST_CASE("gpu inverse and cholesky of a larger SPD matrix match the CPU",
          "[gpu][cusolver][linalg]") {
  // S = B + t(B) + 2n I with B uniform in [-1, 1]: symmetric, strictly dominant, n = 300 spans
  // several of cuSOLVER's blocks.
  const int64_t n = 300;
  const MatrixBlock b =
      test::random_block(n, n, 1.0, test::seed_from("gpu linalg spd"), -1, 1, false);
  std::vector<double> v(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      v[static_cast<size_t>(i * n + j)] = b.get(i, j) + b.get(j, i) + (i == j ? 2.0 * n : 0.0);
  GpuEnv env;
  env.bind("A", MatrixBlock::dense(n, n, v));
  for (const char* op : {"inverse", "cholesky"})
    check_vs_cpu(env, mem::DType::kFloat64, op, "A·MATRIX·FP64°OUT", std::string(op) + " 300");
}
