// The thread-safety contract of the embedded API (include/dmlrt/api.h, issue #15): one
// PreparedScript executed from 8 threads with statistics on; 8 threads with a script each of one
// Connection sharing its print stream; execute() concurrent with set_matrix / set_scalar;
// moved-from objects; size errors as dmlrt::Error. Catch2's assertions are not thread-safe, so the
// threads collect what they saw and the test thread checks it. Run these under
// scripts/sanitize.sh tsan too.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dmlrt/dmlrt.h"

using Catch::Contains;
using Catch::StartsWith;

// Sanitizers report a failed operator new and stop instead of throwing std::bad_alloc, so the
// checks that really run out of address space are left out under them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DMLRT_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DMLRT_TEST_SANITIZED 1
#endif
#endif

namespace {

constexpr int kThreads = 8;

// Y = X %*% W + b, total = sum(Y); prints "total=<total>".
const char* kScoring = R"(PROGRAM
--MAIN PROGRAM
----GENERIC (lines 1-4) [recompile=false]
------CP°createvar°_mVar0°scratch_space//_p1//_t0/temp0°true°MATRIX°binary°-1°-1°1000°-1°copy
------CP°ba+*°X·MATRIX·FP64°W·MATRIX·FP64°_mVar0·MATRIX·FP64°2
------CP°createvar°_mVar1°scratch_space//_p1//_t0/temp1°true°MATRIX°binary°-1°-1°1000°-1°copy
------CP°+°_mVar0·MATRIX·FP64°b·SCALAR·FP64·false°_mVar1·MATRIX·FP64°2
------CP°rmvar°_mVar0
------CP°mvvar°_mVar1°Y
------CP°uak+°Y·MATRIX·FP64°total·SCALAR·FP64°2
------CP°+°total=·SCALAR·STRING·true°total·SCALAR·FP64·false°_Var2·SCALAR·STRING
------CP°print°_Var2·SCALAR·STRING·false°_Var3·SCALAR·STRING°2
------CP°rmvar°_Var2°_Var3
)";

// Runs f(t) on kThreads threads, t = 0..kThreads-1, and returns what each reported ("" = ok).
std::vector<std::string> on_threads(const std::function<std::string(int)>& f) {
  std::vector<std::string> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        seen[static_cast<size_t>(t)] = f(t);
      } catch (const std::exception& e) {
        seen[static_cast<size_t>(t)] = std::string("threw: ") + e.what();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  return seen;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// X (2, 2) of `x`, W = I, b: every Y cell is x + b, total 4 (x + b).
void bind_scoring(dmlrt::PreparedScript& s, double x, double b) {
  s.set_matrix("X", {{x, x}, {x, x}});
  s.set_matrix("W", {{1, 0}, {0, 1}});
  s.set_scalar("b", b);
}

}  // namespace

TEST_CASE("api threads: 8 threads execute one PreparedScript with statistics on",
          "[api][threads]") {
  std::ostringstream printed;
  dmlrt::Options opts;
  opts.output = &printed;
  opts.statistics = true;
  dmlrt::Connection conn(opts);
  dmlrt::PreparedScript s = conn.prepare_script(kScoring, {"X", "W", "b"}, {"Y", "total"});
  bind_scoring(s, 2, 1);
  constexpr int kRuns = 10;
  const auto seen = on_threads([&](int) -> std::string {
    for (int k = 0; k < kRuns; ++k) {
      const dmlrt::ResultVariables r = s.execute();
      if (r.get_double("total") != 12.0) return "total " + std::to_string(r.get_double("total"));
      const dmlrt::Matrix y = r.get_matrix("Y");
      if (y.rows() != 2 || y.cols() != 2 || y.at(1, 0) != 3.0) return "bad Y";
      const std::string stats = s.statistics();
      if (stats.rfind("SystemDS Statistics:\n", 0) != 0) return "statistics: " + stats;
      if (stats.find("ba+*") == std::string::npos) return "no ba+* in " + stats;
    }
    return "";
  });
  for (const std::string& e : seen) CHECK(e == "");
  const auto lines = lines_of(printed.str());
  CHECK(lines.size() == size_t{kThreads} * kRuns);
  CHECK(std::all_of(lines.begin(), lines.end(),
                    [](const std::string& l) { return l == "total=12.0"; }));
  CHECK_THAT(s.statistics(), Contains("Heavy hitter instructions:"));
}

