// paramserv() (Note [paramserv] in instructions/paramserv_instruction.cpp) on plans SystemDS
// compiled from tests/unit/data/paramserv/*.dml (make_plans.sh): the variants without a SystemDS
// reference (modelAvg, NBATCHES, SBP, seeded DISJOINT_RANDOM, OVERLAP_RESHUFFLE with ASP, uneven
// batch counts under BSP, more workers than rows) train, and BSP results do not depend on the
// thread count; bad parameters and a failing update function give errors naming the instruction,
// the parameter or the worker, epoch and batch. The SystemDS-checked cases are the conformance
// cases tests/conformance/cases/paramserv_*.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "common/plan_run.h"
#include "gpu_context/error.h"
#include "kernels/cpu/parallel.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"

using namespace dmlrt;
using Catch::Matchers::Contains;

namespace {

using Run = test::PlanRun;

Run run_ps(const std::string& name, int threads) {
  return test::run_test_plan("unit/data/paramserv/" + name, threads);
}

}  // namespace

TEST_CASE("paramserv: variants train, BSP results independent of the thread count", "[paramserv]") {
  const std::pair<const char*, const char*> variants[] = {
      {"v_modelavg.plan", "bsp modelAvg: TRUE "},
      {"v_nbatches.plan", "bsp nbatches: TRUE "},
      {"v_sbp.plan", "sbp: TRUE"},
      {"v_random.plan", "random: TRUE, seeded runs agree: TRUE"},
      {"v_overlap_asp.plan", "overlap asp: TRUE"},
      {"v_uneven.plan", "uneven batches: TRUE "},
      {"v_few_rows.plan", "more workers than rows: TRUE"}};
  for (const auto& [plan, expect] : variants) {
    INFO(plan);
    const Run one = run_ps(plan, 1);
    CHECK(one.error.empty());
    CHECK_THAT(one.out, Contains(expect));
    const Run two = run_ps(plan, 2);
    CHECK(two.error.empty());
    // k is given in every call, so the threads change nothing but timing; BSP prints its mse
    const std::string p(plan);
    if (p == "v_modelavg.plan" || p == "v_nbatches.plan" || p == "v_uneven.plan")
      CHECK(two.out == one.out);
    else
      CHECK_THAT(two.out, Contains(expect));
  }
}

TEST_CASE("paramserv: -stats counts the calls, workers and server model updates", "[paramserv]") {
  // k=2 parts of 102 and 101 rows, batches of 16 -> 7 each, nbatches=2 -> 4 pushes per epoch
  // per worker, 4 epochs: 16 BSP rounds, one agg call each.
  const Run r = run_ps("v_nbatches.plan", 2);
  REQUIRE(r.error.empty());
  CHECK_THAT(r.stats, Contains("Paramserv (calls / workers / model updates):\t1 / 2 / 16; time: "));
}

TEST_CASE("paramserv: bad parameters and failing workers name the instruction and the cause",
          "[paramserv]") {
  const std::pair<const char*, const char*> errors[] = {
      {"err_utype.plan", "paramserv: utype='HOGWILD' is not supported (BSP, ASP, SBP)"},
      {"err_epochs.plan", "paramserv: epochs=0 must be positive"},
      {"err_rows.plan",
       "paramserv: features has 40 rows and labels 39; they must have one row per example"},
      {"err_backups.plan",
       "paramserv: invalid number of backup workers (with #workers=2): #backup-workers=2"},
      {"err_agg_inputs.plan",
       "paramserv: the function .defaultNS::agg2 needs an input named "
       "'gradients'"},
      {"err_upd_fails.plan", "paramserv: worker 2 of 2, epoch 1, batch 2: "}};
  for (const auto& [plan, message] : errors) {
    INFO(plan);
    const Run r = run_ps(plan, 2);
    CHECK_THAT(r.error, Contains(message));
    CHECK_THAT(r.error, Contains("instruction 'CP°paramserv°"));
  }
  // the failing worker's own error, not the "another worker failed" of the one it stopped
  const Run r = run_ps("err_upd_fails.plan", 2);
  CHECK_THAT(r.error, Contains("stop: features too large in this batch"));
  CHECK_THAT(r.error, !Contains("another worker failed"));
}
