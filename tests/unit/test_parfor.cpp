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

#include "common/plan_run.h"
#include "gpu_context/error.h"
#include "kernels/cpu/parallel.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"

using namespace dmlrt;
using Catch::Matchers::Contains;

namespace {

using Run = test::PlanRun;

Run run_plan(const std::string& name, int threads) {
  return test::run_test_plan("unit/data/parfor/" + name, threads);
}

}  // namespace

TEST_CASE("parfor: results, prints and body variables as the loop in order", "[parfor]") {
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
    // Four PARFORs in parallel (200, 7, 4 and the function's 7 iterations), one task per
    // worker; the nested one runs in order inside its worker.
    const std::string workers = std::to_string(std::min(threads, 200) +
                                               2 * std::min(threads, 7) + std::min(threads, 4));
    CHECK_THAT(r.stats,
               Contains("ParFor (loops / workers / tasks / iterations):\t4 / " + workers + " / " +
                        workers + " / 218;"));
  }
}

TEST_CASE("parfor: the error of the lowest failing iteration, after the output before it",
          "[parfor]") {
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

TEST_CASE("parfor: task partitioners cut the iterations as SystemDS's do", "[parfor]") {
  using P = runtime::ParforParams::Partitioner;
  auto cut = [](P partitioner, int64_t n, int k, int64_t task_size = -1) {
    runtime::ParforParams p;
    p.partitioner = partitioner;
    p.task_size = task_size;
    std::vector<int64_t> sizes;
    int64_t next = 0;
    for (const auto& [first, last] : runtime::parfor_tasks(p, n, k)) {
      CHECK(first == next);  // in order, no gaps, no overlaps
      next = last;
      sizes.push_back(last - first);
    }
    CHECK(next == n);
    return sizes;
  };
  using V = std::vector<int64_t>;
  CHECK(cut(P::kUnspecified, 23, 3) == V{7, 8, 8});
  CHECK(cut(P::kFixed, 23, 4, 5) == V{5, 5, 5, 5, 3});
  CHECK(cut(P::kNaive, 3, 2) == V{1, 1, 1});
  CHECK(cut(P::kStatic, 23, 3) == V{8, 8, 7});
  CHECK(cut(P::kFactoring, 23, 3) == V{4, 4, 4, 2, 2, 2, 1, 1, 1, 1, 1});
  CHECK(cut(P::kFactoringCmax, 23, 6, 2) ==
        V{2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(cut(P::kFactoringCmin, 10, 2, 2) == V{3, 3, 2, 2});
  CHECK(cut(P::kFixed, 5, 2, 0) == V{1, 1, 1, 1, 1});  // tasksize <= 0: one iteration each
  CHECK(cut(P::kUnspecified, 1, 1) == V{1});
}

TEST_CASE("parfor: opt=NONE and CONSTRAINED parameters are honoured, results as in order",
          "[parfor]") {
  const Run one = run_plan("params.plan", 1);
  REQUIRE(one.error.empty());
  CHECK(one.out ==
        "factoring 5\nfactoring 10\nfactoring 15\nfactoring 20\n"
        "fixed 5\nfixed 10\nfixed 15\nfixed 20\n"
        "sums 4324.0 2576.0 -276.0 552.0 828.0 1104.0\n");
  for (int threads : {1, 2, 8}) {
    INFO(threads << " threads");
    const Run r = run_plan("params.plan", threads);
    CHECK(r.error.empty());
    CHECK(r.out == one.out);
    // `par` decides the workers whatever the thread count: 3 + 4 + 2 + 5 + 3 + 6 workers and
    // 11 + 5 + 23 + 5 + 3 + 17 tasks (FACTORING, FIXED 5, NAIVE, dmlrt's cut, STATIC,
    // FACTORING_CMAX 2).
    CHECK_THAT(r.stats,
               Contains("ParFor (loops / workers / tasks / iterations):\t6 / 23 / 64 / 138;"));
  }
}

TEST_CASE("parfor: bad parameters in a PARFOR header name the line and the value", "[parfor]") {
  auto error_of = [](const std::string& header) {
    const std::string plan = "PROGRAM ( size CP/SP = 0/0 )\n--MAIN PROGRAM\n----PARFOR (lines 1-3) " +
                             header +
                             "\n------FROM\n------CP°assignvar°1·SCALAR·INT64·true°__pred·SCALAR·INT64\n"
                             "------TO\n------CP°assignvar°4·SCALAR·INT64·true°__pred·SCALAR·INT64\n"
                             "------INCR\n------GENERIC (lines 2-2) [recompile=false]\n";
    try {
      runtime::parse_plan(plan, "bad.plan");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(error_of("[iter=i, opt=NONE, taskpartitioner=GUIDED]"),
             Contains("PARFOR parameter taskpartitioner=GUIDED is not one of SystemDS's values "
                      "(UNSPECIFIED, FIXED, NAIVE, STATIC, FACTORING, FACTORING_CMIN, "
                      "FACTORING_CMAX)"));
  CHECK_THAT(error_of("[iter=i, opt=NONE, taskpartitioner=GUIDED]"), Contains("bad.plan:3: "));
  CHECK_THAT(error_of("[iter=i, opt=NONE, par=four]"),
             Contains("PARFOR parameter par=four is not an integer"));
  CHECK_THAT(error_of("[iter=i, opt=FAST]"), Contains("PARFOR parameter opt=FAST is not one of"));
  CHECK_THAT(error_of("[iter=i, threads=4]"), Contains("unknown PARFOR parameter 'threads'"));
  CHECK(error_of("[iter=i, opt=NONE, par=2, mode=REMOTE_SPARK, resultmerge=LOCAL_FILE]").empty());
}
