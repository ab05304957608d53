// Sizes from a plan are checked before memory is taken (DESIGN.md §7): impossible shapes fail at
// once with an OutOfMemory naming the instruction, the shape and the bytes; std::bad_alloc and
// std::length_error inside an instruction become such an error; out-of-range integer literals and
// unbound $-arguments are plan errors naming the line; OpenBLAS under an address-space limit ends
// with an error instead of spinning. Fixtures: data/size_checks/. Every run that could allocate
// much runs the CLI (DMLRT_BINARY) under `ulimit -v`, so a regression fails instead of taking
// the machine's memory.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>

#include "common/test_files.h"
#include "common/test_paths.h"
#include "gpu_context/error.h"
#include "instructions/execution_context.h"
#include "instructions/instruction.h"
#include "kernels/host_memory.h"
#include "kernels/matrix_block.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"

namespace {

using Catch::Matchers::Contains;
using dmlrt::test::read_all;
namespace fs = std::filesystem;

const std::string kDataDir = dmlrt::test::test_data_dir() + "/unit/data/size_checks";

struct CliRun {
  int code = -1;
  std::string err;
  std::string out;
  double seconds = 0.0;
};

// Runs `dmlrt <args>` in the fixture folder under `ulimit -v <limit_kb>` (0: no limit), with
// OPENBLAS_NUM_THREADS=1 (see Note [OpenBLAS under a memory limit]: pool threads take their work
// buffers before main, which a small limit on a many-core machine cannot hold) and a 60 s
// timeout, so a hang fails the test (code 124) instead of stalling it.
// A sanitizer's runtime reserves terabytes of address space for its shadow memory, so a
// sanitized dmlrt cannot start under `ulimit -v`: there the limit is dropped where it is only a
// guard, and the tests about behaviour under a limit are skipped (kSanitized).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// `env` replaces the OPENBLAS_NUM_THREADS=1 setting (e.g. to unset it); `flag` is ulimit's -v
// (RLIMIT_AS) or -d (RLIMIT_DATA).
CliRun run_cli(const std::string& args, long limit_kb,
               const std::string& env = "OPENBLAS_NUM_THREADS=1", const std::string& flag = "-v") {
  static std::atomic<int> counter{0};
  const fs::path dir =
      fs::temp_directory_path() /
      ("dmlrt_size_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  fs::create_directories(dir);
  if (kSanitized) limit_kb = 0;
  const std::string limit =
      limit_kb > 0 ? "ulimit " + flag + " " + std::to_string(limit_kb) + "; " : "";
  const std::string cmd = "cd '" + kDataDir + "' && env " + env + " timeout 60 sh -c '" + limit +
                          "exec \"" + dmlrt::test::dmlrt_binary() + "\" " + args + "' > '" +
                          (dir / "out").string() + "' 2> '" + (dir / "err").string() + "'";
  const auto t0 = std::chrono::steady_clock::now();
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_all(dir / "out");
  r.err = read_all(dir / "err");
  fs::remove_all(dir);
  return r;
}

// The smallest `ulimit <flag>` (KB) under which this build's dmlrt starts and runs a trivial plan,
// found once per flag by bisection: a CUDA build maps over a gigabyte of libraries before main, a
// CPU-only build about 100 MB. The limits below are this base plus what each case needs.
long base_limit_kb(const std::string& flag) {
  static std::map<std::string, long> found;
  if (auto it = found.find(flag); it != found.end()) return it->second;
  auto starts = [&](long kb) {
    const CliRun r = run_cli("-f noop.plan", kb, "OPENBLAS_NUM_THREADS=1", flag);
    return r.code == 0 && r.out == "1\n";
  };
  long lo = 10000, hi = 16000000;
  REQUIRE(starts(hi));
  while (hi - lo > 5000) {
    const long mid = (lo + hi) / 2;
    (starts(mid) ? hi : lo) = mid;
  }
  return found[flag] = hi;
}

// `extra_kb` of address space above what dmlrt needs to start.
long vlimit(long extra_kb) { return kSanitized ? 0 : base_limit_kb("-v") + extra_kb; }

// About 2 GB to spare: enough for every valid case here, far below every impossible size.
long limit_kb() { return vlimit(1900000); }

void check_no_library_text(const std::string& err) {
  CHECK_THAT(err, !Contains("std::bad_alloc") && !Contains("max_size") &&
                      !Contains("vector::reserve") && !Contains("length_error"));
}

}  // namespace

TEST_CASE("rand of 4 x 2^62 cells fails at once, naming shape and bytes", "[safety][sizes][cli]") {
  // 500 MB to spare: a regression that starts allocating fails fast instead of growing for minutes.
  const CliRun r = run_cli("-f rand_huge.plan", vlimit(500000));
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.seconds < 1.0);
  CHECK_THAT(r.err, Contains("rand_huge.plan:5:") && Contains("rand") &&
                        Contains("4x4611686018427387904") &&
                        Contains("147573952589676412928 bytes"));
  CHECK(r.out.empty());
  check_no_library_text(r.err);
}

