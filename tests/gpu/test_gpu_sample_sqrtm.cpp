// sample with replacement and sqrt_matrix_java on the GPU against the CPU backend. sample: the
// device draws the CPU's Philox cells, so the columns are bit-identical (FP64; FP32 holds them
// rounded) for several seeds, ranges and sizes (0, 1, odd, above one block); without replacement
// the line stays on the CPU. sqrt_matrix_java: random SPD matrices (1x1, odd sizes; dense, CSR),
// FP64 and FP32, 0x0, and the CPU's errors (not symmetric, NaN, not positive definite, not square).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

std::string sample_line(const char* prefix, int64_t range, int64_t size, bool replace, int64_t seed,
                        const char* out) {
  return std::string(prefix) + "°sample°" + std::to_string(range) + "°" + lit(size) + "°" +
         (replace ? "true" : "false") + "°" + std::to_string(seed) + "°1000°" + out +
         "·MATRIX·FP64";
}

// B'B/n + I for B (n, n) uniform in [-1, 1] at the given density (CSR when sparse): symmetric
// positive definite with eigenvalues in [1, ~n/3 + 1]; rounded through float for an FP32 device
// (which keeps it exactly symmetric).
MatrixBlock random_spd(int64_t n, double sparsity, uint64_t seed, mem::DType dt) {
  const MatrixBlock b = test::random_block(n, n, sparsity, seed, -1, 1, false);
  std::vector<double> v(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i; j < n; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < n; ++k) acc += b.get(k, i) * b.get(k, j);
      acc = acc / static_cast<double>(n) + (i == j ? 1.0 : 0.0);
      v[static_cast<size_t>(i * n + j)] = v[static_cast<size_t>(j * n + i)] = acc;
    }
  MatrixBlock a = MatrixBlock::dense(n, n, std::move(v));
  if (sparsity < 1) a = a.to_sparse();
  return dt == mem::DType::kFloat32 ? rounded_f32(a) : a;
}

const char* kSqrtCpu = "CP°sqrt_matrix_java°A·MATRIX·FP64°R·MATRIX·FP64°8";
const char* kSqrtGpu = "GPU°sqrt_matrix_java°A·MATRIX·FP64°G·MATRIX·FP64";

}  // namespace

TEST_CASE("gpu sample with replacement is the CPU's column bit for bit", "[gpu][kernel][datagen]") {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    CpuEnv cpu;
    for (int64_t seed : {int64_t{0}, int64_t{7}, int64_t{123456789012345}, int64_t{-42}})
      for (int64_t range : {int64_t{1}, int64_t{5}, int64_t{1000}, int64_t{1} << 40})
        for (int64_t size : {0, 1, 2, 37, 1000, 100003}) {
          INFO("sample range=" << range << " size=" << size << " seed=" << seed << " "
                               << prec_name(dt));
          try {
            cpu.run(sample_line("CP", range, size, true, seed, "R"));
            CHECK(env.run(sample_line("GPU", range, size, true, seed, "G")));
            const MatrixBlock ref = cpu.host("R");
            const MatrixBlock want = dt == mem::DType::kFloat64 ? ref : rounded_f32(ref);
            const MatrixBlock got = env.host("G").to_dense();
            REQUIRE(got.rows() == size);
            REQUIRE(got.cols() == 1);
            int64_t mismatches = 0, first = -1;
            for (int64_t i = 0; i < size; ++i)
              if (got.get(i, 0) != want.get(i, 0)) {
                if (first < 0) first = i;
                ++mismatches;
              }
            INFO(mismatches << " mismatches, first at " << first);
            CHECK(mismatches == 0);
            for (int64_t i = 0; i < size && i < 1000; ++i) {
              CHECK(ref.get(i, 0) >= 1);
              CHECK(ref.get(i, 0) <= static_cast<double>(range));
            }
          } catch (const std::exception& e) {
            FAIL_CHECK("threw: " << e.what());
          }
        }
  }
}

TEST_CASE("gpu sample without replacement stays on the CPU; errors are the CPU's",
          "[gpu][kernel][datagen]") {
  GpuEnv env;
  CpuEnv cpu;
  // The partial Fisher-Yates shuffle is sequential: the GPU line runs the CPU kernel.
  cpu.run(sample_line("CP", 50, 20, false, 3, "R"));
  CHECK_FALSE(env.run(sample_line("GPU", 50, 20, false, 3, "G")));
  CHECK(test::compare(env.host("G"), cpu.host("R"), 0, 0).ok);
  for (const auto& [range, size, replace] :
       {std::tuple<int64_t, int64_t, bool>{10, -3, true}, {0, 4, true}, {5, 6, false}}) {
    const std::string c =
        error_of([&] { cpu.run(sample_line("CP", range, size, replace, 1, "R")); });
    const std::string g = error_of(env, sample_line("GPU", range, size, replace, 1, "G"));
    INFO("range=" << range << " size=" << size << " replace=" << replace);
    CHECK(c.find("ample") != std::string::npos);
    CHECK(g == c);
  }
  const std::string msg = error_of(env, sample_line("GPU", 10, -3, true, 1, "G"));
  CHECK(msg.find("sample: invalid sample size -3") != std::string::npos);
}

