// ba+* on the GPU against the CPU backend: every dense/sparse/ultra-sparse/empty combination, all
// four transpose flags, vector, 1x1, odd and larger-than-block shapes, FP64 (1e-9) and FP32 (1e-4
// relative, on inputs rounded to float). Each case names op, shapes, formats, flags and precision.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "common/test_files.h"
#include "gpu_context/gemm_plan_cache.h"
#include "gpu_context/tuning_file.h"
#include "gpu_env.h"
#include "kernels/cpu/matmult.h"
#include "kernels/cuda/gemm_planner.h"

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

// Note [Small GEMM plans]: a small dense product is timed once per shape, at its third product
// (cuBLAS's routine and the cuBLASLt candidates), and its plan reused; whichever wins, the result
// is the CPU's. The shapes include LeNet's affine layers (split-K candidates for k = 3136 and 512)
// and one that is too big to plan (2mnk >= 1e9).
TEST_CASE("gpu ba+* small dense products run through timed plans, kept per shape",
          "[gpu][cublas]") {
  const Format& dense = formats().front();
  const uint64_t seed = test::seed_from("gpu ba+* plans");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    kernels::cuda::GemmPlanner& planner = env.gpu->gemm_planner();
    size_t planned = planner.planned_shapes();
    for (const auto& [m, k, n] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
             {64, 512, 10}, {64, 3136, 512}, {512, 64, 10}, {2, 3, 2}, {33, 65, 17}})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          INFO("m=" << m << " k=" << k << " n=" << n << " ta=" << ta << " tb=" << tb << " "
                    << prec_name(dt));
          const bool fp64 = dt == mem::DType::kFloat64;
          REQUIRE(kernels::cuda::GemmPlanner::applies(m, n, k));
          // The first two products run cuBLAS's routine, the third times the shape.
          for (int call = 1; call <= kernels::cuda::GemmPlanner::kPlanAtCall; ++call) {
            REQUIRE(planner.choice(fp64, ta, tb, m, n, k).empty());
            check_case(env, dt, m, k, n, dense, dense, ta, tb, seed + call + m + 7 * n);
          }
          REQUIRE(planner.planned_shapes() == ++planned);
          const std::string choice = planner.choice(fp64, ta, tb, m, n, k);
          INFO("plan: " << choice);
          REQUIRE((choice == "cublas" || choice.rfind("cublasLt #", 0) == 0));
          // Later products of the shape reuse the plan, on other values.
          check_case(env, dt, m, k, n, dense, dense, ta, tb, seed + 99 + m + 7 * n);
          REQUIRE(planner.planned_shapes() == planned);
          REQUIRE(planner.choice(fp64, ta, tb, m, n, k) == choice);
        }
    // Vectors and big products keep their own routes (gemv / dot; cuBLAS's gemm unplanned).
    REQUIRE_FALSE(kernels::cuda::GemmPlanner::applies(1, 64, 64));
    REQUIRE_FALSE(kernels::cuda::GemmPlanner::applies(64, 1, 64));
    REQUIRE_FALSE(kernels::cuda::GemmPlanner::applies(1024, 1024, 512));
    for (int call = 1; call <= kernels::cuda::GemmPlanner::kPlanAtCall; ++call)
      check_case(env, dt, 1024, 512, 1024, dense, dense, false, false, seed + 5);
    REQUIRE(planner.planned_shapes() == planned);
    REQUIRE(planner.planning_seconds() < kernels::cuda::GemmPlanner::kMaxPlanningSeconds);
  }
}