TEST_CASE("rand 46341x46341 names the bytes asked for and the bytes available",
          "[safety][sizes][cli]") {
  if (kSanitized) {
    WARN("skipped: a sanitized dmlrt cannot run under ulimit -v");
    return;
  }
  const CliRun r = run_cli("-f rand_46341.plan", limit_kb());
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Contains("rand_46341.plan:5:") && Contains("CP°rand°") &&
                        Contains("46341x46341") && Contains("17179906248 bytes (16.0 GiB)") &&
                        Contains("are available (RLIMIT_AS"));
  check_no_library_text(r.err);
}

TEST_CASE("seq with a huge count names from, to, incr and the rows", "[safety][sizes][cli]") {
  SECTION("seq(1, 1e12)") {
    const CliRun r = run_cli("-f seq_1e12.plan", limit_kb());
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Contains("seq_1e12.plan:5:") &&
                          Contains("seq(from=1.0, to=1.0E12, incr=1.0) with 1.0E12 rows") &&
                          Contains("8000000000000 bytes"));
  }
  SECTION("seq(0, 1, 1e-300)") {
    const CliRun r = run_cli("-f seq_tiny_incr.plan", limit_kb());
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Contains("seq_tiny_incr.plan:5:") &&
                          Contains("seq(from=0.0, to=1.0, incr=1.0E-300)") &&
                          Contains("E299 rows") && Contains("bytes"));
    CHECK_THAT(r.err, !Contains("invalid matrix dimensions"));
  }
}

TEST_CASE(
    "plan-given sizes of groupedagg, ctable, rexpand, DNN padding, outer ops and reshape "
    "are checked",
    "[safety][sizes][cli]") {
  struct Case {
    const char* plan;
    const char* line;
    const char* says;
    const char* shape;
  };
  const Case cases[] = {
      {"groupedagg_huge.plan", ":7:", "groupedagg with 1000000000000 groups", "1000000000000x1"},
      {"ctable_huge.plan", ":7:", "ctable output 1000000000000000x3", "1000000000000001x1"},
      {"rexpand_huge.plan", ":7:", "rexpand (max=1000000000000000)", "1000000000000001x1"},
      {"conv2d_pad.plan", ":7:", "conv2d: an output of 1x4000004000001 cells", "P=2000001"},
      {"maxpool_pad.plan", ":7:", "maxpooling: an output of 1x4000004000001 cells", "P=2000001"},
      {"outer_huge.plan", ":9:", "outer op of a 3000000x1 and a 1x3000000 vector",
       "3000000x3000000"},
  };
  for (const Case& c : cases) {
    const CliRun r = run_cli(std::string("-f ") + c.plan, limit_kb());
    INFO(c.plan << ": " << r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Contains(std::string(c.plan) + c.line) && Contains(c.says) &&
                          Contains(c.shape) && Contains(" bytes (") && Contains("available"));
    check_no_library_text(r.err);
  }
  // 2^32 x 2^32 wraps to 0 cells in int64: it must not pass as a reshape of a 0x0 matrix.
  const CliRun r = run_cli("-f reshape_wrap.plan", limit_kb());
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Contains("reshape_wrap.plan:7:") && Contains("cannot reshape a 0x0") &&
                        Contains("4294967296x4294967296"));
}

TEST_CASE("a CSV whose .mtd declares huge dims fails before it is parsed", "[safety][sizes][cli]") {
  const CliRun r = run_cli("-f csv_huge_mtd.plan", limit_kb());
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Contains("csv_huge_mtd.plan:5:") && Contains("huge.csv") &&
                        Contains("1000000000000x1000000000000") && Contains("bytes"));
}

