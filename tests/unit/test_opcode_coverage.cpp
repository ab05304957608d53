// Opcode coverage (issue #17): every opcode of SystemDS 3.4 (conformance/opcodes/
// systemds_opcodes.tsv, from scripts/opcodes/list_opcodes) is in dmlrt's opcode table, in
// out_of_scope.tsv (with its reason) or in not_yet.tsv (the to-do list), in exactly one; and the
// messages for out-of-scope opcodes and frames.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/test_paths.h"
#include "gpu_context/error.h"
#include "instructions/opcode_table.h"
#include "instructions/out_of_scope.h"
#include "instructions/execution_context.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"

using namespace dmlrt;
using Catch::Matchers::Contains;

namespace {

struct Row {
  std::string opcode, value;
  int line;
};

// The rows of a checked-in list: <opcode>\t<value> (value "" for a one-column line); '#' lines
// and blank lines are comments.
std::vector<Row> read_list(const std::string& name) {
  const std::string path = test::test_data_dir() + "/conformance/opcodes/" + name;
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<Row> rows;
  std::string l;
  for (int n = 1; std::getline(in, l); ++n) {
    if (l.empty() || l[0] == '#') continue;
    const size_t tab = l.find('\t');
    rows.push_back({l.substr(0, tab), tab == std::string::npos ? "" : l.substr(tab + 1), n});
  }
  return rows;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool in_table(const std::string& opcode) { return inst::find_opcode(lower(opcode)) != nullptr; }

// The opcodes of `rows` keyed by spelling; duplicates go to `dups`.
std::map<std::string, std::string> keyed(const std::vector<Row>& rows, const std::string& list,
                                         std::vector<std::string>& dups) {
  std::map<std::string, std::string> m;
  for (const auto& r : rows)
    if (!m.emplace(r.opcode, r.value).second)
      dups.push_back(list + ":" + std::to_string(r.line) + " " + r.opcode);
  return m;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "\n  " + x;
  return s;
}

// The message of the error that building `raw` at x.plan:7 throws ("" when it builds).
std::string make_error(const std::string& raw) {
  try {
    inst::make_instruction(inst::InstructionText::parse(raw, {"x.plan", 7}));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string plan_error(const std::string& text) {
  try {
    runtime::parse_plan(text, "plan.plan");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Parses and runs `text`; the message of the error it throws ("" when it runs), print output to
// `out`.
std::string run_error(const std::string& text, std::ostringstream& out) {
  try {
    runtime::Program program = runtime::parse_plan(text, "plan.plan");
    runtime::Interpreter interp(program, out, nullptr);
    inst::ExecutionContext ec(interp, {});
    interp.run(ec);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("every SystemDS opcode is in dmlrt's table, out_of_scope.tsv or not_yet.tsv, once",
          "[opcodes]") {
  const auto sds = read_list("systemds_opcodes.tsv");
  REQUIRE(sds.size() > 300);
  std::vector<std::string> dups;
  const auto out = keyed(read_list("out_of_scope.tsv"), "out_of_scope.tsv", dups);
  const auto not_yet = keyed(read_list("not_yet.tsv"), "not_yet.tsv", dups);
  CHECK(joined(dups) == "");

  std::vector<std::string> nowhere, implemented_but_listed, in_both;
  for (const auto& r : sds) {
    const bool t = in_table(r.opcode), o = out.count(r.opcode) > 0, n = not_yet.count(r.opcode) > 0;
    if (!t && !o && !n) nowhere.push_back(r.opcode + " (" + r.value + ")");
    if (t && o) implemented_but_listed.push_back(r.opcode + " (out_of_scope.tsv)");
    if (t && n) implemented_but_listed.push_back(r.opcode + " (not_yet.tsv)");
    if (o && n) in_both.push_back(r.opcode);
  }
  // One scope each: an INFO shows with its own check only.
  {
    INFO(
        "SystemDS opcodes in none of dmlrt's table, out_of_scope.tsv and not_yet.tsv (add each "
        "to one):"
        << joined(nowhere));
    CHECK(nowhere.empty());
  }
  {
    INFO("in dmlrt's opcode table and still listed (drop them from the list):"
         << joined(implemented_but_listed));
    CHECK(implemented_but_listed.empty());
  }
  {
    INFO("in both out_of_scope.tsv and not_yet.tsv:" << joined(in_both));
    CHECK(in_both.empty());
  }
}

TEST_CASE("out_of_scope.tsv and not_yet.tsv name SystemDS opcodes with known reasons and items",
          "[opcodes]") {
  std::set<std::string> sds;
  for (const auto& r : read_list("systemds_opcodes.tsv")) sds.insert(r.opcode);
  const std::set<std::string> reasons = {"Spark-only",      "federated", "compression", "lineage",
                                         "code generation", "frame",     "out-of-core", "tensor",
                                         "legacy"};
  std::vector<std::string> bad;
  for (const auto& r : read_list("out_of_scope.tsv")) {
    if (!sds.count(r.opcode))
      bad.push_back("out_of_scope.tsv: " + r.opcode + " is no SystemDS opcode");
    if (!reasons.count(r.value))
      bad.push_back("out_of_scope.tsv: " + r.opcode + " has reason '" + r.value + "'");
  }
  for (const auto& r : read_list("not_yet.tsv")) {
    if (!sds.count(r.opcode)) bad.push_back("not_yet.tsv: " + r.opcode + " is no SystemDS opcode");
    if (r.value.size() != 1 || r.value[0] < '1' || r.value[0] > '5')
      bad.push_back("not_yet.tsv: " + r.opcode + " waits for item '" + r.value +
                    "' (expected an item of issue #17, 1 to 5)");
  }
  INFO(joined(bad));
  CHECK(bad.empty());
}

TEST_CASE("out_of_scope.tsv is the library's out-of-scope table", "[opcodes]") {
  std::set<std::pair<std::string, std::string>> tsv, lib;
  for (const auto& r : read_list("out_of_scope.tsv")) tsv.insert({r.opcode, r.value});
  for (const auto& e : inst::out_of_scope_opcodes()) lib.insert({e.opcode, e.reason});
  std::vector<std::string> diff;
  for (const auto& p : tsv)
    if (!lib.count(p)) diff.push_back("only in out_of_scope.tsv: " + p.first + "\t" + p.second);
  for (const auto& p : lib)
    if (!tsv.count(p))
      diff.push_back("only in instructions/out_of_scope.cpp: " + p.first + "\t" + p.second);
  INFO(joined(diff));
  CHECK(diff.empty());
  CHECK(inst::find_out_of_scope("mapleftindex") == inst::find_out_of_scope("mapLeftIndex"));
  CHECK(inst::find_out_of_scope("ba+*") == nullptr);
}

TEST_CASE("an out-of-scope opcode fails at parse time with its reason, naming the line",
          "[opcodes]") {
  SECTION("every entry") {
    for (const auto& e : inst::out_of_scope_opcodes()) {
      const std::string raw = std::string("CP°") + e.opcode + "°A·MATRIX·FP64°B·MATRIX·FP64";
      const std::string msg = make_error(raw);
      INFO(raw);
      CHECK_THAT(msg, Contains("x.plan:7: instruction '" + raw + "': " + e.opcode + " is a"));
      CHECK_THAT(msg, Contains(std::string(" ") + e.reason +
                               " instruction; dmlrt runs singlenode CP and GPU plans"));
    }
  }
  SECTION("the messages read as sentences") {
    CHECK(make_error("CP°compress°X·MATRIX·FP64°Y·MATRIX·FP64°2") ==
          "x.plan:7: instruction 'CP°compress°X·MATRIX·FP64°Y·MATRIX·FP64°2': compress is a "
          "compression instruction; dmlrt runs singlenode CP and GPU plans");
    CHECK_THAT(
        make_error("CP°tee°X·MATRIX·FP64°Y·MATRIX·FP64"),
        Contains("tee is an out-of-core instruction; dmlrt runs singlenode CP and GPU plans"));
    CHECK_THAT(
        make_error("GPU°spoof°TMP1°X·MATRIX·FP64°Y·MATRIX·FP64"),
        Contains(": spoof is a code generation instruction; dmlrt runs singlenode CP and GPU "
                 "plans"));
    // A frame instruction also says that frames are a later issue.
    CHECK_THAT(make_error("CP°transformapply°target=F°meta=M°spec=s°_mVar1·MATRIX·FP64"),
               Contains(": transformapply is a frame instruction; dmlrt runs singlenode CP and GPU "
                        "plans (frames are not supported yet)"));
    // Plan lines are matched without case, the message spells the opcode as SystemDS does.
    CHECK_THAT(make_error("CP°MAPLEFTINDEX°X·MATRIX·FP64°Y·MATRIX·FP64"),
               Contains(": mapLeftIndex is a Spark-only instruction"));
  }
  SECTION("in a plan") {
    CHECK(plan_error(
              "--MAIN PROGRAM\n----GENERIC\n------CP°decompress°X·MATRIX·FP64°Y·MATRIX·FP64\n") ==
          "plan.plan:3: instruction 'CP°decompress°X·MATRIX·FP64°Y·MATRIX·FP64': decompress is a "
          "compression instruction; dmlrt runs singlenode CP and GPU plans");
  }
  SECTION("an opcode nobody has stays unknown") {
    CHECK(make_error("CP°frobnicate°X·MATRIX·FP64°Y·MATRIX·FP64") ==
          "x.plan:7: instruction 'CP°frobnicate°X·MATRIX·FP64°Y·MATRIX·FP64': unknown opcode "
          "'frobnicate'");
  }
}

TEST_CASE("frame lines fail when they run, saying frames are not supported yet, naming the line",
          "[opcodes]") {
  // Note [Frames in plans]: the plan loads; the frame line fails where it runs, after the lines
  // before it, and a frame line that never runs costs nothing.
  const std::string head =
      "--MAIN PROGRAM\n----GENERIC\n"
      "------CP°print°before·SCALAR·STRING·true°_p·SCALAR·STRING°2\n";
  const std::string tail = "------CP°print°after·SCALAR·STRING·true°_q·SCALAR·STRING°2\n";
  auto check = [&](const std::string& line, const std::string& message) {
    CHECK(plan_error(head + line + tail).empty());
    std::ostringstream out;
    CHECK(run_error(head + line + tail, out) == message);
    CHECK(out.str() == "before\n");
  };
  SECTION("an operand, raw and explain form") {
    check("------CP°nrow°F·FRAME·STRING°n·SCALAR·INT64\n",
          "plan.plan:4: instruction 'CP°nrow°F·FRAME·STRING°n·SCALAR·INT64': operand "
          "'F·FRAME·STRING' is a frame: frames are not supported yet");
    check("------CP nrow F.FRAME.STRING n.SCALAR.INT64\n",
          "plan.plan:4: instruction 'CP°nrow°F·FRAME·STRING°n·SCALAR·INT64': operand "
          "'F·FRAME·STRING' is a frame: frames are not supported yet");
  }
  SECTION("a createvar of a frame") {
    check("------CP°createvar°F°in/F.csv°false°FRAME°csv°3°2°-1°-1°copy\n",
          "plan.plan:4: instruction 'CP°createvar°F°in/F.csv°false°FRAME°csv°3°2°-1°-1°copy': "
          "data type FRAME: frames are not supported yet");
  }
  SECTION("an instruction on a frame") {
    check("------CP°castdtf°X·MATRIX·FP64°F·FRAME·FP64°2\n",
          "plan.plan:4: instruction 'CP°castdtf°X·MATRIX·FP64°F·FRAME·FP64°2': castdtf is a frame "
          "instruction; dmlrt runs singlenode CP and GPU plans (frames are not supported yet)");
  }
  SECTION("a frame line in a branch that is not taken, and a function with a frame parameter") {
    const std::string plan =
        "--FUNCTIONS\n----FUNCTION ns::f [in=F·FRAME·STRING] [out=]\n------GENERIC\n"
        "--------CP°rmvar°F\n--MAIN PROGRAM\n----IF\n------CP°assignvar°false·SCALAR·BOOLEAN·true°"
        "__pred·SCALAR·BOOLEAN\n------GENERIC\n--------CP°createvar°F°in/F.csv°false°FRAME°csv°3°2°"
        "-1°-1°copy\n----GENERIC\n" + tail;
    std::ostringstream out;
    CHECK(run_error(plan, out).empty());
    CHECK(out.str() == "after\n");
  }
  SECTION("other out-of-scope opcodes still stop the plan at load") {
    CHECK_THAT(plan_error(head + "------CP°decompress°X·MATRIX·FP64°Y·MATRIX·FP64\n"),
               Contains("decompress is a compression instruction"));
  }
}
