// The dmlrt command line, run as a process (DMLRT_BINARY) on the fixture plans in data/cli/:
// stdout, stderr and exit codes (0 ok, 1 the plan failed, 2 bad command line or config).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_files.h"
#include "common/test_paths.h"
#include "dmlrt/version.h"
#include "gpu_context/device.h"

namespace {

using dmlrt::test::read_all;
using dmlrt::test::write_file;

namespace fs = std::filesystem;

const std::string kDataDir = dmlrt::test::test_data_dir() + "/unit/data/cli";

struct CliRun {
  int code = -1;
  std::string out;
  std::string err;
};

fs::path scratch_dir() {
  static std::atomic<int> counter{0};
  const fs::path dir = fs::temp_directory_path() / ("dmlrt_cli_test_" + std::to_string(::getpid()) +
                                                    "_" + std::to_string(counter++));
  fs::create_directories(dir);
  return dir;
}

// Runs `dmlrt <args>` in the fixture directory (so messages name files as given) with
// DMLRT_LOG_LEVEL set to `log_level`.
CliRun run_dmlrt(const std::string& args, const std::string& log_level = "warn") {
  const fs::path dir = scratch_dir();
  const std::string cmd = "cd '" + kDataDir + "' && DMLRT_LOG_LEVEL=" + log_level + " '" +
                          dmlrt::test::dmlrt_binary() + "' " + args + " > '" +
                          (dir / "out").string() + "' 2> '" + (dir / "err").string() + "'";
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_all(dir / "out");
  r.err = read_all(dir / "err");
  fs::remove_all(dir);
  return r;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// The heavy-hitter rows after the "Heavy hitter instructions:" line and its header.
std::vector<std::string> heavy_hitter_rows(const std::string& out) {
  const std::vector<std::string> lines = lines_of(out);
  std::vector<std::string> rows;
  bool in_table = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == "Heavy hitter instructions:") {
      REQUIRE(i + 1 < lines.size());
      CHECK(std::regex_match(lines[i + 1], std::regex(R"( +# +Instruction +Time\(s\) +Count)")));
      in_table = true;
      ++i;
      continue;
    }
    if (in_table) rows.push_back(lines[i]);
  }
  REQUIRE(in_table);
  return rows;
}

}  // namespace

TEST_CASE("cli: a plan runs and prints its output", "[cli]") {
  const CliRun r = run_dmlrt("-f sum.plan");
  CHECK(r.code == 0);
  CHECK(r.out == "5\ndone\n");
  CHECK(r.err.empty());

  SECTION("the plan may be given as the first argument") {
    const CliRun p = run_dmlrt("sum.plan");
    CHECK(p.code == 0);
    CHECK(p.out == "5\ndone\n");
  }
  SECTION("options take two dashes too") {
    const CliRun p = run_dmlrt("--f sum.plan --seed 7");
    CHECK(p.code == 0);
    CHECK(p.out == "5\ndone\n");
  }
}