TEST_CASE("reading an endless file ends with an error naming the instruction",
          "[safety][sizes][cli]") {
  // /dev/zero never ends: the read runs out of its 500 MB to spare (or is refused as not a regular
  // file); either way one clear error, never C++ library text.
  const CliRun r = run_cli("-f dev_zero.plan", vlimit(500000));
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Contains("dev_zero.plan:5:") && Contains("uak+"));
  check_no_library_text(r.err);
}

TEST_CASE("an integer literal beyond INT64 is a plan error naming the line",
          "[safety][sizes][cli]") {
  const CliRun r = run_cli("-f int_literal_2p64.plan", limit_kb());
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK_THAT(r.err,
             Contains("int_literal_2p64.plan:4:") &&
                 Contains("integer literal '18446744073709551616' is out of the INT64 range"));
  CHECK(r.out.empty());
  // The parser rejects it before anything runs, as a ParseError.
  CHECK_THROWS_AS(dmlrt::runtime::parse_plan_file(kDataDir + "/int_literal_2p64.plan"),
                  dmlrt::ParseError);
  CHECK_THROWS_WITH(dmlrt::runtime::parse_plan("PROGRAM\n--MAIN PROGRAM\n----GENERIC\n"
                                               "------CP°assignvar°-9223372036854775809·SCALAR·"
                                               "INT64·true°n·SCALAR·INT64\n",
                                               "t.plan"),
                    Contains("t.plan:4:") && Contains("out of the INT64 range"));
  // The extremes themselves are fine.
  CHECK_NOTHROW(dmlrt::runtime::parse_plan(
      "PROGRAM\n--MAIN PROGRAM\n----GENERIC\n"
      "------CP°assignvar°-9223372036854775808·SCALAR·INT64·true°n·SCALAR·INT64\n"
      "------CP°assignvar°9223372036854775807·SCALAR·INT64·true°m·SCALAR·INT64\n",
      "t.plan"));
}

TEST_CASE("unbound $N and $name arguments are plan errors naming the line",
          "[safety][sizes][cli]") {
  SECTION("$7 with one -args value") {
    const CliRun r = run_cli("-f unbound_positional.plan -args hello", limit_kb());
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Contains("unbound_positional.plan:5:") && Contains("$7 has no value") &&
                          Contains("-args gives 1 value(s)"));
    CHECK(r.out.empty());  // a plan error: nothing ran
  }
  SECTION("$greeting without -nvargs") {
    const CliRun r = run_cli("-f unbound_named.plan", limit_kb());
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Contains("unbound_named.plan:4:") && Contains("$greeting has no value") &&
                          Contains("-nvargs greeting="));
  }
  SECTION("a $ inside longer text and in comments is text") {
    const CliRun r = run_cli("-f dollar_in_text.plan -args hi", limit_kb());
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(r.out == "costs $5 each\nhi\n");
  }
  SECTION("key=$name fields and createvar file names") {
    const std::string head = "PROGRAM\n--MAIN PROGRAM\n----GENERIC\n";
    CHECK_THROWS_WITH(
        dmlrt::runtime::parse_plan(head + "------CP°createvar°pREADX°$X°false°MATRIX°csv°3°3°-1°"
                                          "-1°copy\n",
                                   "t.plan"),
        Contains("t.plan:4:") && Contains("$X has no value"));
    CHECK_THROWS_WITH(
        dmlrt::runtime::parse_plan(head + "------CP°groupedagg°target=A°groups=B°fn=sum°"
                                          "ngroups=$n°k=2°G·MATRIX·FP64\n",
                                   "t.plan"),
        Contains("t.plan:4:") && Contains("$n has no value"));
    dmlrt::runtime::PlanArgs args;
    args.named["X"] = "x.csv";
    CHECK_NOTHROW(dmlrt::runtime::parse_plan(
        head + "------CP°createvar°pREADX°$X°false°MATRIX°csv°3°3°-1°-1°copy\n", "t.plan", args));
  }
}

namespace {

// An instruction whose execution throws what a failed allocation throws.
class ThrowingInstruction final : public dmlrt::inst::Instruction {
 public:
  ThrowingInstruction(const std::string& raw, bool length_error)
      : Instruction(dmlrt::inst::InstructionText::parse(raw, {"t.plan", 3})),
        length_error_(length_error) {}
  void run_cpu(dmlrt::inst::ExecutionContext&) override {
    if (length_error_) throw std::length_error("cannot create std::vector larger than max_size()");
    throw std::bad_alloc();
  }

