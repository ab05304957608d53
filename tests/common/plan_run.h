// Runs a plan file of the test data through the interpreter with a given thread count, for the
// tests of parallel programs (PARFOR, paramserv): its output, the message of its error ("" when
// it ran) and its -stats text (top 3).
#pragma once

#include <sstream>
#include <string>

#include "common/test_paths.h"
#include "gpu_context/error.h"
#include "kernels/cpu/parallel.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"

namespace dmlrt::test {

struct PlanRun {
  std::string out, error, stats;
};

// `relative` below the test data folder, e.g. "unit/data/parfor/results.plan".
inline PlanRun run_test_plan(const std::string& relative, int threads) {
  const int saved = kernels::cpu::num_threads();
  kernels::cpu::set_num_threads(threads);
  const runtime::Program p = runtime::parse_plan_file(test_data_dir() + "/" + relative);
  std::ostringstream out, stats_text;
  runtime::Statistics stats;
  runtime::Interpreter interp(p, out, &stats);
  inst::ExecutionContext ec(interp, {});
  PlanRun r;
  try {
    interp.run(ec);
  } catch (const Error& e) {
    r.error = e.what();
  }
  kernels::cpu::set_num_threads(saved);
  r.out = out.str();
  stats.print(stats_text, 3);
  r.stats = stats_text.str();
  return r;
}

}  // namespace dmlrt::test