TEST_CASE("gpu sqrt_matrix_java matches the CPU on random SPD matrices", "[gpu][cusolver][sqrtm]") {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (int64_t n : {1, 2, 7, 37, 101}) {
      for (double sparsity : {1.0, 0.1}) {
        const uint64_t seed = test::seed_from("gpu sqrtm") + static_cast<uint64_t>(n);
        const MatrixBlock a = random_spd(n, sparsity, seed, dt);
        INFO("n=" << n << " sparsity=" << sparsity << " " << prec_name(dt));
        try {
          env.bind("A", a);
          env.run(kSqrtCpu);
          CHECK(env.run(kSqrtGpu));
          const MatrixBlock r = env.host("R"), g = env.host("G");
          REQUIRE(g.rows() == n);
          REQUIRE(g.cols() == n);
          const bool fp64 = dt == mem::DType::kFloat64;
          const auto cmp = test::compare(g, r, fp64 ? 1e-10 : 2e-4, fp64 ? 1e-9 : 1e-4);
          INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
          CHECK(cmp.ok);
          // G G = A (within the precision).
          double worst = 0;
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
              double acc = 0;
              for (int64_t k = 0; k < n; ++k) acc += g.get(i, k) * g.get(k, j);
              worst = std::max(worst, std::fabs(acc - a.get(i, j)));
            }
          INFO("max |G G - A| = " << worst);
          CHECK(worst <= (fp64 ? 1e-10 : 1e-3) * static_cast<double>(n));
        } catch (const std::exception& e) {
          FAIL_CHECK("threw: " << e.what());
        }
      }
    }
    // 0x0: an empty result, nothing launched.
    env.bind("A", MatrixBlock::dense(0, 0));
    CHECK(env.run(kSqrtGpu));
    CHECK(env.host("G").rows() == 0);
    CHECK(env.host("G").cols() == 0);
  }
}

TEST_CASE("gpu sqrt_matrix_java raises the CPU's errors", "[gpu][cusolver][sqrtm]") {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    INFO(prec_name(dt));
    SECTION("not symmetric, NaN and Inf: the CPU kernel's message naming the cells") {
      for (const MatrixBlock& a :
           {MatrixBlock::dense(2, 2, {4, 1, 2, 3}), MatrixBlock::dense(2, 2, {1, NAN, NAN, 2}),
            MatrixBlock::dense(2, 2, {1, 0, 0, HUGE_VAL})}) {
        env.bind("A", a);
        const std::string cpu = error_of(env, kSqrtCpu);
        CHECK(cpu.find("sqrtMatrixJava: the matrix is not symmetric (cells (") !=
              std::string::npos);
        CHECK(error_of(env, kSqrtGpu) == cpu);
      }
    }
    SECTION("not positive definite: the first eigenvalue <= 0") {
      // Eigenvalues -1 and 3 (printed "-1" from either solver's -1 +- ulps); the zero matrix and
      // diag(2, 0, 5) have the eigenvalue 0, whose sign may differ between the solvers.
      for (const auto& [a, value] :
           {std::pair<MatrixBlock, std::string>{MatrixBlock::dense(2, 2, {1, 2, 2, 1}), "-1 "},
            {MatrixBlock::dense(2, 2, 0.0), ""},
            {MatrixBlock::dense(3, 3, {2, 0, 0, 0, 0, 0, 0, 0, 5}), ""}}) {
        env.bind("A", a);
        const std::string cpu = error_of(env, kSqrtCpu), gpu = error_of(env, kSqrtGpu);
        INFO("cpu: " << cpu << "\ngpu: " << gpu);
        for (const std::string& msg : {cpu, gpu}) {
          CHECK(msg.find("sqrtMatrixJava: the matrix has the eigenvalue " + value) !=
                std::string::npos);
          CHECK(msg.find("<= 0; commons-math's getSquareRoot, which SystemDS calls, supports "
                         "positive definite matrices only") != std::string::npos);
        }
      }
    }
    SECTION("not square: the instruction's check") {
      env.bind("A", MatrixBlock::dense(2, 3, 1.0));
      const std::string cpu = error_of(env, kSqrtCpu);
      CHECK(cpu.find("sqrt_matrix_java: expects a square matrix, got 2x3") != std::string::npos);
      CHECK(error_of(env, kSqrtGpu) == cpu);
    }
  }
}
