// ba+* on the GPU against the CPU backend: every dense/sparse/ultra-sparse/empty combination, all
// four transpose flags, vector, 1x1, odd and larger-than-block shapes, FP64 (1e-9) and FP32 (1e-4
// relative, on inputs rounded to float). Each case names op, shapes, formats, flags and precision.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "gpu_env.h"
#include "kernels/cpu/matmult.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

std::string ba_line(bool ta, bool tb, bool scalar_out = false) {
  return std::string("GPU°ba+*°A·MATRIX·FP64°B·MATRIX·FP64°C·") +
         (scalar_out ? "SCALAR" : "MATRIX") + "·FP64°1°" + (ta ? "true" : "false") + "°" +
         (tb ? "true" : "false");
}

void check_case(GpuEnv& env, mem::DType dt, int64_t m, int64_t k, int64_t n, const Format& fa, const Format& fb,
                bool ta, bool tb, uint64_t seed) {
  const int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
  MatrixBlock a = test::random_block(ar, ac, fa.sparsity, seed, -1, 1, fa.sparse);
  MatrixBlock b = test::random_block(br, bc, fb.sparsity, seed + 1, -1, 1, fb.sparse);
  if (dt == mem::DType::kFloat32) {
    a = rounded_f32(a);
    b = rounded_f32(b);
  }
  std::ostringstream label;
  label << "ba+* " << (ta ? "t" : "") << "A(" << ar << "x" << ac << " " << fa.name << ") %*% "
        << (tb ? "t" : "") << "B(" << br << "x" << bc << " " << fb.name << ") " << prec_name(dt);
  INFO(label.str());
  const MatrixBlock ref = kernels::cpu::matmult(a, b, ta, tb);
  env.bind("A", a);
  env.bind("B", b);
  REQUIRE(env.run(ba_line(ta, tb)));
  const MatrixBlock got = env.host("C");
  // FP32: relative to the magnitude of the dot products (sums of k terms of size <= 1).
  const double atol = dt == mem::DType::kFloat64 ? 1e-9 : 1e-4 * std::max<int64_t>(1, k) / 8;
  const auto cmp = test::compare(got, ref, atol, tol_of(dt));
  INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
  REQUIRE(cmp.ok);
}

}  // namespace

TEST_CASE("gpu ba+* matches the CPU on all formats, flags and shapes", "[gpu][cublas][cusparse]") {
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
      {1, 1, 1},   {1, 7, 1},    {7, 1, 1},     {1, 9, 5},     {6, 9, 1},  {3, 0, 4},
      {0, 5, 3},   {4, 5, 0},    {33, 65, 17},  {2, 3, 2},     {300, 257, 129}};
  const uint64_t seed = test::seed_from("gpu ba+*");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);  // one session per precision; inputs are rebound per case
    for (const auto& [m, k, n] : shapes)
      for (const Format& fa : formats())
        for (const Format& fb : formats())
          for (bool ta : {false, true})
            for (bool tb : {false, true})
              check_case(env, dt, m, k, n, fa, fb, ta, tb, seed + m * 31 + n);
  }
}

TEST_CASE("gpu ba+* with a scalar output reads the 1x1 product", "[gpu][cublas]") {
  GpuEnv env;
  MatrixBlock a = test::random_block(1, 50, 1.0, 3);
  MatrixBlock b = test::random_block(50, 1, 1.0, 4);
  env.bind("A", a);
  env.bind("B", b);
  REQUIRE(env.run(ba_line(false, false, true)));
  const double ref = kernels::cpu::matmult(a, b, false, false).get(0, 0);
  CHECK(std::abs(env.ec->scalar("C").to_double() - ref) <= 1e-9 + 1e-9 * std::abs(ref));
}

TEST_CASE("gpu ba+* rejects mismatched inner dimensions like the CPU", "[gpu]") {
  GpuEnv env;
  env.bind("A", test::random_block(3, 4, 1.0, 1));
  env.bind("B", test::random_block(5, 2, 1.0, 2));
  REQUIRE_THROWS_WITH(env.run(ba_line(false, false)),
                      "ba+*: inner dimensions differ: 3x4 %*% 5x2");
  REQUIRE_THROWS_WITH(env.run(ba_line(true, false)),
                      "ba+*: inner dimensions differ: t(3x4) %*% 5x2");
}

TEST_CASE("gpu ba+* on CP lines follows -gpu / -gpu force / off", "[gpu]") {
  const std::string cp = "CP°ba+*°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°1";
  for (auto mode : {inst::GpuMode::kOff, inst::GpuMode::kOn, inst::GpuMode::kForce}) {
    GpuEnv env(mem::DType::kFloat64, -1, mem::EvictionPolicy::kLru, mode);
    env.bind("A", test::random_block(8, 8, 1.0, 1));
    env.bind("B", test::random_block(8, 8, 1.0, 2));
    CHECK(env.run(cp) == (mode != inst::GpuMode::kOff));
  }
}
