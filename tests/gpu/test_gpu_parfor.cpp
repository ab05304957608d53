// PARFOR on the GPU (Note [PARFOR on GPUs] in runtime/interpreter.cpp): the plans of
// tests/unit/data/parfor run with -gpu (every operator that can runs on the device) with 1, 2 and 3
// workers sharing the one GPU, each on a session of its own, and give the output of the CPU loop
// run in order: disjoint left-indexed results, an accumulator (+=), prints in order, the honoured
// parfor parameters, the error of the lowest failing iteration; -stats counts the workers.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "common/test_paths.h"
#include "gpu_context/error.h"
#include "gpu_env.h"
#include "kernels/cpu/parallel.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"

namespace dmlrt::test::gpu {
namespace {

struct Run {
  std::string out, error, stats;
};

// `plan` of tests/unit/data/parfor; workers_per_gpu 0: on the CPU with one thread (in order).
Run run_parfor_plan(const std::string& plan, int workers_per_gpu, mem::DType dtype) {
  const runtime::Program p =
      runtime::parse_plan_file(test::test_data_dir() + "/unit/data/parfor/" + plan);
  std::ostringstream out, stats_text;
  runtime::Statistics stats;
  runtime::Interpreter interp(p, out, &stats);
  inst::RunOptions ro;
  const int saved_threads = kernels::cpu::num_threads();
  if (workers_per_gpu > 0) {
    mem::GpuSessionOptions o = GpuEnv::options(dtype);
    o.parfor_workers_per_gpu = workers_per_gpu;
    o.sync_each_instruction = true;
    ro.gpu = std::make_shared<mem::GpuSession>(o, 0);
    ro.gpu->set_timing(true);
    ro.gpu_mode = inst::GpuMode::kOn;
  } else {
    kernels::cpu::set_num_threads(1);
  }
  Run r;
  {
    inst::ExecutionContext ec(interp, ro);
    try {
      interp.run(ec);
    } catch (const Error& e) {
      r.error = e.what();
    }
  }
  kernels::cpu::set_num_threads(saved_threads);
  if (ro.gpu) stats.set_gpu_stats(&ro.gpu->stats());
  r.out = out.str();
  stats.print(stats_text, 40);
  r.stats = stats_text.str();
  return r;
}

}  // namespace

TEST_CASE("gpu parfor: workers sharing the GPU give the loop's results", "[gpu][parfor]") {
  for (const char* plan : {"results.plan", "params.plan"}) {
    const Run cpu = run_parfor_plan(plan, 0, mem::DType::kFloat64);
    REQUIRE(cpu.error.empty());
    for (int per_gpu : {1, 2, 3}) {
      INFO(plan << ", " << per_gpu << " workers per GPU");
      const Run g = run_parfor_plan(plan, per_gpu, mem::DType::kFloat64);
      INFO(g.error);
      CHECK(g.error.empty());
      CHECK(g.out == cpu.out);
      CHECK_THAT(g.stats, Catch::Matchers::Contains("gpu_"));  // the bodies ran on the device
      if (std::string(plan) == "results.plan") {
        // 200, 7, 4 and 7 iterations; dmlrt decides: per_gpu workers each (one GPU), or in order
        if (per_gpu == 1)
          CHECK_THAT(g.stats, !Catch::Matchers::Contains("ParFor"));
        else
          CHECK_THAT(g.stats, Catch::Matchers::Contains(
                                  "ParFor (loops / workers / tasks / iterations):\t4 / " +
                                  std::to_string(4 * per_gpu) + " / " +
                                  std::to_string(4 * per_gpu) + " / 218;"));
      } else {
        // opt=NONE / CONSTRAINED: `par` decides, as on the CPU
        CHECK_THAT(g.stats,
                   Catch::Matchers::Contains(
                       "ParFor (loops / workers / tasks / iterations):\t6 / 23 / 64 / 138;"));
      }
    }
  }
}

TEST_CASE("gpu parfor: FP32 workers and the error of the lowest failing iteration",
          "[gpu][parfor]") {
  const Run cpu = run_parfor_plan("error.plan", 0, mem::DType::kFloat64);
  REQUIRE(!cpu.error.empty());
  const Run g = run_parfor_plan("error.plan", 3, mem::DType::kFloat64);
  CHECK(g.error == cpu.error);
  CHECK(g.out == cpu.out);
  const Run f = run_parfor_plan("params.plan", 2, mem::DType::kFloat32);
  INFO(f.error);
  CHECK(f.error.empty());
  CHECK_THAT(f.out, Catch::Matchers::Contains("sums 4324.0 2576.0 -276.0 552.0 828.0 1104.0"));
}

}  // namespace dmlrt::test::gpu
