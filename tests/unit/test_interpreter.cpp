// Interpreter: IF/ELSE, WHILE, FOR (positive, negative, implicit increments; truncation), PARFOR,
// nesting, exit instructions, function calls (named, positional, multiple returns, recursion),
// statistics and the location prefix of errors. The plans use only variable and control
// instructions, so loops count with boolean shift registers instead of arithmetic.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "common/test_paths.h"
#include "gpu_context/error.h"
#include "instructions/opcode_table.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"

using namespace dmlrt;
using namespace dmlrt::runtime;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string kHead = "PROGRAM\n--MAIN PROGRAM\n";

// A parsed plan with its interpreter and a context; print output lands in `out`.
struct PlanRun {
  explicit PlanRun(const std::string& text)
      : program(parse_plan(text, "t.plan")), interp(program, out, &stats), ec(interp, {}) {}
  std::string run() {
    interp.run(ec);
    return out.str();
  }
  Program program;
  std::ostringstream out;
  Statistics stats;
  Interpreter interp;
  inst::ExecutionContext ec;
};

std::string run_plan(const std::string& text) { return PlanRun(text).run(); }

// The message of the error running `text` throws ("" when it runs).
std::string run_error(const std::string& text) {
  try {
    run_plan(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string print_line(const std::string& operand) {
  return "CP°print°" + operand + "°_Vp·SCALAR·STRING°2\n";
}

std::string pred(const std::string& value, const std::string& type) {
  return "CP°assignvar°" + value + "·SCALAR·" + type + "·true°__pred·SCALAR·" + type + "\n";
}

// FOR (or PARFOR) over from/to[/incr] literals printing the loop variable as `vt`.
std::string for_plan(const std::string& kind, const std::string& from, const std::string& to,
                     const std::string& incr, const std::string& vt = "INT64",
                     const std::string& type = "INT64") {
  std::string s = kHead + "----" + kind + " (lines 1-3) [iter=i]\n------FROM\n------" +
                  pred(from, type) + "------TO\n------" + pred(to, type);
  if (!incr.empty()) s += "------INCR\n------" + pred(incr, type);
  s += "------GENERIC\n--------" + print_line("i·SCALAR·" + vt + "·false");
  return s;
}

}  // namespace

TEST_CASE("GENERIC blocks run in order and every instruction is timed", "[interpreter]") {
  PlanRun r(kHead +
            "----GENERIC\n"
            "------CP°assignvar°hi·SCALAR·STRING·true°x·SCALAR·STRING\n"
            "------" +
            print_line("x·SCALAR·STRING·false") +
            "----GENERIC\n"
            "------" +
            print_line("3·SCALAR·INT64·true"));
  CHECK(r.run() == "hi\n3\n");
  CHECK(r.stats.entries().at("print").count == 2);
  CHECK(r.stats.entries().at("assignvar").count == 1);
  CHECK(r.stats.entries().at("print").seconds >= 0.0);
}

TEST_CASE("IF runs the then or the else branch and removes __pred", "[interpreter]") {
  auto plan = [](const std::string& value, const std::string& type) {
    return kHead + "----IF (lines 1-5)\n------" + pred(value, type) + "------GENERIC\n--------" +
           print_line("then·SCALAR·STRING·true") + "----ELSE\n------GENERIC\n--------" +
           print_line("else·SCALAR·STRING·true") + "------" + print_line("exit·SCALAR·STRING·true");
  };
  CHECK(run_plan(plan("true", "BOOLEAN")) == "then\nexit\n");
  CHECK(run_plan(plan("false", "BOOLEAN")) == "else\nexit\n");
  // numeric predicates: nonzero is true
  CHECK(run_plan(plan("2", "INT64")) == "then\nexit\n");
  CHECK(run_plan(plan("0", "INT64")) == "else\nexit\n");
  CHECK(run_plan(plan("0.5", "FP64")) == "then\nexit\n");
  CHECK(run_plan(plan("0.0", "FP64")) == "else\nexit\n");
  CHECK(run_plan(plan("TRUE", "STRING")) == "then\nexit\n");

  PlanRun r(plan("true", "BOOLEAN"));
  r.run();
  CHECK_FALSE(r.ec.contains("__pred"));

  // without ELSE, a false predicate runs nothing but the exit instructions
  CHECK(run_plan(kHead + "----IF\n------" + pred("false", "BOOLEAN") + "------GENERIC\n--------" +
                 print_line("then·SCALAR·STRING·true")) == "");
}

TEST_CASE("bad predicates fail with the block's location", "[interpreter]") {
  CHECK(run_error(kHead + "----IF (lines 1-2)\n"
                          "------CP°assignvar°true·SCALAR·BOOLEAN·true°p·SCALAR·BOOLEAN\n"
                          "------GENERIC\n--------CP°rmvar°p\n") ==
        "t.plan:3: IF (lines 1-2): the predicate instructions did not set __pred");
  CHECK(run_error(kHead + "----WHILE\n------" + pred("maybe", "STRING") +
                  "------GENERIC\n--------CP°rmvar°x\n") ==
        "t.plan:3: WHILE: predicate: cannot convert string 'maybe' to a boolean");
}

TEST_CASE("WHILE re-evaluates its predicate each iteration", "[interpreter]") {
  // p1 <- p2 <- p3 = false: the predicate p1 holds for two iterations.
  const std::string plan = kHead +
                           "----GENERIC\n"
                           "------CP°assignvar°true·SCALAR·BOOLEAN·true°p1·SCALAR·BOOLEAN\n"
                           "------CP°assignvar°true·SCALAR·BOOLEAN·true°p2·SCALAR·BOOLEAN\n"
                           "------CP°assignvar°false·SCALAR·BOOLEAN·true°p3·SCALAR·BOOLEAN\n"
                           "----WHILE (lines 2-5)\n"
                           "------CP°assignvar°p1·SCALAR·BOOLEAN·false°_Var1·SCALAR·BOOLEAN\n"
                           "------CP°mvvar°_Var1°__pred\n"
                           "------GENERIC\n"
                           "--------" +
                           print_line("w·SCALAR·STRING·true") +
                           "--------CP°cpvar°p2°p1\n"
                           "--------CP°cpvar°p3°p2\n"
                           "------" +
                           print_line("done·SCALAR·STRING·true");
  PlanRun r(plan);
  CHECK(r.run() == "w\nw\ndone\n");
  CHECK(r.stats.entries().at("mvvar").count == 3);  // the predicate ran 3 times
  CHECK_FALSE(r.ec.contains("__pred"));

  // a predicate that is false at once never runs the body
  CHECK(run_plan(kHead + "----WHILE\n------" + pred("false", "BOOLEAN") +
                 "------GENERIC\n--------" + print_line("w·SCALAR·STRING·true")) == "");
}

TEST_CASE("FOR ranges: positive, negative, implicit and stepped increments", "[interpreter]") {
  CHECK(run_plan(for_plan("FOR", "1", "3", "")) == "1\n2\n3\n");
  CHECK(run_plan(for_plan("FOR", "1", "3", "1")) == "1\n2\n3\n");
  CHECK(run_plan(for_plan("FOR", "3", "1", "-1")) == "3\n2\n1\n");
  // no INCR list: -1 when from > to (SystemDS's rule)
  CHECK(run_plan(for_plan("FOR", "3", "1", "")) == "3\n2\n1\n");
  CHECK(run_plan(for_plan("FOR", "1", "6", "2")) == "1\n3\n5\n");
  CHECK(run_plan(for_plan("FOR", "10", "1", "-4")) == "10\n6\n2\n");
  CHECK(run_plan(for_plan("FOR", "-2", "-1", "")) == "-2\n-1\n");
  CHECK(run_plan(for_plan("FOR", "5", "5", "")) == "5\n");
  // an increment pointing away from `to` runs nothing
  CHECK(run_plan(for_plan("FOR", "1", "3", "-1")) == "");
  CHECK(run_plan(for_plan("FOR", "3", "1", "1")) == "");
}

TEST_CASE("FOR truncates bounds and increment to INT64, as SystemDS does", "[interpreter]") {
  // Expected values from SystemDS 3.4: `for (i in a:2.5)` with a = 0.5 prints 0 1 2, and
  // `for (j in seq(1, 3, z))` with an increment that truncates to 0 prints nothing.
  CHECK(run_plan(for_plan("FOR", "1.0", "3.0", "", "INT64", "FP64")) == "1\n2\n3\n");
  CHECK(run_plan(for_plan("FOR", "0.5", "2.5", "", "INT64", "FP64")) == "0\n1\n2\n");
  CHECK(run_plan(for_plan("FOR", "1", "3", "0.25", "INT64", "FP64")) == "");
  CHECK(run_plan(for_plan("FOR", "3", "1", "-1.5", "INT64", "FP64")) == "3\n2\n1\n");

  PlanRun r(for_plan("FOR", "1", "3", ""));
  r.run();
  CHECK(r.ec.scalar("i").type() == inst::ValueType::kINT64);
  CHECK(r.ec.scalar("i").to_int() == 3);
  PlanRun f(for_plan("FOR", "0.5", "1.5", "", "INT64", "FP64"));
  f.run();
  CHECK(f.ec.scalar("i").type() == inst::ValueType::kINT64);
  CHECK(f.ec.scalar("i").to_int() == 1);
}

TEST_CASE("FOR errors: non-numeric and non-finite bounds, missing __pred", "[interpreter]") {
  CHECK(run_plan(for_plan("FOR", "1", "3", "0")) == "");
  CHECK(run_error(for_plan("FOR", "a", "3", "", "INT64", "STRING")) ==
        "t.plan:3: FOR (lines 1-3) [iter=i]: the 'from' value is STRING 'a', expected a number");
  CHECK(run_error(for_plan("PARFOR", "1", "Infinity", "", "INT64", "FP64")) ==
        "t.plan:3: PARFOR (lines 1-3) [iter=i]: the 'to' value must be finite, got Infinity");
  CHECK(run_error(kHead + "----FOR [iter=i]\n------FROM\n------CP°rmvar°x\n------TO\n------" +
                  pred("3", "INT64") + "------GENERIC\n--------CP°rmvar°x\n") ==
        "t.plan:3: FOR [iter=i]: the from instructions did not set __pred");
}

TEST_CASE("PARFOR runs its iterations in order, like FOR", "[interpreter]") {
  CHECK(run_plan(for_plan("PARFOR", "1", "4", "")) == "1\n2\n3\n4\n");
  CHECK(run_plan(for_plan("PARFOR", "4", "1", "")) == "4\n3\n2\n1\n");
}

TEST_CASE("nested loops and exit instructions", "[interpreter]") {
  const std::string plan = kHead +
                           "----FOR [iter=i]\n"
                           "------FROM\n------" +
                           pred("1", "INT64") + "------TO\n------" + pred("2", "INT64") +
                           "------FOR [iter=j]\n"
                           "--------FROM\n--------" +
                           pred("1", "INT64") + "--------TO\n--------" + pred("2", "INT64") +
                           "--------GENERIC\n"
                           "----------" +
                           print_line("i·SCALAR·INT64·false") + "----------" +
                           print_line("j·SCALAR·INT64·false") + "--------" +
                           print_line("inner·SCALAR·STRING·true") +
                           "--------CP°rmvar°j\n"
                           "------" +
                           print_line("outer·SCALAR·STRING·true") + "------CP°rmvar°i\n";
  PlanRun r(plan);
  CHECK(r.run() == "1\n1\n1\n2\ninner\n2\n1\n2\n2\ninner\nouter\n");
  CHECK_FALSE(r.ec.contains("i"));
  CHECK_FALSE(r.ec.contains("j"));
  // a loop that runs no iteration still runs its exit instructions once
  CHECK(run_plan(kHead + "----FOR [iter=i]\n------FROM\n------" + pred("3", "INT64") +
                 "------TO\n------" + pred("1", "INT64") + "------INCR\n------" +
                 pred("1", "INT64") + "------GENERIC\n--------" +
                 print_line("body·SCALAR·STRING·true") + "------" +
                 print_line("exit·SCALAR·STRING·true")) == "exit\n");
}

TEST_CASE("the fixture plan file runs", "[interpreter]") {
  const Program p =
      parse_plan_file(dmlrt::test::test_data_dir() + "/unit/data/parser/loops.plan");
  std::ostringstream out;
  Interpreter in(p, out);
  inst::ExecutionContext ec(in, {});
  in.run(ec);
  CHECK(out.str() == "3\n2\n1\nw\nw\n");
}

namespace {

// f(X, b) returns (Y = X, s = b); g() returns a message; rec recurses while its first flag holds.
const std::string kFunctions =
    "PROGRAM\n--FUNCTIONS\n"
    "----FUNCTION .defaultNS::f [in=X·MATRIX·FP64,b·SCALAR·FP64] "
    "[out=Y·MATRIX·FP64,s·SCALAR·FP64]\n"
    "------GENERIC (lines 2-3)\n"
    "--------CP°cpvar°X°Y\n"
    "--------CP°assignvar°b·SCALAR·FP64·false°s·SCALAR·FP64\n"
    "----FUNCTION .defaultNS::rec [in=a·SCALAR·BOOLEAN,b·SCALAR·BOOLEAN,c·SCALAR·BOOLEAN] "
    "[out=r·SCALAR·STRING]\n"
    "------IF (lines 5-9)\n"
    "--------CP°assignvar°a·SCALAR·BOOLEAN·false°__pred·SCALAR·BOOLEAN\n"
    "--------GENERIC\n"
    "----------CP°print°level·SCALAR·STRING·true°_Var1·SCALAR·STRING\n"
    "----------CP°FCall°.defaultNS°rec°true°3°1°a=b·SCALAR·BOOLEAN·false°"
    "b=c·SCALAR·BOOLEAN·false°c=false·SCALAR·BOOLEAN·true°r\n"
    "------ELSE\n"
    "--------GENERIC\n"
    "----------CP°assignvar°base·SCALAR·STRING·true°r·SCALAR·STRING\n"
    "----FUNCTION .defaultNS::forever [in=x·SCALAR·INT64] [out=y·SCALAR·INT64]\n"
    "------GENERIC\n"
    "--------CP°FCall°.defaultNS°forever°true°1°1°x=x·SCALAR·INT64·false°y\n"
    "----FUNCTION .defaultNS::noret [in=] [out=y·SCALAR·INT64]\n"
    "------GENERIC\n"
    "--------CP°assignvar°1·SCALAR·INT64·true°z·SCALAR·INT64\n"
    "----FUNCTION .defaultNS::boom [in=m·SCALAR·STRING] [out=y·SCALAR·INT64]\n"
    "------GENERIC (lines 20-21)\n"
    "--------CP°assignvar°1·SCALAR·INT64·true°y·SCALAR·INT64\n"
    "--------CP°stop°m·SCALAR·STRING·false°_Var9·SCALAR·STRING\n"
    "--MAIN PROGRAM\n"
    "----GENERIC (lines 30-40)\n";

}  // namespace

TEST_CASE("function calls bind named and positional arguments and return several values",
          "[interpreter]") {
  PlanRun r(kFunctions +
            "------CP°FCall°.defaultNS°f°true°2°2°X=A·MATRIX·FP64°b=2.5·SCALAR·FP64·true°B°t\n"
            "------" +
            print_line("t·SCALAR·FP64·false") +
            // named arguments in another order, a scalar variable argument
            "------CP°assignvar°4·SCALAR·INT64·true°k·SCALAR·INT64\n"
            "------CP°FCall°.defaultNS°f°true°2°2°b=k·SCALAR·INT64·false°X=B·MATRIX·FP64°C°u\n"
            "------" +
            print_line("u·SCALAR·FP64·false") +
            // positional arguments (a dmlrt extension), binding only the first output
            "------CP°FCall°.defaultNS°f°true°2°1°A·MATRIX·FP64°7·SCALAR·INT64·true°D\n");
  const auto a = std::make_shared<kernels::MatrixBlock>(kernels::MatrixBlock::dense(2, 2, 1.5));
  r.ec.set_matrix("A", a);
  CHECK(r.run() == "2.5\n4.0\n");  // INT64 4 became the FP64 parameter b
  CHECK(r.ec.matrix("B") == r.ec.matrix("A"));
  CHECK(r.ec.matrix("C") == r.ec.matrix("A"));
  CHECK(r.ec.matrix("D") == r.ec.matrix("A"));
  CHECK_FALSE(r.ec.contains("X"));  // the function's variables stay in its own context
  CHECK_FALSE(r.ec.contains("s"));
  CHECK(r.stats.entries().at("f").count == 3);  // heavy hitters list calls by function name
  CHECK(r.interp.function_outputs(".defaultNS::f") == std::vector<std::string>{"Y", "s"});
}

TEST_CASE("recursive function calls", "[interpreter]") {
  PlanRun r(kFunctions +
            "------CP°FCall°.defaultNS°rec°true°3°1°a=true·SCALAR·BOOLEAN·true°"
            "b=true·SCALAR·BOOLEAN·true°c=false·SCALAR·BOOLEAN·true°res\n"
            "------" +
            print_line("res·SCALAR·STRING·false"));
  CHECK(r.run() == "level\nlevel\nbase\n");
  CHECK(r.stats.entries().at("rec").count == 3);

  const std::string msg = run_error(
      kFunctions + "------CP°FCall°.defaultNS°forever°true°1°1°x=1·SCALAR·INT64·true°y\n");
  CHECK_THAT(msg, StartsWith("t.plan:18: instruction 'CP°FCall°.defaultNS°forever°true°1°1°"
                             "x=x·SCALAR·INT64·false°y': recursion depth exceeded: more than "));
  CHECK_THAT(msg, Contains("nested function calls (calling .defaultNS::forever)"));
}

TEST_CASE("function call errors", "[interpreter]") {
  CHECK(run_error(kFunctions + "------CP°FCall°.defaultNS°noret°true°0°1°v\n") ==
        "t.plan:28: instruction 'CP°FCall°.defaultNS°noret°true°0°1°v': function "
        ".defaultNS::noret: output 'y' was never set");
  CHECK(run_error(kFunctions +
                  "------CP°FCall°.defaultNS°f°true°2°2°X=nosuch·MATRIX·FP64°b=1·SCALAR·FP64·true°"
                  "B°t\n") ==
        "t.plan:28: instruction 'CP°FCall°.defaultNS°f°true°2°2°X=nosuch·MATRIX·FP64°"
        "b=1·SCALAR·FP64·true°B°t': input variable 'nosuch' is not defined on call of "
        ".defaultNS::f");
  CHECK_THAT(run_error(kFunctions + "------CP°assignvar°1·SCALAR·INT64·true°n·SCALAR·INT64\n"
                                    "------CP°FCall°.defaultNS°f°true°2°2°X=n·SCALAR·INT64·false°"
                                    "b=1·SCALAR·FP64·true°B°t\n"),
             Contains("function .defaultNS::f: input 'X' expects a matrix, got a scalar"));

  // an error inside a function names the function's instruction, once
  const std::string msg = run_error(
      kFunctions + "------CP°FCall°.defaultNS°boom°true°1°1°m=bad·SCALAR·STRING·true°v\n");
  CHECK(msg ==
        "t.plan:25: instruction 'CP°stop°m·SCALAR·STRING·false°_Var9·SCALAR·STRING': "
        "stop: bad");

  // the services directly
  std::ostringstream out;
  const Program p = parse_plan(kFunctions, "t.plan");
  Interpreter in(p, out);
  REQUIRE_THROWS_WITH(in.call_function("x::y", {}, {}), "unknown function 'x::y'");
  REQUIRE_THROWS_WITH(in.function_outputs("x::y"), "unknown function 'x::y'");
  REQUIRE_THROWS_WITH(in.call_function(".defaultNS::boom", {}, {}),
                      "function .defaultNS::boom: input 'm' is not bound");
  REQUIRE_THROWS_WITH(in.call_function(".defaultNS::boom", {"q"}, {inst::ScalarValue::string("x")}),
                      "function .defaultNS::boom has no input named 'q'");
  REQUIRE_THROWS_WITH(
      in.call_function(".defaultNS::boom", {"m", "m"},
                       {inst::ScalarValue::string("x"), inst::ScalarValue::string("y")}),
      "function .defaultNS::boom: input 'm' is bound twice");
  REQUIRE_THROWS_WITH(in.call_function(".defaultNS::noret", {""}, {inst::ScalarValue::int64(1)}),
                      "function .defaultNS::noret takes 0 inputs, got 1");
}

TEST_CASE("instruction errors carry the plan location once", "[interpreter]") {
  CHECK(run_error(kHead + "----GENERIC (lines 1-1)\n"
                          "------CP°assignvar°1·SCALAR·INT64·true°x·SCALAR·INT64\n"
                          "------CP°stop°oops·SCALAR·STRING·true°_Var1·SCALAR·STRING\n") ==
        "t.plan:5: instruction 'CP°stop°oops·SCALAR·STRING·true°_Var1·SCALAR·STRING': stop: oops");
  CHECK(run_error(kHead + "----GENERIC\n------" + print_line("nope·SCALAR·STRING·false")) ==
        "t.plan:4: instruction 'CP°print°nope·SCALAR·STRING·false°_Vp·SCALAR·STRING°2': variable "
        "'nope' is not defined");
  // the error keeps its type
  REQUIRE_THROWS_AS(
      run_plan(kHead + "----GENERIC\n------CP°stop°x·SCALAR·STRING·true°_V·SCALAR·STRING\n"),
      RuntimeError);
  // errors inside loops too
  CHECK_THAT(run_error(for_plan("FOR", "1", "2", "", "INT64") +
                       "--------CP°stop°i·SCALAR·INT64·false°_V·SCALAR·STRING\n"),
             StartsWith("t.plan:10: instruction 'CP°stop°i·SCALAR·INT64·false°_V·SCALAR·STRING': "
                        "stop: 1"));
}

TEST_CASE("SystemDS explain output runs: WHILE, FOR with IF, recursion", "[interpreter]") {
  // SystemDS 3.4 `-explain runtime` of a script with a recursive factorial, a WHILE sum and a FOR
  // over 10:1 with `if (k %% 3 == 0)`; FUNCTION [in=][out=] and FOR [iter=] FROM/TO/INCR added.
  // SystemDS prints 33 and 3628800.
  const char* plan = R"(# EXPLAIN (RUNTIME):
PROGRAM ( size CP/MR = 32/0 )
--FUNCTIONS
----FUNCTION CALL GRAPH
------MAIN PROGRAM
--------.defaultNS::fact
----------.defaultNS::fact (recursive)
----FUNCTION .defaultNS::fact [recompile=false] [in=n.SCALAR.INT64] [out=r.SCALAR.INT64]
------IF (lines 2-6)
--------CP <= n.SCALAR.INT64.false 1.SCALAR.INT64.true _Var0.SCALAR.BOOLEAN
--------CP mvvar _Var0 __pred
--------GENERIC (lines 2-2) [recompile=false]
----------CP assignvar 1.SCALAR.INT64.true r.SCALAR.INT64
------ELSE
--------GENERIC (lines 4-4) [recompile=false]
----------CP - n.SCALAR.INT64.false 1.SCALAR.INT64.true _Var1.SCALAR.INT64
----------CP FCall .defaultNS fact true 1 1 n=_Var1.SCALAR.INT64.false t
----------CP rmvar _Var1
--------GENERIC (lines 5-5) [recompile=false]
----------CP * n.SCALAR.INT64.false t.SCALAR.INT64.false _Var2.SCALAR.INT64
----------CP mvvar _Var2 r
----------CP rmvar t n
--------CP rmvar n
--MAIN PROGRAM
----GENERIC (lines 8-9) [recompile=false]
------CP assignvar 0.SCALAR.INT64.true i.SCALAR.INT64
------CP assignvar 0.SCALAR.INT64.true s.SCALAR.INT64
----WHILE (lines 10-13) [in-place=[], recompile=true]
------CP < i.SCALAR.INT64.false 5.SCALAR.INT64.true _Var3.SCALAR.BOOLEAN
------CP mvvar _Var3 __pred
------GENERIC (lines 11-12) [recompile=false]
--------CP + i.SCALAR.INT64.false 1.SCALAR.INT64.true _Var4.SCALAR.INT64
--------CP + s.SCALAR.INT64.false _Var4.SCALAR.INT64.false _Var5.SCALAR.INT64
--------CP assignvar _Var4.SCALAR.INT64.false i.SCALAR.INT64
--------CP assignvar _Var5.SCALAR.INT64.false s.SCALAR.INT64
--------CP rmvar _Var4 _Var5
------CP rmvar i
----FOR (lines 0-0) [in-place=[], recompile=true, iter=k]
------FROM
------CP assignvar 10.SCALAR.INT64.true __pred.SCALAR.INT64
------TO
------CP assignvar 1.SCALAR.INT64.true __pred.SCALAR.INT64
------INCR
------CP assignvar -1.SCALAR.INT64.true __pred.SCALAR.INT64
------IF (lines 15-15)
--------CP %% k.SCALAR.INT64.false 3.SCALAR.INT64.true _Var6.SCALAR.INT64
--------CP == _Var6.SCALAR.INT64.false 0.SCALAR.INT64.true _Var7.SCALAR.BOOLEAN
--------CP rmvar _Var6
--------CP mvvar _Var7 __pred
--------GENERIC (lines 15-15) [recompile=false]
----------CP + s.SCALAR.INT64.false k.SCALAR.INT64.false _Var8.SCALAR.INT64
----------CP mvvar _Var8 s
------CP rmvar k
----GENERIC (lines 17-18) [recompile=false]
------CP print s.SCALAR.INT64.false _Var9.SCALAR.STRING 2
------CP FCall .defaultNS fact true 1 1 n=10.SCALAR.INT64.true f
------CP rmvar _Var9 s
----GENERIC (lines 19-19) [recompile=false]
------CP print f.SCALAR.INT64.false _Var10.SCALAR.STRING 2
------CP rmvar _Var10 f
)";
  PlanRun r(plan);
  CHECK(r.run() == "33\n3628800\n");
  CHECK(r.stats.entries().at("fact").count == 10);
  CHECK(r.ec.names().empty());  // every variable was removed by the plan's rmvars
}

// Note [Read time]: an input read when an instruction first needs it is -stats' "Input read time"
// line, with its bytes, and not part of that instruction's time.
TEST_CASE("interpreter: a lazy read is counted on its own line, not in the instruction's time",
          "[interpreter][stats]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("dmlrt_read_time_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path csv = dir / "x.csv";
  {
    std::ofstream f(csv);
    for (int r = 0; r < 20000; ++r) f << r << "," << r * 0.5 << "," << -r << "\n";
  }
  const auto bytes = std::filesystem::file_size(csv);
  PlanRun run(kHead + "----GENERIC (lines 1-2) [recompile=false]\n"
                      "------CP°createvar°X°" + csv.string() +
              "°false°MATRIX°csv°20000°3°-1°-1°copy\n"
              "------CP°uak+°X·MATRIX·FP64°s·SCALAR·FP64°1\n"
              "------CP°print°s·SCALAR·FP64°_Vp·SCALAR·STRING°2\n");
  CHECK(run.run() == "9.9995E7\n");  // half the sum of 0..19999
  std::ostringstream os;
  run.stats.print(os, 10);
  CHECK_THAT(os.str(), Contains("Input read time:\t\t"));
  CHECK_THAT(os.str(), Contains(" sec (1 input, " + std::to_string(bytes) + " bytes).\n"));
  // The sum of 60000 numbers takes microseconds; parsing 400 KB of CSV takes far longer. The
  // instruction's time leaves the parse out: below the read's own time.
  const auto& e = run.stats.entries().at("uak+");
  CHECK(e.count == 1);
  std::smatch m;
  const std::string text = os.str();
  REQUIRE(std::regex_search(text, m, std::regex(R"(Input read time:\s+(\d+\.\d+) sec)")));
  CHECK(e.seconds <= std::stod(m[1]) + 1e-3);
  std::filesystem::remove_all(dir);
}

// Note [Instruction ranges for the profiler]: the label of each instruction's NVTX range.
TEST_CASE("interpreter: profiler labels name the -stats name and the plan line",
          "[interpreter][profiler]") {
  const Program p = parse_plan(kHead + "----GENERIC (lines 1-2) [recompile=false]\n------" +
                                   print_line("7·SCALAR·INT64·true"),
                               "t.plan");
  const inst::Instruction& print = *p.main.at(0)->instructions.at(0);
  CHECK(instruction_label(print) == "print (line 4)");
  auto unlocated = inst::make_instruction(
      inst::InstructionText::parse("CP°print°7·SCALAR·INT64·true°_Vp·SCALAR·STRING°2"));
  CHECK(instruction_label(*unlocated) == "print");
  bool registered = true;
  CHECK(unlocated->profiler_label(&registered) == nullptr);
  CHECK_FALSE(registered);
  int handle = 0;
  unlocated->set_profiler_label(&handle);
  CHECK(unlocated->profiler_label(&registered) == &handle);
  CHECK(registered);
}
