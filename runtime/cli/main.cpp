// The dmlrt command line: reads options and an optional -config file, parses the plan (or
// captures a .dml script's plan with SystemDS, dml_capture.h), prints
// -explain, runs it, prints -stats. Exit status 0 ok, 1 the plan failed (parse or run), 2 a bad
// command line or config (see print_help).
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "dmlrt/version.h"
#include "gpu_context/device.h"
#include "gpu_context/error.h"
#include "gpu_context/log.h"
#include "instructions/execution_context.h"
#include "kernels/host_memory.h"
#include "memory/gpu_session.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/dml_capture.h"
#include "runtime/config.h"
#include "runtime/explain.h"
#include "runtime/gpu_setup.h"
#include "runtime/interpreter.h"
#include "runtime/io/safe_write.h"
#include "runtime/plan_parser.h"
#include "runtime/plan_rewrites.h"
#include "runtime/stats.h"

namespace dmlrt::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

int usage_error(const std::string& msg) {
  std::cerr << "dmlrt: error: " << msg << "\nTry 'dmlrt -help' for more information.\n";
  return kExitUsage;
}

void print_version(std::ostream& os) {
  os << "dmlrt " << dmlrt::version() << "\n"
     << "backend: CPU" << (gpu::built_with_cuda() ? " + GPU (CUDA)" : "") << "\n"
     << "device: " << gpu::device_summary() << "\n";
}

// Reads -config and applies the command-line overrides. Throws dmlrt::Error naming file and key.
runtime::RuntimeConfig effective_config(const CliOptions& opts) {
  runtime::RuntimeConfig config;
  if (!opts.config_file.empty()) {
    runtime::ConfigMessages messages;
    runtime::read_config_file(opts.config_file, config, &messages);
    for (const std::string& w : messages.warnings) DMLRT_WARN(w);
    for (const std::string& n : messages.notes) DMLRT_INFO(n);
  }
  if (opts.precision) config.precision = *opts.precision;
  if (opts.gpu_mem_budget > 0) config.memory.budget_bytes = opts.gpu_mem_budget;
  DMLRT_DEBUG("config: precision=" << runtime::precision_name(config.precision)
                                   << " gpu.availableGPUs=" << config.memory.available_gpus
                                   << " gpu.eviction.policy="
                                   << mem::eviction_policy_name(config.memory.policy)
                                   << " gpu.memory.util.factor=" << config.memory.util_factor
                                   << " gpu-mem-budget=" << config.memory.budget_bytes
                                   << " stats.maxWrapLength=" << config.stats_max_wrap_length);
  return config;
}

int run(const CliOptions& opts, const runtime::RuntimeConfig& config) {
  using Clock = std::chrono::steady_clock;
  runtime::Statistics stats;
  stats.set_max_wrap_length(config.stats_max_wrap_length);
  try {
    const auto t0 = Clock::now();
    // A .dml script is compiled by SystemDS first (see Note [DML capture cache]).
    runtime::Program program = is_dml_script(opts.plan_file)
                                   ? load_dml_program(opts.plan_file, opts.args, opts.config_file)
                                   : runtime::parse_plan_file(opts.plan_file, opts.args);
    runtime::apply_plan_rewrites(program, config);
    const auto t1 = Clock::now();
    if (opts.explain) {
      runtime::print_explain(program, std::cout, opts.explain_raw);
      std::cout.flush();
      // Shape errors the plan shows without running: reported before anything executes.
      const std::vector<std::string> errors = runtime::check_plan_shapes(program);
      if (!errors.empty()) {
        for (const std::string& e : errors) std::cerr << "dmlrt: error: " << e << "\n";
        return kExitFailed;
      }
    }
    runtime::Interpreter interp(program, std::cout, opts.stats ? &stats : nullptr);
    inst::RunOptions run_options;
    run_options.seed = opts.seed;
    // The GPU session, when -gpu, -gpu force or GPU lines ask for it (null: all on the CPU, after
    // one warning). Created before the execution context, so it outlives every device copy.
    run_options.gpu_mode = opts.gpu == GpuFlag::kForce ? inst::GpuMode::kForce
                           : opts.gpu == GpuFlag::kOn  ? inst::GpuMode::kOn
                                                       : inst::GpuMode::kOff;
    run_options.gpu = runtime::open_gpu_for_run(program, run_options.gpu_mode, config,
                                                opts.gpu_mem_budget, opts.stats);
    if (run_options.gpu) stats.set_gpu_stats(mem::stats_of(run_options.gpu.get()));
    inst::ExecutionContext ec(interp, run_options);
    interp.run(ec);  // on a stack of its own, as the API runs (Note [Interpreter stack])
    const auto t2 = Clock::now();
    if (opts.stats) {
      stats.set_parse_seconds(std::chrono::duration<double>(t1 - t0).count());
      stats.set_execute_seconds(std::chrono::duration<double>(t2 - t1).count());
      stats.print(std::cout, opts.stats_top_n);
    }
    std::cout.flush();
  } catch (const std::bad_alloc&) {
    std::cout.flush();
    std::cerr << "dmlrt: error: out of host memory\n";
    return kExitFailed;
  } catch (const std::exception& e) {
    std::cout.flush();  // keep the program's output ahead of the message
    std::cerr << "dmlrt: error: " << e.what() << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace
}  // namespace dmlrt::cli

int main(int argc, char** argv) {
  using namespace dmlrt::cli;
  // Under an address-space limit OpenBLAS's thread pool may spin forever at start-up; restart
  // with a thread count whose buffers fit (Note [OpenBLAS under a memory limit]).
  if (const int threads = dmlrt::kernels::blas_threads_for_limit(); threads > 0) {
    DMLRT_INFO("an address-space limit is set: restarting with OPENBLAS_NUM_THREADS=" << threads);
    ::setenv("OPENBLAS_NUM_THREADS", std::to_string(threads).c_str(), 1);
    ::execv("/proc/self/exe", argv);  // returns only on failure: go on as we are
  }
  // SIGINT/SIGTERM/SIGHUP remove the temporaries of writes in progress, then end the process as
  // the signal would (see Note [Safe writes]).
  dmlrt::io::install_cleanup_handlers();
  CliOptions opts;
  try {
    opts = parse_command_line(argc, argv);
  } catch (const UsageError& e) {
    return usage_error(e.what());
  }
  if (opts.help) {
    print_help(std::cout);
    return kExitOk;
  }
  if (opts.version) {
    print_version(std::cout);
    return kExitOk;
  }
  if (opts.plan_file.empty()) return usage_error("no plan file given (use -f <plan>)");
  dmlrt::runtime::RuntimeConfig config;
  try {
    config = effective_config(opts);
  } catch (const std::exception& e) {
    return usage_error(e.what());
  }
  return run(opts, config);
}