TEST_CASE("api threads: 8 threads each run their own script of one Connection", "[api][threads]") {
  std::ostringstream printed;  // shared by all scripts of the connection
  dmlrt::Options opts;
  opts.output = &printed;
  opts.statistics = true;
  const dmlrt::Connection conn(opts);
  constexpr int kRuns = 10;
  const auto seen = on_threads([&](int t) -> std::string {
    // Copies of the connection are as good as the connection.
    const dmlrt::Connection mine = (t % 2 == 0) ? conn : dmlrt::Connection(conn);
    dmlrt::PreparedScript s = mine.prepare_script(kScoring, {"X", "W", "b"}, {"total"});
    for (int k = 0; k < kRuns; ++k) {
      bind_scoring(s, t, k);
      const double total = s.execute().get_double("total");
      if (total != 4.0 * (t + k)) return "total " + std::to_string(total);
      if (s.statistics().find("uak+") == std::string::npos) return "statistics";
    }
    return "";
  });
  for (const std::string& e : seen) CHECK(e == "");
  // Every line whole: "total=" and one of the totals, never two runs' text in one line.
  std::map<std::string, int> counts;
  for (const std::string& l : lines_of(printed.str())) ++counts[l];
  int lines = 0;
  for (const auto& [line, n] : counts) {
    INFO(line);
    CHECK_THAT(line, StartsWith("total="));
    CHECK(line.find("total=", 1) == std::string::npos);
    lines += n;
  }
  CHECK(lines == kThreads * kRuns);
  CHECK(counts["total=0.0"] == 1);  // t = 0, k = 0 only
}

TEST_CASE("api threads: execute concurrent with set_matrix and set_scalar", "[api][threads]") {
  std::ostringstream printed;
  dmlrt::Options opts;
  opts.output = &printed;
  dmlrt::Connection conn(opts);
  dmlrt::PreparedScript s = conn.prepare_script(kScoring, {"X", "W", "b"}, {"Y"});
  bind_scoring(s, 0, 0);
  std::atomic<int> runners{2};
  const auto seen = on_threads([&](int t) -> std::string {
    if (t < 2) {  // runners: each result comes from one snapshot, so Y's cells are all equal
      struct Done {
        std::atomic<int>& n;
        ~Done() { --n; }
      } done{runners};
      for (int k = 0; k < 40; ++k) {
        const dmlrt::Matrix y = s.execute().get_matrix("Y");
        const double v = y.at(0, 0);
        if (y.at(0, 1) != v || y.at(1, 0) != v || y.at(1, 1) != v) return "torn Y";
        if (v < 0 || v > 2000 || v != static_cast<int64_t>(v)) return "Y " + std::to_string(v);
      }
      return "";
    }
    // binders: X = x everywhere, b whole numbers; W stays the identity
    for (int k = 0; runners > 0; ++k) {
      const double v = (t * 37 + k) % 1000;
      if (t % 2 == 0) {
        s.set_matrix("X", {{v, v}, {v, v}});
      } else if (t % 3 == 0) {
        s.set_scalar("b", static_cast<int64_t>(v));
      } else {
        s.set_scalar("b", v);
        (void)s.statistics();
        (void)s.input_names();
      }
    }
    return "";
  });
  for (const std::string& e : seen) CHECK(e == "");
  CHECK(lines_of(printed.str()).size() == 80);
}

