// The dmlrt command line: reads options and an optional -config file, parses the plan (or
// captures a .dml script's plan with SystemDS, dml_capture.h), prints
// -explain, runs it, prints -stats. Exit status 0 ok, 1 the plan failed (parse or run), 2 a bad
// command line or config (see print_help).
#include <alloca.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>

#include "dmlrt/version.h"
#include "gpu_context/device.h"
#include "gpu_context/error.h"
#include "gpu_context/log.h"
#include "instructions/execution_context.h"
#include "kernels/cpu/parallel.h"
#include "kernels/host_memory.h"
#include "memory/gpu_session.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/dml_capture.h"
#include "runtime/cli/mpi_transport.h"
#include "runtime/config.h"
#include "runtime/explain.h"
#include "runtime/gpu_setup.h"
#include "runtime/interpreter.h"
#include "runtime/io/safe_write.h"
#include "runtime/mpi_world.h"
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
  if (opts.threads > 0) config.num_threads = opts.threads;
  DMLRT_DEBUG("config: precision=" << runtime::precision_name(config.precision)
                                   << " gpu.availableGPUs=" << config.memory.available_gpus
                                   << " gpu.eviction.policy="
                                   << mem::eviction_policy_name(config.memory.policy)
                                   << " gpu.memory.util.factor=" << config.memory.util_factor
                                   << " gpu-mem-budget=" << config.memory.budget_bytes
                                   << " stats.maxWrapLength=" << config.stats_max_wrap_length
                                   << " num.threads=" << config.num_threads);
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
    // Under MPI only rank 0's program output and -stats are shown (Note [MPI ranks]).
    std::ostringstream discarded;
    std::ostream& out = runtime::mpi::rank() == 0 ? std::cout : discarded;
    runtime::Interpreter interp(program, out, opts.stats ? &stats : nullptr);
    inst::RunOptions run_options;
    run_options.seed = opts.seed;
    if (runtime::mpi::active()) {
      // One base seed for every rank, so rand with seed -1 agrees (rank 0 draws it).
      if (run_options.seed < 0)
        run_options.seed = static_cast<int64_t>(std::random_device{}() & 0x7fffffff);
      run_options.seed = runtime::mpi::broadcast(run_options.seed);
    }
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
    if (opts.stats && runtime::mpi::rank() == 0) {
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

// Note [Restart before the libraries start]
// Under an address-space limit OpenBLAS's thread pool may spin forever, or crash, while it starts
// (Note [OpenBLAS under a memory limit]); the CLI restarts with a thread count whose buffers fit.
// The pool starts in OpenBLAS's library constructor, before main: on the 16-core H200 host under
// `ulimit -d` (the binary's footprint + 200 MB) the pool's start-up allocations failed and the
// process died of SIGSEGV before main could restart it. The check therefore runs from the
// executable's .preinit_array, which the dynamic loader calls before any shared library's
// constructor (ELF gABI; glibc's _dl_init). Nothing of the C++ runtime is set up there, and the C
// library's own environment pointer is not yet either (getenv finds nothing, setenv would start an
// empty environment: measured, a restart loop). So it reads the environment the loader passes,
// builds the new one on the stack and calls execve; main prints the message after the restart
// (DMLRT_BLAS_RESTART carries the count).
void restart_for_blas_limit(int /*argc*/, char** argv, char** envp) {
  const int threads = dmlrt::kernels::blas_threads_for_limit(envp);
  if (threads <= 0 || envp == nullptr) return;
  size_t n = 0;
  while (envp[n] != nullptr) ++n;
  // "NAME=<threads>" without stdio (not set up yet either).
  auto assign = [threads](char* buf, const char* name) {
    char* p = buf;
    while (*name != '\0') *p++ = *name++;
    *p++ = '=';
    char digits[12];
    int k = 0;
    for (int t = threads; t > 0; t /= 10) digits[k++] = static_cast<char>('0' + t % 10);
    while (k > 0) *p++ = digits[--k];
    *p = '\0';
  };
  char blas[48], marker[48];
  assign(blas, "OPENBLAS_NUM_THREADS");
  assign(marker, "DMLRT_BLAS_RESTART");
  char** env = static_cast<char**>(alloca((n + 3) * sizeof(char*)));
  for (size_t i = 0; i < n; ++i) env[i] = envp[i];
  env[n] = blas;
  env[n + 1] = marker;
  env[n + 2] = nullptr;
  ::execve("/proc/self/exe", argv, env);  // returns only on failure: go on as we are
}

}  // namespace
}  // namespace dmlrt::cli

__attribute__((section(".preinit_array"), used)) static void (*const dmlrt_preinit)(
    int, char**, char**) = dmlrt::cli::restart_for_blas_limit;

int main(int argc, char** argv) {
  using namespace dmlrt::cli;
  if (const char* restarted = std::getenv("DMLRT_BLAS_RESTART")) {
    DMLRT_INFO("an address-space limit is set: restarting with OPENBLAS_NUM_THREADS=" << restarted
               << " (Note [Restart before the libraries start])");
    ::unsetenv("DMLRT_BLAS_RESTART");
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
  dmlrt::kernels::cpu::set_num_threads(config.num_threads);
  dmlrt::kernels::keep_freed_host_memory();  // Note [Freed host memory is kept]
  // Under mpirun: one rank of the job (Note [MPI ranks]); every rank gets here and finalizes.
  join_mpi_job(&argc, &argv);
  const int rc = run(opts, config);
  // A failure every rank shares ends every rank here; one only some ranks see (a write on rank 0)
  // would leave the others waiting at the next exchange: end the whole job instead.
  if (rc != kExitOk && dmlrt::runtime::mpi::active()) dmlrt::runtime::mpi::abort(rc);
  leave_mpi_job();
  return rc;
}
