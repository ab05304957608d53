// -explain's shape check (runtime::check_plan_shapes, Note [Instruction life cycle]) on plans: it
// finds a plan's shape errors from createvar sizes alone, lets unknown sizes pass, and finds none
// in any plan checked into the tests (SystemDS compiled them, so a report would be a false one).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "common/test_paths.h"
#include "runtime/explain.h"
#include "runtime/plan_parser.h"

namespace {

namespace fs = std::filesystem;
using dmlrt::runtime::check_plan_shapes;

const std::string kMat = "·MATRIX·FP64";

// A persistent read's createvar (override flag false): its sizes are the file's.
std::string read(const std::string& name, const std::string& rows, const std::string& cols) {
  return "------CP°createvar°" + name + "°in/" + name + ".csv°false°MATRIX°csv°" + rows + "°" +
         cols + "°-1°-1°copy\n";
}

// An intermediate's createvar: SystemDS's compile-time estimate, not used.
std::string temp(const std::string& name, const std::string& rows, const std::string& cols) {
  return "------CP°createvar°" + name + "°scratch/" + name + "°true°MATRIX°binary°" + rows + "°" +
         cols + "°1000°-1°copy\n";
}

std::string generic(const std::string& body) {
  return "PROGRAM\n--MAIN PROGRAM\n----GENERIC (lines 1-9) [recompile=false]\n" + body;
}

dmlrt::runtime::Program parse(const std::string& text) {
  return dmlrt::runtime::parse_plan(text, "test.plan");
}

}  // namespace

TEST_CASE("plan shape check: errors from known sizes, estimates and unknown sizes pass",
          "[explain]") {
  SECTION("cell-wise operands of read inputs that do not broadcast") {
    const auto errors = check_plan_shapes(parse(generic(
        read("A", "3", "4") + read("B", "2", "4") + temp("C", "3", "4") + "------CP°+°A" + kMat +
        "°B" + kMat + "°C" + kMat + "°8\n")));
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors[0], Catch::StartsWith("test.plan:7: instruction 'CP°+°"));
    CHECK_THAT(errors[0], Catch::Contains("+: incompatible shapes 3x4 and 2x4"));
  }
  SECTION("rand with literal sizes; cpvar and mvvar carry sizes, rmvar drops them") {
    const std::string body = temp("R", "-1", "-1") +
                             "------CP°rand°3·SCALAR·INT64·true°4°1000°0°1°1.0°7°uniform°1.0°8°R" +
                             kMat + "\n" + read("B", "4", "2") +
                             "------CP°cpvar°R°A2\n------CP°mvvar°B°B2\n" + temp("C", "3", "4") +
                             "------CP°ba+*°A2" + kMat + "°A2" + kMat + "°C" + kMat + "°8\n" +
                             "------CP°rmvar°A2\n" + "------CP°ba+*°A2" + kMat + "°B2" + kMat +
                             "°C" + kMat + "°8\n";
    const auto errors = check_plan_shapes(parse(generic(body)));
    REQUIRE(errors.size() == 1);  // the second ba+* reads A2 after its rmvar: unknown, passes
    CHECK_THAT(errors[0], Catch::Contains("ba+*: inner dimensions differ: 3x4 %*% 3x4"));
  }
  SECTION("intermediates' declared sizes are estimates and unknown sizes pass") {
    const auto errors = check_plan_shapes(parse(generic(
        temp("S", "12", "1") + temp("T", "4", "1") + "------CP°+°S" + kMat + "°T" + kMat +
        "°S" + kMat + "°8\n" + read("A", "-1", "4") + read("B", "2", "4") +
        "------CP°+°A" + kMat + "°B" + kMat + "°S" + kMat + "°8\n" + "------CP°ba+*°X" + kMat +
        "°B" + kMat + "°S" + kMat + "°8\n")));
    CHECK(errors.empty());
  }
}

TEST_CASE("plan shape check: no false reports on the checked-in plans", "[explain]") {
  const fs::path root = dmlrt::test::test_data_dir();
  int checked = 0;
  for (const char* dir : {"plans/cases", "conformance/cases"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      if (e.path().extension() != ".plan") continue;
      dmlrt::runtime::Program program;
      try {
        program = dmlrt::runtime::parse_plan_file(e.path().string());
      } catch (const std::exception&) {
        continue;  // plans that need -args, or fail to parse on purpose
      }
      INFO(e.path().string());
      const auto errors = check_plan_shapes(program);
      CHECK(errors.empty());
      for (const auto& m : errors) WARN(m);
      ++checked;
    }
  }
  CHECK(checked > 50);
}