TEST_CASE("cli: -stats prints SystemDS's statistics layout after the output", "[cli]") {
  for (const std::string args : {"-stats -f sum.plan", "-f sum.plan -stats", "sum.plan -stats"}) {
    INFO(args);
    const CliRun r = run_dmlrt(args);
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    const std::vector<std::string> lines = lines_of(r.out);
    REQUIRE(lines.size() >= 6);
    CHECK(lines[0] == "5");
    CHECK(lines[1] == "done");
    CHECK(lines[2] == "SystemDS Statistics:");
    CHECK(std::regex_match(lines[3], std::regex(R"(Total elapsed time:\s+\d+\.\d{3} sec\.)")));
    CHECK(std::regex_match(lines[4], std::regex(R"(Total compilation time:\s+\d+\.\d{3} sec\.)")));
    CHECK(std::regex_match(lines[5], std::regex(R"(Total execution time:\s+\d+\.\d{3} sec\.)")));
    const std::vector<std::string> rows = heavy_hitter_rows(r.out);
    // print, + and rmvar: three distinct opcodes, print executed twice.
    REQUIRE(rows.size() == 3);
    std::smatch m;
    const std::regex row(R"( +(\d+) +(\S+) +\d+\.\d{3} +(\d+))");
    bool saw_print = false;
    for (size_t i = 0; i < rows.size(); ++i) {
      REQUIRE(std::regex_match(rows[i], m, row));
      CHECK(m[1] == std::to_string(i + 1));
      if (m[2] == "print") {
        saw_print = true;
        CHECK(m[3] == "2");
      }
    }
    CHECK(saw_print);
  }

  SECTION("-stats n keeps the top n rows; the count is optional and may follow with =") {
    for (const std::string args :
         {"-stats 1 -f sum.plan", "-f sum.plan -stats=1", "-stats 1 sum.plan"}) {
      INFO(args);
      const CliRun r = run_dmlrt(args);
      REQUIRE(r.code == 0);
      CHECK(r.out.rfind("5\ndone\nSystemDS Statistics:\n", 0) == 0);
      CHECK(heavy_hitter_rows(r.out).size() == 1);
    }
  }
  SECTION("sysds.stats.maxWrapLength wraps long instruction names") {
    const CliRun r = run_dmlrt("-f sum.plan -stats -config wrap.xml");
    REQUIRE(r.code == 0);
    // print and rmvar take two lines each at 3 characters, + one.
    const std::vector<std::string> rows = heavy_hitter_rows(r.out);
    REQUIRE(rows.size() == 5);
    std::string names;
    for (const std::string& row : rows) {
      std::smatch m;
      if (std::regex_match(row, m, std::regex(R"( +\d+  (\S{1,3}) +\d+\.\d{3} +\d+)"))) {
        names += " " + m[1].str();
      } else {
        REQUIRE(std::regex_match(row, m, std::regex(R"( +  (\S{1,3}))")));
        names += m[1].str();
      }
    }
    std::vector<std::string> sorted;
    std::istringstream in(names);
    for (std::string w; in >> w;) sorted.push_back(w);
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == std::vector<std::string>{"+", "print", "rmvar"});
  }
  SECTION("a count that is not a number is a usage error") {
    const CliRun r = run_dmlrt("-f sum.plan -stats=many");
    CHECK(r.code == 2);
    CHECK_THAT(r.err,
               Catch::Contains("option '-stats': expected a count of heavy hitters, got 'many'"));
    CHECK(r.out.empty());
  }
}

