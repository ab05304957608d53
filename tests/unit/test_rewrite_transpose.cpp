// The transpose pass of the plan rewrites (Note [Folding transposes into ba+*]): r' X T followed
// by ba+* reading T becomes ba+* on X with a transpose flag where T is dead and X unchanged in
// between, on either side and over existing flags; it is left alone where T is read again, lives
// on, X may be written in between, or the lines differ in execution type; results match the
// unrewritten plan; the config key turns it off.
#include <catch2/catch.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/compare.h"
#include "runtime/config.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"
#include "runtime/plan_rewrites.h"

using namespace dmlrt;
using namespace dmlrt::runtime;
using kernels::MatrixBlock;

namespace {

std::string plan_of(const std::string& body) {
  std::string s = "PROGRAM\n--MAIN PROGRAM\n----GENERIC (lines 1-9) [recompile=true]\n";
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) s += "------" + line + "\n";
  return s;
}

const std::string kM = "·MATRIX·FP64";

// createvar T; r' X T; createvar C; <between>; ba+* <left> <right> C°2[<flags>]; <after>; rmvar T
std::string pattern(const std::string& left, const std::string& right,
                    const std::string& between = "", const std::string& after = "",
                    const std::string& flags = "", const std::string& mm_exec = "CP") {
  return "CP°createvar°T°scratch_space/t°true°MATRIX°binary°-1°-1°1000°-1°copy\n"
         "CP°r'°X" + kM + "°T" + kM + "°2\n"
         "CP°createvar°C°scratch_space/c°true°MATRIX°binary°-1°-1°1000°-1°copy\n" +
         between + mm_exec + "°ba+*°" + left + kM + "°" + right + kM + "°C" + kM + "°2" + flags +
         "\n" + after + "CP°rmvar°T\n";
}

int folds(Program& p, bool on = true) {
  RuntimeConfig c;
  REQUIRE(apply_config_key(c, "dmlrt.rewrite.fold_transpose", on ? "true" : "false"));
  return apply_plan_rewrites(p, c).transposes_folded;
}

std::vector<std::string> opcodes(const Program& p) {
  std::vector<std::string> ops;
  for (const auto& i : p.main.at(0)->instructions) ops.push_back(i->opcode());
  return ops;
}

const inst::Instruction& matmult(const Program& p) {
  for (const auto& i : p.main.at(0)->instructions)
    if (i->opcode() == "ba+*") return *i;
  FAIL("no ba+*");
  throw;
}

MatrixBlock random_block(int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<double> v(static_cast<size_t>(rows * cols));
  for (double& x : v) x = nd(rng);
  return MatrixBlock::dense(rows, cols, std::move(v));
}

MatrixBlock run_for_c(const Program& p, const MatrixBlock& x, const MatrixBlock& b) {
  std::ostringstream out;
  Interpreter interp(p, out, nullptr);
  inst::ExecutionContext ec(interp, {});
  ec.set_matrix("X", x);
  ec.set_matrix("B", b);
  interp.run(ec);
  CHECK(ec.find("T") == nullptr);
  return *ec.matrix("C");
}

}  // namespace

TEST_CASE("rewrite: r' X T; ba+* T B becomes ba+* X B with the left flag", "[rewrite]") {
  const std::string plan = plan_of(pattern("T", "B"));
  Program p = parse_plan(plan, "t.plan");
  CHECK(folds(p) == 1);
  CHECK(opcodes(p) == std::vector<std::string>{"createvar", "createvar", "ba+*", "rmvar"});
  CHECK(matmult(p).text().raw == "CP°ba+*°X" + kM + "°B" + kM + "°C" + kM + "°2°true°false");
  CHECK(matmult(p).text().loc.line == 7);  // the ba+*'s own line
  // Same values as the plan as written (OpenBLAS multiplies the stored X transposed).
  const MatrixBlock x = random_block(300, 17, 1), b = random_block(300, 5, 2);
  const MatrixBlock ref = run_for_c(parse_plan(plan, "t.plan"), x, b);
  const auto cmp = test::compare(run_for_c(p, x, b), ref);
  INFO(cmp.report);
  CHECK(cmp.ok);
  // t(X) %*% v (a vector product) likewise.
  const MatrixBlock v = random_block(300, 1, 3);
  const auto cv = test::compare(run_for_c(p, x, v), run_for_c(parse_plan(plan, "t.plan"), x, v));
  INFO(cv.report);
  CHECK(cv.ok);
}