TEST_CASE("api threads: moved-from objects throw dmlrt::Error", "[api][threads]") {
  dmlrt::Options opts;
  std::ostringstream printed;
  opts.output = &printed;
  dmlrt::Connection conn(opts);
  dmlrt::PreparedScript s = conn.prepare_script(kScoring, {"X", "W", "b"}, {"total"});
  bind_scoring(s, 1, 1);
  dmlrt::ResultVariables r = s.execute();

  dmlrt::PreparedScript s2 = std::move(s);
  const std::string used = "PreparedScript used after move";
  CHECK_THROWS_AS(s.execute(), dmlrt::Error);
  CHECK_THROWS_WITH(s.execute(), "PreparedScript::execute: " + used);
  CHECK_THROWS_WITH(s.set_scalar("b", 1.0), "PreparedScript::set_scalar: " + used);
  CHECK_THROWS_WITH(s.set_matrix("X", {{1.0}}), "PreparedScript::set_matrix: " + used);
  CHECK_THROWS_WITH(s.clear_parameters(), "PreparedScript::clear_parameters: " + used);
  CHECK_THROWS_WITH(s.statistics(), "PreparedScript::statistics: " + used);
  CHECK_THROWS_WITH(s.explain(), "PreparedScript::explain: " + used);
  CHECK_THROWS_WITH(s.input_names(), "PreparedScript::input_names: " + used);
  CHECK_THROWS_WITH(s.output_names(), "PreparedScript::output_names: " + used);
  CHECK(s2.execute().get_double("total") == 8.0);
  s = std::move(s2);  // assigning a value makes it usable again
  CHECK(s.execute().get_double("total") == 8.0);

  dmlrt::ResultVariables r2 = std::move(r);
  CHECK(r2.get_double("total") == 8.0);
  CHECK_THROWS_WITH(r.get_double("total"),
                    "ResultVariables::get_double: ResultVariables used "
                    "after move");
  CHECK_THROWS_WITH(r.names(), "ResultVariables::names: ResultVariables used after move");
  CHECK_THROWS_WITH(r.size(), "ResultVariables::size: ResultVariables used after move");
  CHECK_THROWS_WITH(r.get_matrix("Y"), Contains("used after move"));
  CHECK_THROWS_WITH(dmlrt::ResultVariables(r), Contains("ResultVariables used after move"));

  dmlrt::Connection conn2 = std::move(conn);
  CHECK_THROWS_WITH(conn.options(), "Connection::options: Connection used after move");
  CHECK_THROWS_WITH(conn.prepare_script(kScoring, {}, {}),
                    "Connection::prepare_script: Connection used after move");
  CHECK_THROWS_WITH(conn.prepare_script_file("x.plan", {}, {}),
                    "Connection::prepare_script_file: Connection used after move");
  CHECK_THROWS_WITH(dmlrt::Connection(conn), Contains("Connection used after move"));
  CHECK(conn2.options().output == &printed);
}

TEST_CASE("api threads: size errors are dmlrt::Error naming shape and bytes", "[api][threads]") {
#ifndef DMLRT_TEST_SANITIZED
  // 2^45 doubles (256 TiB) fits the size checks but no address space: std::bad_alloc inside.
  const int64_t big = int64_t{1} << 23, wide = int64_t{1} << 22;
  CHECK_THROWS_AS(dmlrt::Matrix::zeros(big, wide), dmlrt::Error);
  CHECK_THROWS_WITH(dmlrt::Matrix::zeros(big, wide),
                    "Matrix::zeros: out of host memory allocating 35184372088832 x 8 bytes for a "
                    "8388608x4194304 matrix");
#endif
  CHECK_THROWS_WITH(dmlrt::Matrix::zeros(int64_t{1} << 31, int64_t{1} << 31),
                    "Matrix::zeros: a 2147483648x2147483648 matrix needs 4611686018427387904 x 8 "
                    "bytes, more than the address space holds");
  CHECK_THROWS_WITH(dmlrt::Matrix::zeros(int64_t{1} << 40, int64_t{1} << 40),
                    "Matrix::zeros: dimensions 1099511627776x1099511627776 overflow");

  // A huge CSR matrix holding one value: densifying it fails cleanly.
  std::vector<int64_t> rp(2, 0);
  rp[1] = 1;
  const dmlrt::Matrix sparse = dmlrt::Matrix::csr(1, int64_t{1} << 30, rp, {5}, {1.0});
  CHECK(sparse.at(0, 5) == 1.0);
  CHECK(sparse.to_csr().nnz() == 1);
#ifndef DMLRT_TEST_SANITIZED
  const dmlrt::Matrix tall = dmlrt::Matrix::csr(
      int64_t{1} << 20, int64_t{1} << 30, std::vector<int64_t>((size_t{1} << 20) + 1, 0), {}, {});
  CHECK_THROWS_WITH(tall.to_dense(), StartsWith("Matrix::to_dense: out of host memory"));
#endif

  dmlrt::Connection conn;
  dmlrt::PreparedScript s = conn.prepare_script(kScoring, {"X", "W", "b"}, {"total"});
  const double one = 1.0;
  CHECK_THROWS_WITH(s.set_matrix("X", int64_t{1} << 40, int64_t{1} << 40, &one),
                    "set_matrix: 'X': dimensions 1099511627776x1099511627776 overflow");
  CHECK_THROWS_AS(s.set_matrix("X", int64_t{1} << 31, int64_t{1} << 31, &one), dmlrt::Error);
  CHECK_THROWS_WITH(s.set_matrix("X", int64_t{1} << 31, int64_t{1} << 31, &one),
                    Contains("more than the address space holds"));
}
