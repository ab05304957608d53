// PARFOR on worker threads (Note [Parallel PARFOR] in runtime/interpreter.cpp): plans SystemDS
// compiled from tests/unit/data/parfor/*.dml (make_plans.sh) run with 1, 2, 3 and 8 threads and
// give the output of the loop run in order: disjoint left-indexed results, an accumulator (+=),
// results that shared one object before the loop, prints in order, a variable the body creates, a
// nested PARFOR, one inside a function; errors are those of the lowest failing iteration, after
// the output before it; -stats counts the loops, workers and iterations.
#include <catch2/catch.hpp>
#include <algorithm>
#include <sstream>
#include <string>

#include "common/test_paths.h"
#include "gpu_context/error.h"
#include "kernels/cpu/parallel.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"

using namespace dmlrt;
using Catch::Matchers::Contains;

namespace {

struct ThreadCountGuard {
  int saved = kernels::cpu::num_threads();
  ~ThreadCountGuard() { kernels::cpu::set_num_threads(saved); }
};

struct Run {
  std::string out, error, stats;
};

Run run_plan(const std::string& name, int threads) {
  kernels::cpu::set_num_threads(threads);
  const runtime::Program p =
      runtime::parse_plan_file(test::test_data_dir() + "/unit/data/parfor/" + name);
  std::ostringstream out, stats_text;
  runtime::Statistics stats;
  runtime::Interpreter interp(p, out, &stats);
  inst::ExecutionContext ec(interp, {});
  Run r;
  try {
    interp.run(ec);
  } catch (const Error& e) {
    r.error = e.what();
  }
  r.out = out.str();
  stats.print(stats_text, 3);
  r.stats = stats_text.str();
  return r;
}

}  // namespace

TEST_CASE("parfor: results, prints and body variables as the loop in order", "[parfor]") {
  ThreadCountGuard guard;
  const Run one = run_plan("results.plan", 1);
  REQUIRE(one.error.empty());
  CHECK_THAT(one.out, Contains("row 50\nrow 100\nrow 150\nrow 200\n"));
  CHECK_THAT(one.out, Contains("S matches: TRUE"));
  CHECK_THAT(one.out, Contains("2.000 4.000 6.000 8.000 10.000 12.000 14.000"));
  CHECK_THAT(one.out, Contains("\n1.000 1.000 1.000 1.000 1.000 1.000 1.000"));  // B kept A's
  CHECK_THAT(one.out, Contains("41.000 42.000 43.000 44.000 45.000"));
  CHECK_THAT(one.out, Contains("Q matches: TRUE"));
  CHECK_THAT(one.out, Contains("last = 2000, early = 3"));
  CHECK_THAT(one.stats, !Contains("ParFor"));  // one thread: every loop in order
  for (int threads : {2, 3, 8}) {
    INFO(threads << " threads");
    const Run r = run_plan("results.plan", threads);
    CHECK(r.error.empty());
    CHECK(r.out == one.out);
    // Four PARFORs in parallel (200, 7, 4 and the function's 7 iterations); the nested one runs
    // in order inside its worker.
    CHECK_THAT(r.stats,
               Contains("ParFor (loops / workers / iterations):\t4 / " +
                        std::to_string(std::min(threads, 200) + 2 * std::min(threads, 7) +
                                       std::min(threads, 4)) +
                        " / 218;"));
  }
}

TEST_CASE("parfor: the error of the lowest failing iteration, after the output before it",
          "[parfor]") {
  ThreadCountGuard guard;
  const Run one = run_plan("error.plan", 1);
  REQUIRE_THAT(one.error, Contains("leftIndex: rows 104:104 out of bounds for a 10x1 matrix"));
  CHECK(one.out == "it 1\nit 2\nit 3\nit 4\n");
  for (int threads : {2, 3, 8}) {
    INFO(threads << " threads");
    const Run r = run_plan("error.plan", threads);
    CHECK(r.error == one.error);
    CHECK(r.out == one.out);
  }
}