TEST_CASE("cli: -explain prints the plan before running it", "[cli]") {
  const std::string explain_line =
      "------CP + 2.SCALAR.INT64.true 3.SCALAR.INT64.true _Var0.SCALAR.INT64\n";
  const std::string raw_line =
      "------CP°+°2·SCALAR·INT64·true°3·SCALAR·INT64·true°_Var0·SCALAR·INT64\n";

  SECTION("runtime is the default level") {
    for (const std::string args :
         {"-explain -f sum.plan", "-f sum.plan -explain", "-explain runtime sum.plan"}) {
      INFO(args);
      const CliRun r = run_dmlrt(args);
      REQUIRE(r.code == 0);
      CHECK(r.err.empty());
      CHECK(r.out.rfind("PROGRAM\n--MAIN PROGRAM\n----GENERIC", 0) == 0);
      const size_t at = r.out.find(explain_line);
      REQUIRE(at != std::string::npos);
      CHECK(r.out.find(raw_line) == std::string::npos);
      // The program's output follows the plan.
      CHECK(r.out.size() > 11);
      CHECK(r.out.substr(r.out.size() - 7) == "5\ndone\n");
      CHECK(r.out.find("5\ndone\n") > at);
    }
  }
  SECTION("raw prints the lossless plan text") {
    const CliRun r = run_dmlrt("-f sum.plan -explain raw");
    REQUIRE(r.code == 0);
    CHECK(r.out.find(raw_line) != std::string::npos);
    CHECK(r.out.find(explain_line) == std::string::npos);
  }
  SECTION("the printed plan runs again with the same output") {
    for (const std::string level : {"runtime", "raw"}) {
      INFO(level);
      const CliRun r = run_dmlrt("-f sum.plan -explain " + level);
      REQUIRE(r.code == 0);
      const fs::path dir = scratch_dir();
      const fs::path plan = dir / "again.plan";
      std::ofstream(plan) << r.out.substr(0, r.out.size() - std::string("5\ndone\n").size());
      const CliRun again = run_dmlrt("-f '" + plan.string() + "'");
      CHECK(again.code == 0);
      CHECK(again.out == "5\ndone\n");
      fs::remove_all(dir);
    }
  }
  SECTION("a plan's shape errors are reported before anything runs") {
    // C (3x4) %*% D (5x2): the createvar sizes show the mismatch without running; the print in
    // front of it never runs. Unknown sizes (E) pass.
    const fs::path dir = scratch_dir();
    const std::string mat = "·MATRIX·FP64";
    const auto createvar = [](const std::string& name, const std::string& rows,
                              const std::string& cols) {
      return "------CP°createvar°" + name + "°scratch/" + name + "°true°MATRIX°binary°" + rows +
             "°" + cols + "°1000°-1°copy\n";
    };
    write_file(dir / "bad.plan",
               "PROGRAM\n--MAIN PROGRAM\n----GENERIC (lines 1-3) [recompile=false]\n"
               "------CP°print°before·SCALAR·STRING·true°_Var0·SCALAR·STRING\n" +
                   createvar("C", "3", "4") + "------CP°rand°3°4°1000°1°1°1.0°7°uniform°1.0°8°C" +
                   mat + "\n" + createvar("D", "5", "2") +
                   "------CP°rand°5°2°1000°1°1°1.0°7°uniform°1.0°8°D" + mat + "\n" +
                   createvar("E", "-1", "-1") + "------CP°+°D" + mat + "°D" + mat + "°E" + mat +
                   "\n" + createvar("F", "3", "2") + "------CP°ba+*°C" + mat + "°D" + mat + "°F" +
                   mat + "°8\n");
    const CliRun r = run_dmlrt("-explain -f '" + (dir / "bad.plan").string() + "'");
    CHECK(r.code == 1);
    CHECK(r.out.find("print before") != std::string::npos);  // printed as plan text,
    CHECK(r.out.find("\nbefore\n") == std::string::npos);   // never run
    CHECK_THAT(r.err, Catch::StartsWith("dmlrt: error: " + (dir / "bad.plan").string() + ":12: "));
    CHECK_THAT(r.err, Catch::Contains("ba+*: inner dimensions differ: 3x4 %*% 5x2"));
    CHECK(count_of(r.err, "\n") == 1);
    // Without -explain the same plan fails when it gets there, after the print.
    const CliRun run = run_dmlrt("-f '" + (dir / "bad.plan").string() + "'");
    CHECK(run.code == 1);
    CHECK(run.out == "before\n");
    CHECK_THAT(run.err, Catch::Contains("ba+*"));
    fs::remove_all(dir);
  }
  SECTION("SystemDS's compiler levels are rejected") {
    const CliRun r = run_dmlrt("-f sum.plan -explain hops");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("option '-explain': level 'hops' is not supported"));
  }
}