// Note [Persisted GEMM plans]: a plan timed by one session is taken, untimed, by the next one
// at the shape's first product; an entry that does not hold is timed again and replaced; with
// dmlrt.gpu.gemm.plans.persist off nothing is read or written.
TEST_CASE("gpu ba+* plans persist: a later session takes them at the first product",
          "[gpu][cublas][tuning]") {
  const Format& dense = formats().front();
  test::ScratchDir dir("gemm_plans");
  const std::string file = (dir.path / dmlrt::gpu::kGemmPlanFileName).string();
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    INFO(prec_name(dt));
    const bool fp64 = dt == mem::DType::kFloat64;
    mem::GpuSessionOptions o = GpuEnv::options(dt);
    o.cudnn_cache_dir = dir.path.string();
    o.persist_gemm_plans = true;
    std::string choice;
    {
      GpuEnv first(o);
      for (int call = 1; call <= kernels::cuda::GemmPlanner::kPlanAtCall; ++call)
        check_case(first, dt, 64, 512, 10, dense, dense, false, true, 40 + call);
      REQUIRE(first.gpu->gemm_planner().planned_shapes() == 1);
      choice = first.gpu->gemm_planner().choice(fp64, false, true, 64, 10, 512);
      CHECK(first.gpu->stats().tune_gemm.timed == 1);
      CHECK(first.gpu->stats().tune_gemm.seconds > 0);
    }
    REQUIRE(std::filesystem::exists(file));
    {
      GpuEnv second(o);
      check_case(second, dt, 64, 512, 10, dense, dense, false, true, 50);
      kernels::cuda::GemmPlanner& p = second.gpu->gemm_planner();
      CHECK(p.planned_shapes() == 0);
      CHECK(p.shapes_from_file() == 1);
      CHECK(p.choice(fp64, false, true, 64, 10, 512) == choice);
      CHECK(second.gpu->stats().tune_gemm.from_file == 1);
      CHECK(second.gpu->stats().tune_gemm.timed == 0);
    }
    {
      // Every entry's value replaced by a cuBLASLt choice no heuristic returns (index 7, zero
      // bytes): none holds, so the shape is timed again at its third product and rewritten.
      dmlrt::gpu::TuningEntries entries;
      std::string why;
      const std::string text = test::read_all(file);
      const dmlrt::gpu::TuningFileFormat fmt = [&] {
        dmlrt::gpu::TuningFileFormat x = dmlrt::gpu::gemm_plan_file_format(0);
        x.library_version = std::stoll(text.substr(text.find("cublaslt=") + 9));
        return x;
      }();
      REQUIRE(dmlrt::gpu::parse_tuning_file(text, fmt, &entries, &why));
      dmlrt::gpu::GemmPlanChoice bogus;
      bogus.cublaslt = true;
      bogus.index = 7;
      for (auto& [key, value] : entries) value = bogus.to_string();
      test::write_file(file, dmlrt::gpu::serialize_tuning_file(fmt, entries));
      GpuEnv third(o);
      check_case(third, dt, 64, 512, 10, dense, dense, false, true, 60);
      kernels::cuda::GemmPlanner& p = third.gpu->gemm_planner();
      CHECK(p.shapes_from_file() == 0);
      CHECK(p.choice(fp64, false, true, 64, 10, 512).empty());
      for (int call = 2; call <= kernels::cuda::GemmPlanner::kPlanAtCall; ++call)
        check_case(third, dt, 64, 512, 10, dense, dense, false, true, 60 + call);
      CHECK(p.planned_shapes() == 1);
    }
    {
      GpuEnv fourth(o);
      check_case(fourth, dt, 64, 512, 10, dense, dense, false, true, 70);
      CHECK(fourth.gpu->gemm_planner().shapes_from_file() == 1);  // the rewritten entry holds
    }
    {
      mem::GpuSessionOptions off = o;
      off.persist_gemm_plans = false;
      GpuEnv fifth(off);
      check_case(fifth, dt, 64, 512, 10, dense, dense, false, true, 80);
      CHECK(fifth.gpu->gemm_planner().shapes_from_file() == 0);
      CHECK(fifth.gpu->gemm_planner().choice(fp64, false, true, 64, 10, 512).empty());
    }
  }
}

// With a small cuBLAS workspace, or none (budgets too small for one), the planner times only the
// candidates that fit, and the results stay the CPU's.
TEST_CASE("gpu ba+* plans without a workspace", "[gpu][cublas]") {
  const Format& dense = formats().front();
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv small(dt, /*budget_bytes=*/2 << 20);  // a 128 KiB workspace: bigger needs left out
    GpuEnv none(dt, /*budget_bytes=*/4000);      // 4000 / 16 / 256 * 256 = 0: no workspace
    for (int call = 1; call <= kernels::cuda::GemmPlanner::kPlanAtCall + 1; ++call) {
      check_case(small, dt, 64, 100, 10, dense, dense, false, true, 17 + call);
      check_case(none, dt, 4, 6, 3, dense, dense, true, false, 18 + call);
    }
    REQUIRE(small.gpu->gemm_planner().planned_shapes() == 1);
    REQUIRE(none.gpu->gemm_planner().planned_shapes() == 1);
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