 private:
  bool length_error_;
};

std::string run_throwing(bool length_error) {
  using namespace dmlrt;
  runtime::Program p;
  auto b = std::make_unique<runtime::Block>();
  b->instructions.push_back(std::make_unique<ThrowingInstruction>(
      "CP°ba+*°X·MATRIX·FP64°Y·MATRIX·FP64°Z·MATRIX·FP64°2", length_error));
  p.main.push_back(std::move(b));
  std::ostringstream out;
  runtime::Interpreter interp(p, out);
  inst::ExecutionContext ec(interp, {});
  ec.set_matrix("X", kernels::MatrixBlock::dense(3, 4));
  ec.set_matrix("Y", kernels::MatrixBlock::dense(4, 5));
  try {
    interp.run(ec);
  } catch (const OutOfMemory& e) {
    return e.what();
  }
  return "no OutOfMemory";
}

}  // namespace

TEST_CASE("std::bad_alloc and std::length_error become OutOfMemory naming the operands",
          "[safety][sizes]") {
  for (const bool length_error : {false, true}) {
    const std::string msg = run_throwing(length_error);
    INFO(msg);
    CHECK_THAT(msg, Contains("t.plan:3: instruction 'CP°ba+*°X·MATRIX·FP64") &&
                        Contains("out of host memory") && Contains("ba+*") &&
                        Contains("X = 3x4 (96 bytes") && Contains("Y = 4x5 (160 bytes") &&
                        Contains("host memory available: "));
    check_no_library_text(msg);
  }
}

TEST_CASE("check_host_alloc catches int64 overflow and sizes beyond memory", "[safety][sizes]") {
  using dmlrt::kernels::check_host_alloc;
  CHECK_NOTHROW(check_host_alloc("small", 1000, 1000, 8));
  CHECK_THROWS_AS(check_host_alloc("wrap", int64_t{1} << 62, 4, 8), dmlrt::OutOfMemory);
  CHECK_THROWS_WITH(check_host_alloc("wrap", int64_t{1} << 32, int64_t{1} << 32, 8),
                    Contains("wrap: a 4294967296x4294967296 dense matrix needs "
                             "147573952589676412928 bytes"));
  // 2^50 bytes (1 PiB) exceeds the memory of any machine this runs on.
  CHECK_THROWS_WITH(check_host_alloc("big", int64_t{1} << 22, int64_t{1} << 25, 8),
                    Contains("big: a 4194304x33554432 dense matrix needs 1125899906842624 bytes") &&
                        Contains("are available"));
  CHECK_THROWS_AS(check_host_alloc("negative", -1, 3, 8), dmlrt::ShapeError);
  // MatrixBlock::dense checks before it allocates.
  CHECK_THROWS_AS(dmlrt::kernels::MatrixBlock::dense(int64_t{1} << 40, 1 << 20),
                  dmlrt::OutOfMemory);
  const dmlrt::kernels::HostMemory mem = dmlrt::kernels::host_memory();
  CHECK(mem.available_bytes > 0);
  CHECK_FALSE(mem.limited_by.empty());
}

TEST_CASE("OpenBLAS under an address-space limit ends with an error, not a spin",
          "[safety][sizes][cli]") {
  if (kSanitized) {
    WARN("skipped: a sanitized dmlrt cannot run under ulimit -v");
    return;
  }
  // tsmm of a 500x500 matrix under shrinking limits: with room, it runs; with too little for
  // OpenBLAS's 128 MiB work buffer, OpenBLAS would retry forever (Note [OpenBLAS under a memory
  // limit]); dmlrt must answer 1 with a message instead. The limit where that happens depends
  // on the binary's footprint, so the test walks down until it sees the guard's message.
  bool saw_guard = false;
  for (long kb = vlimit(400000); kb >= vlimit(100000) && !saw_guard; kb -= 25000) {
    const CliRun r = run_cli("-f tsmm_500.plan", kb);
    INFO("ulimit -v " << kb << ": " << r.err);
    REQUIRE(r.code != 124);  // the timeout: a hang
    REQUIRE((r.code == 0 || r.code == 1));
    if (r.code == 1) {
      CHECK_THAT(r.err, Contains("tsmm_500.plan:") && Contains("bytes") && Contains("RLIMIT_AS"));
      check_no_library_text(r.err);
    }
    saw_guard = r.err.find("OpenBLAS needs") != std::string::npos;
    if (saw_guard) CHECK_THAT(r.err, Contains("tsmm_500.plan:7:") && Contains("tsmm"));
  }
  CHECK(saw_guard);
}