TEST_CASE("cli: -args and -nvargs substitute $N and $name", "[cli]") {
  SECTION("-args: values may look like negative numbers") {
    const CliRun r = run_dmlrt("-f positional_args.plan -args 3 -4 hi");
    CHECK(r.code == 0);
    CHECK(r.out == "-1\nhi\n");
    CHECK(r.err.empty());
  }
  SECTION("-args before other options ends at the next option") {
    const CliRun r = run_dmlrt("-args 10 20 ok -f positional_args.plan -stats 1");
    CHECK(r.code == 0);
    CHECK(r.out.rfind("30\nok\nSystemDS Statistics:\n", 0) == 0);
  }
  SECTION("-nvargs") {
    const CliRun r = run_dmlrt("-f named_args.plan -nvargs x=1.5 y=2 msg=hello");
    CHECK(r.code == 0);
    CHECK(r.out == "3.0\nhello\n");
  }
  SECTION("-args and -nvargs exclude each other") {
    const CliRun r = run_dmlrt("-f named_args.plan -args 1 -nvargs x=1");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("-args and -nvargs cannot be used together"));
  }
  SECTION("-nvargs entries need name=value") {
    const CliRun r = run_dmlrt("-f named_args.plan -nvargs x=1 y");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("option '-nvargs': expected name=value, got 'y'"));
  }
  SECTION("-args needs a value") {
    const CliRun r = run_dmlrt("-f named_args.plan -args");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("option '-args' needs at least one value"));
  }
}

TEST_CASE("cli: bad command lines exit with 2 and a message", "[cli]") {
  SECTION("unknown option") {
    const CliRun r = run_dmlrt("-f sum.plan -foo");
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::StartsWith("dmlrt: error: unrecognised option '-foo'"));
    CHECK_THAT(r.err, Catch::Contains("Try 'dmlrt -help'"));
  }
  SECTION("no prefix guessing: -st is not -stats") {
    const CliRun r = run_dmlrt("-st -f sum.plan");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("unrecognised option '-st'"));
  }
  SECTION("no plan") {
    const CliRun r = run_dmlrt("-stats");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("dmlrt: error: no plan file given (use -f <plan>)"));
  }
  SECTION("two plans") {
    const CliRun r = run_dmlrt("-f sum.plan stop.plan");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("two plan files given: -f sum.plan and stop.plan"));
  }
  SECTION("an option given twice") {
    const CliRun r = run_dmlrt("-f sum.plan -seed 1 -seed 2");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("option '-seed' cannot be specified more than once"));
  }
  SECTION("bad values") {
    CliRun r = run_dmlrt("-f sum.plan -precision half");
    CHECK(r.code == 2);
    CHECK_THAT(r.err,
               Catch::Contains("option '-precision': expected double or single, got 'half'"));
    r = run_dmlrt("-f sum.plan -seed x");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("option '-seed': expected an integer >= -1, got 'x'"));
    r = run_dmlrt("-f sum.plan -gpu-mem-budget 12Q");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("option '-gpu-mem-budget': expected a positive byte count"));
    r = run_dmlrt("-f sum.plan -seed");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("the required argument for option '-seed' is missing"));
  }
  SECTION("good values") {
    const CliRun r = run_dmlrt("-f sum.plan -precision single -seed 42 -gpu-mem-budget 8G");
    CHECK(r.code == 0);
    CHECK(r.out == "5\ndone\n");
  }
}

TEST_CASE("cli: plan and run-time failures exit with 1 and name the file and line", "[cli]") {
  SECTION("missing plan file") {
    const CliRun r = run_dmlrt("-f nothere.plan");
    CHECK(r.code == 1);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::StartsWith("dmlrt: error: "));
    CHECK_THAT(r.err, Catch::Contains("nothere.plan"));
  }
  SECTION("parse error") {
    const CliRun r = run_dmlrt("-f parse_error.plan");
    CHECK(r.code == 1);
    CHECK(r.out.empty());  // nothing runs when the plan does not parse
    CHECK_THAT(r.err, Catch::StartsWith("dmlrt: error: parse_error.plan:6: "));
    CHECK_THAT(r.err, Catch::Contains("unknown opcode 'frobnicate'"));
    CHECK(count_of(r.err, "\n") == 1);
  }
  SECTION("stop() ends the run") {
    const CliRun r = run_dmlrt("-f stop.plan -stats");
    CHECK(r.code == 1);
    CHECK(r.out == "before\n");  // output before the failure stays; no statistics
    CHECK_THAT(r.err, Catch::StartsWith("dmlrt: error: stop.plan:6: "));
    CHECK_THAT(r.err, Catch::Contains("stop: boom"));
  }
}