TEST_CASE("rewrite: T on the right, and over existing flags", "[rewrite]") {
  Program right = parse_plan(plan_of(pattern("B", "T")), "t.plan");
  CHECK(folds(right) == 1);
  CHECK(matmult(right).text().fields[1] == "X" + kM);
  CHECK(matmult(right).text().fields[4] == "false");
  CHECK(matmult(right).text().fields[5] == "true");
  // ba+* t(T) B where T = t(X): X untransposed.
  Program flipped = parse_plan(plan_of(pattern("T", "B", "", "", "°true°false")), "t.plan");
  CHECK(folds(flipped) == 1);
  CHECK(matmult(flipped).text().fields[4] == "false");
  const MatrixBlock x = random_block(7, 9, 4), b = random_block(9, 3, 5);  // t(t(X)) %*% B
  const auto cmp =
      test::compare(run_for_c(flipped, x, b),
                    run_for_c(parse_plan(plan_of(pattern("T", "B", "", "", "°true°false")), "t.plan"),
                              x, b));
  INFO(cmp.report);
  CHECK(cmp.ok);
}

TEST_CASE("rewrite: a transpose is kept where folding could be observed", "[rewrite]") {
  const std::string gpu = "GPU";
  struct Case {
    const char* why;
    std::string body;
  };
  const std::vector<Case> cases = {
      {"T on both sides", pattern("T", "T")},
      {"T read after the ba+*", pattern("T", "B", "", "CP°uak+°T" + kM + "°s·SCALAR·FP64°2\n")},
      {"X written in between (a binary op's output)",
       pattern("T", "B", "CP°+°B" + kM + "°B" + kM + "°X" + kM + "°2\n")},
      {"X moved over in between", pattern("T", "B", "CP°mvvar°B°X\n")},
      {"another execution type", pattern("T", "B", "", "", "", gpu)},
      {"T read in between", pattern("T", "B", "CP°uak+°T" + kM + "°s·SCALAR·FP64°2\n")},
  };
  for (const Case& c : cases) {
    INFO(c.why);
    Program p = parse_plan(plan_of(c.body), "t.plan");
    CHECK(folds(p) == 0);
    CHECK(opcodes(p)[1] == "r'");
  }
  // T not removed in the list: it lives on after the block.
  std::string live = pattern("T", "B");
  live.erase(live.find("CP°rmvar°T\n"));
  Program p = parse_plan(plan_of(live), "t.plan");
  CHECK(folds(p) == 0);
  // X read (not written) in between is fine.
  Program reads = parse_plan(
      plan_of(pattern("T", "B", "CP°ba+*°X" + kM + "°B" + kM + "°D" + kM + "°2\n")), "t.plan");
  CHECK(folds(reads) == 1);
}

TEST_CASE("rewrite: dmlrt.rewrite.fold_transpose=false keeps every r'", "[rewrite][config]") {
  Program p = parse_plan(plan_of(pattern("T", "B")), "t.plan");
  CHECK(folds(p, false) == 0);
  CHECK(opcodes(p)[1] == "r'");
  RuntimeConfig c;
  CHECK_THROWS_WITH(apply_config_key(c, "dmlrt.rewrite.fold_transpose", "maybe"),
                    Catch::Contains("dmlrt.rewrite.fold_transpose"));
}
