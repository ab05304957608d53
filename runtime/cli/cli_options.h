// The dmlrt command line: options in SystemDS's single-dash style (-f, -stats [n], -explain
// [runtime|raw], -args ..., -nvargs k=v ..., -gpu [force], -config file.xml), parsed with
// Boost.Program_options after a normalisation pass that resolves the optional arguments.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/config.h"
#include "runtime/plan_parser.h"

namespace dmlrt::cli {

// A bad command line; main() prints it and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class GpuFlag { kOff, kOn, kForce };

struct CliOptions {
  std::string plan_file;
  runtime::PlanArgs args;
  bool stats = false;
  int stats_top_n = 10;
  bool explain = false;
  bool explain_raw = false;  // -explain raw: the lossless plan text
  std::string config_file;
  std::optional<runtime::FloatPrecision> precision;
  int64_t seed = -1;
  int threads = -1;  // -threads n: CPU threads (overrides sysds.num.threads); -1 = not given
  GpuFlag gpu = GpuFlag::kOff;
  long long gpu_mem_budget = -1;  // bytes; -1 = from sysds.gpu.memory.util.factor
  bool help = false;
  bool version = false;
};

// Parses argv[1..argc). Throws UsageError with a message for the user.
CliOptions parse_command_line(int argc, const char* const argv[]);

// The -help text: usage, option groups, exit codes and environment variables.
void print_help(std::ostream& os);

// "4096", "64M", "2GiB" -> bytes (binary multiples). Throws UsageError otherwise.
long long parse_byte_size(const std::string& text, const std::string& option);

}  // namespace dmlrt::cli