TEST_CASE("the CLI under an address-space limit restarts with an OpenBLAS thread count that fits",
          "[safety][sizes][cli]") {
  if (kSanitized) {
    WARN("skipped: a sanitized dmlrt cannot run under ulimit -v");
    return;
  }
  // Case (b) of Note [OpenBLAS under a memory limit]: pool threads take their buffers before main.
  // With no thread count set, the CLI sets one whose buffers fit a quarter of the limit and
  // executes itself again, once; with one set by the user it leaves it alone.
  const std::string unset =
      "-u OPENBLAS_NUM_THREADS -u GOTO_NUM_THREADS -u OMP_NUM_THREADS DMLRT_LOG_LEVEL=info";
  // RLIMIT_DATA (ulimit -d), which a CUDA build's read-only library mappings do not fill, so the
  // limit can be small enough for fewer threads than cores on any build.
  const long kb = base_limit_kb("-d") + 200000;
  const long threads = std::max<long>(1, kb * 1024 / 4 / ((128L << 20) + 4096));
  const CliRun r = run_cli("-f tsmm_500.plan", kb, unset, "-d");
  INFO("ulimit -d " << kb << ": " << r.err);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Contains("3.125726333516453E7"));
  if (threads < ::sysconf(_SC_NPROCESSORS_ONLN)) {
    CHECK_THAT(r.err, Contains("restarting with OPENBLAS_NUM_THREADS=" + std::to_string(threads)));
    CHECK(r.err.find("restarting") == r.err.rfind("restarting"));  // once
  } else {
    CHECK_THAT(r.err, !Contains("restarting"));
  }
  const CliRun user =
      run_cli("-f tsmm_500.plan", kb, "OPENBLAS_NUM_THREADS=1 DMLRT_LOG_LEVEL=info", "-d");
  CHECK(user.code == 0);
  CHECK_THAT(user.err, !Contains("restarting"));
  // dmlrt's own pool at 16 threads, as on a 16-core host: its worker stacks must leave OpenBLAS
  // its buffer (Note [Pool thread stacks]; with 8 MiB stacks this failed on the H200 host).
  const CliRun pool = run_cli("-threads 16 -f tsmm_500.plan", kb, unset, "-d");
  INFO("-threads 16: " << pool.err);
  CHECK(pool.code == 0);
  CHECK_THAT(pool.out, Contains("3.125726333516453E7"));
  const CliRun unlimited = run_cli("-f tsmm_500.plan", 0, unset);
  CHECK(unlimited.code == 0);
  CHECK_THAT(unlimited.err, !Contains("restarting"));
}

TEST_CASE("a deep valid plan under a small ulimit -v ends with an error, never a signal",
          "[safety][sizes][cli]") {
  if (kSanitized) {
    WARN("skipped: a sanitized dmlrt cannot run under ulimit -v");
    return;
  }
  // The user's crash: a large matrix takes nearly all of the address space, then a recursion
  // 999 calls deep needs ~2 MB more stack. On the process's main stack that growth failed with
  // SIGSEGV (exit 139); the interpreter now runs on a stack reserved up front (Note [Interpreter
  // stack] in runtime/interpreter.cpp) and every allocation is checked, so each run must end
  // with 0 or 1. The matrix size where the address space runs out depends on the binary's
  // footprint: it is found by bisection first, then the runs just below it are checked.
  const long kLimit = vlimit(150000);
  auto rand_fits = [&](long rows) {
    const CliRun r = run_cli("-f deep_recursion.plan -args " + std::to_string(rows) + " 1", kLimit);
    REQUIRE((r.code == 0 || r.code == 1));
    return r.err.find("deep_recursion.plan:24:") == std::string::npos;
  };
  long lo = 100, hi = 40000;  // 0.8 MB fits; 320 MB cannot in 150 MB to spare
  REQUIRE(rand_fits(lo));
  REQUIRE_FALSE(rand_fits(hi));
  while (hi - lo > 100) {
    const long mid = (lo + hi) / 2;
    (rand_fits(mid) ? lo : hi) = mid;
  }
  for (long rows = lo; rows > lo - 400 && rows > 0; rows -= 100) {
    const CliRun r =
        run_cli("-f deep_recursion.plan -args " + std::to_string(rows) + " 999", kLimit);
    INFO("rows " << rows << ": exit " << r.code << ": " << r.err);
    CHECK((r.code == 0 || r.code == 1));
    CHECK_THAT(r.err, Contains("deep_recursion.plan:"));
  }
}