TEST_CASE("cli: -gpu on a machine without a usable GPU backend runs on the CPU", "[cli]") {
  // Without a usable device (or in a CPU-only build) -gpu says once on stderr that it runs on the
  // CPU; with a device the same plan runs on the GPU and gives the same output.
  const bool has_device = dmlrt::gpu::usable_device_count() > 0;
  for (const std::string args : {"-gpu -f sum.plan", "-f sum.plan -gpu", "-gpu force sum.plan"}) {
    INFO(args);
    const CliRun r = run_dmlrt(args);
    CHECK(r.code == 0);
    CHECK(r.out == "5\ndone\n");
    if (!has_device) {
      CHECK(count_of(r.err, "running on the CPU") == 1);
      CHECK(count_of(r.err, "\n") == 1);
    }
  }
  SECTION("the note is a warning: DMLRT_LOG_LEVEL=error silences it") {
    const CliRun r = run_dmlrt("-gpu -f sum.plan", "error");
    CHECK(r.code == 0);
    CHECK(r.err.empty());
  }
  SECTION("-gpu takes only 'force' as its argument") {
    const CliRun r = run_dmlrt("-f sum.plan -gpu=always");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("option '-gpu': expected nothing or 'force', got 'always'"));
  }
}

TEST_CASE("cli: -config reads sysds.* settings", "[cli][config]") {
  SECTION("valid keys") {
    const CliRun r = run_dmlrt("-f sum.plan -config good.xml");
    CHECK(r.code == 0);
    CHECK(r.out == "5\ndone\n");
    CHECK(r.err.empty());
  }
  SECTION("unknown keys warn and the run goes on") {
    const CliRun r = run_dmlrt("-config unknown_key.xml -f sum.plan");
    CHECK(r.code == 0);
    CHECK(r.out == "5\ndone\n");
    CHECK_THAT(r.err,
               Catch::Contains("unknown_key.xml:3: unknown key 'sysds.no.such.key'; ignored"));
    // A SystemDS key without effect in dmlrt is only an info message.
    CHECK(r.err.find("sysds.native.blas") == std::string::npos);
    const CliRun info = run_dmlrt("-config unknown_key.xml -f sum.plan", "info");
    CHECK_THAT(info.err,
               Catch::Contains("unknown_key.xml:2: sysds.native.blas: has no effect in dmlrt"));
  }
  SECTION("a bad value names the file, line and key") {
    const CliRun r = run_dmlrt("-f sum.plan -config bad_value.xml");
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err,
               Catch::StartsWith("dmlrt: error: bad_value.xml:3: sysds.gpu.memory.util.factor: "
                                 "expected a number in (0, 1], got '1.5'"));
  }
  SECTION("a missing config file") {
    const CliRun r = run_dmlrt("-f sum.plan -config nothere.xml");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("nothere.xml: cannot read the config file"));
  }
}

TEST_CASE("cli: -help and --version", "[cli]") {
  const CliRun r = run_dmlrt("-help");
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::StartsWith("Usage: dmlrt [-f] <plan>"));
  for (const char* s : {"General:", "Diagnostics:", "Device:", "-f <plan>", "-stats [n]",
                        "-explain [runtime|raw]", "-gpu [force]", "-config <file.xml>",
                        "-nvargs <name=value>", "Exit status:", "DMLRT_LOG_LEVEL"}) {
    CHECK_THAT(r.out, Catch::Contains(s));
  }
  CHECK(run_dmlrt("-f sum.plan -help").out == r.out);  // -help wins over running

  const CliRun v = run_dmlrt("--version");
  CHECK(v.code == 0);
  CHECK_THAT(v.out, Catch::StartsWith("dmlrt " + dmlrt::version() + "\n"));
}
