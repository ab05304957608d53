// Plan parser: every element of the block grammar (DESIGN.md §3), raw and explain renderings,
// ‡-joined lines, argument substitution, each parse error and its message, and the round trip
// parse -> print_explain -> parse. Explain-form lines are SystemDS 3.4 `-explain runtime` output.
#include <catch2/catch.hpp>
#include <sstream>

#include "common/test_paths.h"
#include "gpu_context/error.h"
#include "runtime/explain.h"
#include "runtime/plan_parser.h"

using namespace dmlrt;
using namespace dmlrt::runtime;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::string opcodes(const InstructionList& list) {
  std::string s;
  for (const auto& i : list) s += (s.empty() ? "" : " ") + i->opcode();
  return s;
}

std::string print(const Program& p, bool raw) {
  std::ostringstream os;
  print_explain(p, os, raw);
  return os.str();
}

// The message of the ParseError that parsing `text` throws ("" when it parses).
std::string parse_error(const std::string& text) {
  try {
    parse_plan(text, "plan.plan");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

// SystemDS 3.4 -explain runtime output of a small script, with the FOR/FUNCTION annotations added
// (and `*2 X 2 out k`, SystemDS's form of X * 2, written as the binary `*` with the same operands).
const char* kExplainPlan = R"(# EXPLAIN (RUNTIME):
# Memory Budget local/remote = 4220MB/?MB/?MB
# Degree of Parallelism (vcores) local/remote = 2/
PROGRAM ( size CP/MR = 49/0 )
--FUNCTIONS
----FUNCTION CALL GRAPH
------MAIN PROGRAM
--------.defaultNS::f
----FUNCTION .defaultNS::f [recompile=true] [in=X.MATRIX.FP64,b.SCALAR.FP64] [out=Y.MATRIX.FP64,s.SCALAR.FP64]
------GENERIC (lines 2-2) [recompile=false]
--------CP assignvar 0.SCALAR.INT64.true s.SCALAR.INT64
------FOR (lines 0-0) [iter=i]
--------FROM
--------CP assignvar 1.SCALAR.INT64.true __pred.SCALAR.INT64
--------TO
--------CP assignvar 3.SCALAR.INT64.true __pred.SCALAR.INT64
--------INCR
--------CP assignvar 1.SCALAR.INT64.true __pred.SCALAR.INT64
--------GENERIC (lines 3-3) [recompile=false]
----------CP * b.SCALAR.FP64.false i.SCALAR.INT64.false _Var0.SCALAR.FP64
----------CP + s.SCALAR.FP64.false _Var0.SCALAR.FP64.false _Var1.SCALAR.FP64
----------CP rmvar _Var0
----------CP mvvar _Var1 s
--------CP rmvar i b
------IF (lines 4-4)
--------CP > s.SCALAR.FP64.false 2.SCALAR.INT64.true _Var2.SCALAR.BOOLEAN
--------CP mvvar _Var2 __pred
--------GENERIC (lines 4-4) [recompile=true]
----------CP createvar _mVar3 scratch_space//_p4102_127.0.0.1//_t0/temp0 true MATRIX binary -1 -1 1000 -1 copy
----------CP + X.MATRIX.FP64 s.SCALAR.FP64.false _mVar3.MATRIX.FP64 2
----------CP mvvar _mVar3 Y
------ELSE
--------GENERIC (lines 4-4) [recompile=true]
----------CP createvar _mVar4 scratch_space//_p4102_127.0.0.1//_t0/temp1 true MATRIX binary -1 -1 1000 -1 copy
----------CP * X.MATRIX.FP64 2.SCALAR.INT64.true _mVar4.MATRIX.FP64 2
----------CP mvvar _mVar4 Y
--------CP rmvar X
----FUNCTION .defaultNS::f (unoptimized) [recompile=true]
------GENERIC (lines 2-2) [recompile=false]
--------CP assignvar 0.SCALAR.INT64.true s.SCALAR.INT64
--MAIN PROGRAM
----GENERIC (lines 6-7) [recompile=false]
------CP createvar _mVar5 scratch_space//_p4102_127.0.0.1//_t0/temp2 true MATRIX binary 3 3 1000 9 copy
------CP rand 3.SCALAR.INT64.true 3.SCALAR.INT64.true 1000 0.0 1.0 1.0 7 uniform 1.0 2 _mVar5.MATRIX.FP64
------CP FCall .defaultNS f true 2 2 X=_mVar5.MATRIX.FP64 b=2.5.SCALAR.FP64.true A t
------CP rmvar _mVar5
----WHILE (lines 11-11) [in-place=[], recompile=true]
------CP < i.SCALAR.INT64.false 3.SCALAR.INT64.true _Var7.SCALAR.BOOLEAN
------CP mvvar _Var7 __pred
------GENERIC (lines 11-11) [recompile=false]
--------CP + i.SCALAR.INT64.false 1.SCALAR.INT64.true _Var8.SCALAR.INT64
--------CP mvvar _Var8 i
----PARFOR (lines 0-0) [iter=j]
------FROM
------CP assignvar 1.SCALAR.INT64.true __pred.SCALAR.INT64
------TO
------CP assignvar 4.SCALAR.INT64.true __pred.SCALAR.INT64
------GENERIC (lines 12-12) [recompile=false]
--------CP print j.SCALAR.INT64.false _Var9.SCALAR.STRING 2
--------CP rmvar _Var9
------CP rmvar j
)";

}  // namespace

TEST_CASE("explain_to_raw splits operands from the right against type names", "[parser]") {
  CHECK(explain_to_raw("CP ba+* A.MATRIX.FP64 B.MATRIX.FP64 _mVar6.MATRIX.FP64 16") ==
        "CP°ba+*°A·MATRIX·FP64°B·MATRIX·FP64°_mVar6·MATRIX·FP64°16");
  // literals with '.' in the value, named operands, an empty string literal
  CHECK(explain_to_raw("CP FCall .defaultNS f true 2 2 X=_mVar5.MATRIX.FP64 "
                       "b=2.5.SCALAR.FP64.true A t") ==
        "CP°FCall°.defaultNS°f°true°2°2°X=_mVar5·MATRIX·FP64°b=2.5·SCALAR·FP64·true°A°t");
  CHECK(explain_to_raw("CP write pREADX.MATRIX.FP64 out.csv.SCALAR.STRING.true "
                       "csv.SCALAR.STRING.true false , false .SCALAR.STRING.true -1") ==
        "CP°write°pREADX·MATRIX·FP64°out.csv·SCALAR·STRING·true°csv·SCALAR·STRING·true°false°,°"
        "false°·SCALAR·STRING·true°-1");
  // SystemML-era value names stay as written (InstructionText/types read them as FP64/INT64)
  CHECK(explain_to_raw("CP uamin Xin.MATRIX.DOUBLE _Var1.SCALAR.DOUBLE 24") ==
        "CP°uamin°Xin·MATRIX·DOUBLE°_Var1·SCALAR·DOUBLE°24");
  // bare fields: numbers, names, flags stay
  CHECK(explain_to_raw("CP rmvar _Var1 _Var2") == "CP°rmvar°_Var1°_Var2");
  CHECK(explain_to_raw("CP rand 3.SCALAR.INT64.true 3.SCALAR.INT64.true 1000 0.0 1.0 1.0 7 "
                       "uniform 1.0 2 _mVar5.MATRIX.FP64") ==
        "CP°rand°3·SCALAR·INT64·true°3·SCALAR·INT64·true°1000°0.0°1.0°1.0°7°uniform°1.0°2°"
        "_mVar5·MATRIX·FP64");
  // a type-like word that is not a full DATATYPE.VALUETYPE suffix stays
  CHECK(explain_to_raw("CP rmvar x.FP64 y.MATRIX") == "CP°rmvar°x.FP64°y.MATRIX");
}

TEST_CASE("explain_to_raw takes createvar fields positionally", "[parser]") {
  CHECK(explain_to_raw("CP createvar _mVar1 scratch_space//_p1_127.0.0.1//_t0/temp1 true MATRIX "
                       "binary 64 10 1000 -1 copy") ==
        "CP°createvar°_mVar1°scratch_space//_p1_127.0.0.1//_t0/temp1°true°MATRIX°binary°64°10°"
        "1000°-1°copy");
  // a file name that looks like an operand stays whole
  CHECK(explain_to_raw("CP createvar A a.MATRIX.FP64 false MATRIX csv 2 2 1000 -1 copy") ==
        "CP°createvar°A°a.MATRIX.FP64°false°MATRIX°csv°2°2°1000°-1°copy");
  // SystemDS 3.4 output for read(..., format="csv", sep=" "): the space delimiter prints as two
  // empty fields, the empty NA-strings field as a trailing space
  CHECK(explain_to_raw("CP createvar pREADX x.csv false MATRIX csv -1 -1 -1 -1 copy false   true "
                       "0.0 ") ==
        "CP°createvar°pREADX°x.csv°false°MATRIX°csv°-1°-1°-1°-1°copy°false° °true°0.0°");
}

TEST_CASE("explain_to_raw rejoins string literals with spaces where all operands are typed",
          "[parser]") {
  // SystemDS 3.4: print("a b  c" + sum(X))
  CHECK(explain_to_raw("CP + a b  c.SCALAR.STRING.true _Var0.SCALAR.FP64.false "
                       "_Var1.SCALAR.STRING") ==
        "CP°+°a b  c·SCALAR·STRING·true°_Var0·SCALAR·FP64·false°_Var1·SCALAR·STRING");
  CHECK(explain_to_raw("CP print hello world.SCALAR.STRING.true _Var2.SCALAR.STRING 2") ==
        "CP°print°hello world·SCALAR·STRING·true°_Var2·SCALAR·STRING°2");
  CHECK(explain_to_raw("CP print  .SCALAR.STRING.true _Var2.SCALAR.STRING") ==
        "CP°print° ·SCALAR·STRING·true°_Var2·SCALAR·STRING");
}

TEST_CASE("substitute_args replaces $name and $N tokens", "[parser]") {
  PlanArgs a;
  a.named = {{"X", "data/x.csv"}, {"n", "10"}};
  a.positional = {"first", "second"};
  CHECK(substitute_args("read $X rows=$n", a) == "read data/x.csv rows=10");
  CHECK(substitute_args("$1 and $2", a) == "first and second");
  CHECK(substitute_args("$3 $missing $ $$ x$", a) == "$3 $missing $ $$ x$");
  CHECK(substitute_args("$nn $n_", a) == "$nn $n_");
  CHECK(substitute_args("a$X.b", a) == "adata/x.csv.b");
  CHECK(substitute_args("", a).empty());
}

TEST_CASE("parse a straight-line program in raw form", "[parser]") {
  const Program p = parse_plan(
      "PROGRAM\n"
      "--MAIN PROGRAM\n"
      "----GENERIC (lines 1-2) [recompile=false]\n"
      "------CP°assignvar°3·SCALAR·INT64·true°x·SCALAR·INT64\n"
      "\n"
      "# a comment\n"
      "------CP°print°x·SCALAR·INT64·false°_Var1·SCALAR·STRING°2\n"
      "------CP°rmvar°x°_Var1\n",
      "t.plan");
  CHECK(p.file == "t.plan");
  CHECK(p.functions.empty());
  REQUIRE(p.main.size() == 1);
  const Block& b = *p.main[0];
  CHECK(b.kind == BlockKind::kGeneric);
  CHECK(b.header == "GENERIC (lines 1-2) [recompile=false]");
  CHECK(b.loc.file == "t.plan");
  CHECK(b.loc.line == 3);
  CHECK(opcodes(b.instructions) == "assignvar print rmvar");
  CHECK(b.instructions[1]->text().loc.line == 7);
  CHECK(b.instructions[1]->text().raw == "CP°print°x·SCALAR·INT64·false°_Var1·SCALAR·STRING°2");
}

TEST_CASE("the PROGRAM header is optional and SystemDS's form is accepted", "[parser]") {
  const char* body =
      "--MAIN PROGRAM\n"
      "----GENERIC\n"
      "------CP°assignvar°3·SCALAR·INT64·true°x·SCALAR·INT64\n";
  CHECK(parse_plan(body, "").main.size() == 1);
  CHECK(parse_plan(std::string("PROGRAM ( size CP/SP = 7/0 )\n") + body, "").main.size() == 1);
  CHECK(parse_plan(std::string("  PROGRAM\r\n") + body, "").main.size() == 1);
}

TEST_CASE("instructions joined by ‡ on one line", "[parser]") {
  const Program p = parse_plan(
      "PROGRAM\n--MAIN PROGRAM\n----GENERIC\n"
      "------CP°assignvar°1·SCALAR·INT64·true°a·SCALAR·INT64‡CP°assignvar°2·SCALAR·INT64·true°"
      "b·SCALAR·INT64‡CP°rmvar°a\n",
      "");
  REQUIRE(p.main[0]->instructions.size() == 3);
  CHECK(opcodes(p.main[0]->instructions) == "assignvar assignvar rmvar");
  CHECK(p.main[0]->instructions[2]->text().raw == "CP°rmvar°a");
  CHECK(p.main[0]->instructions[2]->text().loc.line == 4);
}

TEST_CASE("SystemDS explain output parses: functions, FOR, IF/ELSE, WHILE, PARFOR, exits",
          "[parser]") {
  const Program p = parse_plan(kExplainPlan, "e.plan");
  REQUIRE(p.functions.size() == 1);  // the call graph and the unoptimized copy are skipped
  const Function& f = p.functions.at(".defaultNS::f");
  CHECK(f.key == ".defaultNS::f");
  REQUIRE(f.inputs.size() == 2);
  CHECK(f.inputs[0].name == "X");
  CHECK(f.inputs[0].data_type == inst::DataType::kMatrix);
  CHECK(f.inputs[0].value_type == inst::ValueType::kFP64);
  CHECK(f.inputs[1].name == "b");
  CHECK(f.inputs[1].data_type == inst::DataType::kScalar);
  REQUIRE(f.outputs.size() == 2);
  CHECK(f.outputs[0].name == "Y");
  CHECK(f.outputs[1].name == "s");
  CHECK(f.loc.line == 9);
  REQUIRE(f.body.size() == 3);
  CHECK(f.body[0]->kind == BlockKind::kGeneric);

  const Block& loop = *f.body[1];
  CHECK(loop.kind == BlockKind::kFor);
  CHECK(loop.iter_var == "i");
  CHECK(opcodes(loop.from) == "assignvar");
  CHECK(opcodes(loop.to) == "assignvar");
  CHECK(opcodes(loop.incr) == "assignvar");
  REQUIRE(loop.body.size() == 1);
  CHECK(opcodes(loop.body[0]->instructions) == "* + rmvar mvvar");
  CHECK(opcodes(loop.exit_instructions) == "rmvar");

  const Block& cond = *f.body[2];
  CHECK(cond.kind == BlockKind::kIf);
  CHECK(opcodes(cond.predicate) == "> mvvar");
  REQUIRE(cond.body.size() == 1);
  CHECK(opcodes(cond.body[0]->instructions) == "createvar + mvvar");
  REQUIRE(cond.else_body.size() == 1);
  CHECK(opcodes(cond.else_body[0]->instructions) == "createvar * mvvar");
  CHECK(opcodes(cond.exit_instructions) == "rmvar");

  REQUIRE(p.main.size() == 3);
  CHECK(opcodes(p.main[0]->instructions) == "createvar rand fcall rmvar");
  CHECK(p.main[0]->instructions[2]->stats_name() == "f");
  const Block& w = *p.main[1];
  CHECK(w.kind == BlockKind::kWhile);
  CHECK(w.header == "WHILE (lines 11-11) [in-place=[], recompile=true]");
  CHECK(opcodes(w.predicate) == "< mvvar");
  REQUIRE(w.body.size() == 1);
  CHECK(w.exit_instructions.empty());
  const Block& pf = *p.main[2];
  CHECK(pf.kind == BlockKind::kParfor);
  CHECK(pf.iter_var == "j");
  CHECK(pf.incr.empty());
  CHECK(opcodes(pf.exit_instructions) == "rmvar");
  // explain-form instructions are stored in the raw form
  CHECK(pf.body[0]->instructions[0]->text().raw ==
        "CP°print°j·SCALAR·INT64·false°_Var9·SCALAR·STRING°2");
}

TEST_CASE("IF without ELSE, nested blocks and exit instructions", "[parser]") {
  const Program p = parse_plan(
      "PROGRAM\n--MAIN PROGRAM\n"
      "----IF (lines 1-9)\n"
      "------CP°assignvar°true·SCALAR·BOOLEAN·true°__pred·SCALAR·BOOLEAN\n"
      "------WHILE\n"
      "--------CP°assignvar°false·SCALAR·BOOLEAN·true°__pred·SCALAR·BOOLEAN\n"
      "--------GENERIC\n"
      "----------CP°assignvar°1·SCALAR·INT64·true°x·SCALAR·INT64\n"
      "------GENERIC\n"
      "--------CP°assignvar°2·SCALAR·INT64·true°y·SCALAR·INT64\n"
      "------CP°rmvar°x\n"
      "----GENERIC\n"
      "------CP°rmvar°y\n",
      "");
  REQUIRE(p.main.size() == 2);
  const Block& b = *p.main[0];
  CHECK(b.kind == BlockKind::kIf);
  REQUIRE(b.body.size() == 2);
  CHECK(b.else_body.empty());
  CHECK(b.body[0]->kind == BlockKind::kWhile);
  REQUIRE(b.body[0]->body.size() == 1);
  CHECK(opcodes(b.exit_instructions) == "rmvar");
}

TEST_CASE("FOR markers: INCR is optional, lists may hold several instructions", "[parser]") {
  const Program p = parse_plan(
      "PROGRAM\n--MAIN PROGRAM\n"
      "----FOR (lines 1-3) [in-place=[A, B], iter=k, recompile=false]\n"
      "------FROM\n"
      "------CP°assignvar°1·SCALAR·INT64·true°t·SCALAR·INT64\n"
      "------CP°mvvar°t°__pred\n"
      "------TO\n"
      "------CP°assignvar°3·SCALAR·INT64·true°__pred·SCALAR·INT64\n"
      "------GENERIC\n"
      "--------CP°print°k·SCALAR·INT64·false°_Var1·SCALAR·STRING\n",
      "");
  const Block& b = *p.main[0];
  CHECK(b.kind == BlockKind::kFor);
  CHECK(b.iter_var == "k");
  CHECK(opcodes(b.from) == "assignvar mvvar");
  CHECK(opcodes(b.to) == "assignvar");
  CHECK(b.incr.empty());
  CHECK(b.body.size() == 1);
}

TEST_CASE("FUNCTION parameter lists in raw form, with spaces, and empty", "[parser]") {
  const Program p = parse_plan(
      "PROGRAM\n--FUNCTIONS\n"
      "----FUNCTION ns::g [in=X·MATRIX·FP64, n·SCALAR·INT64] [out=r·SCALAR·BOOLEAN]\n"
      "------GENERIC\n"
      "--------CP°assignvar°true·SCALAR·BOOLEAN·true°r·SCALAR·BOOLEAN\n"
      "----FUNCTION ns::h [in=] [out=]\n"
      "------GENERIC\n"
      "--------CP°rmvar°z\n"
      "--MAIN PROGRAM\n"
      "----GENERIC\n"
      "------CP°FCall°ns°h°true°0°0\n",
      "");
  REQUIRE(p.functions.size() == 2);
  const Function& g = p.functions.at("ns::g");
  REQUIRE(g.inputs.size() == 2);
  CHECK(g.inputs[1].name == "n");
  CHECK(g.inputs[1].value_type == inst::ValueType::kINT64);
  CHECK(g.outputs[0].value_type == inst::ValueType::kBoolean);
  CHECK(p.functions.at("ns::h").inputs.empty());
  CHECK(p.functions.at("ns::h").outputs.empty());
}

TEST_CASE("arguments are substituted before parsing", "[parser]") {
  PlanArgs a;
  a.named = {{"msg", "hello"}};
  a.positional = {"7"};
  const Program p = parse_plan(
      "PROGRAM\n--MAIN PROGRAM\n----GENERIC\n"
      "------CP°assignvar°$1·SCALAR·INT64·true°x·SCALAR·INT64\n"
      "------CP°print°$msg·SCALAR·STRING·true°_Var1·SCALAR·STRING\n",
      "", a);
  CHECK(p.main[0]->instructions[0]->text().raw ==
        "CP°assignvar°7·SCALAR·INT64·true°x·SCALAR·INT64");
  CHECK(p.main[0]->instructions[1]->text().raw ==
        "CP°print°hello·SCALAR·STRING·true°_Var1·SCALAR·STRING");
  // a token without a value is a plan error naming the line (Note [Unbound plan arguments])
  CHECK_THROWS_WITH(parse_plan("PROGRAM\n--MAIN PROGRAM\n----GENERIC\n"
                               "------CP°print°$other·SCALAR·STRING·true°_Var1·SCALAR·STRING\n",
                               "", a),
                    Contains("<plan>:4:") && Contains("$other has no value"));
}

TEST_CASE("print_explain round trip", "[parser]") {
  const Program p = parse_plan(kExplainPlan, "e.plan");
  const std::string raw = print(p, true);
  const Program q = parse_plan(raw, "e2.plan");
  CHECK(print(q, true) == raw);
  CHECK(raw.find("----FUNCTION .defaultNS::f [in=X·MATRIX·FP64,b·SCALAR·FP64] "
                 "[out=Y·MATRIX·FP64,s·SCALAR·FP64]\n") != std::string::npos);
  CHECK(raw.find("--------FROM\n--------CP°assignvar°1·SCALAR·INT64·true°__pred·SCALAR·INT64\n"
                 "--------TO\n") != std::string::npos);
  CHECK(raw.find("----PARFOR (lines 0-0) [iter=j]\n------FROM\n") != std::string::npos);
  CHECK(raw.find("------ELSE\n") != std::string::npos);
  CHECK(raw.find("(unoptimized)") == std::string::npos);
  CHECK(raw.find("CALL GRAPH") == std::string::npos);

  // the explain rendering parses to the same program
  const std::string shown = print(p, false);
  CHECK(shown.find("------CP FCall .defaultNS f true 2 2 X=_mVar5.MATRIX.FP64 "
                   "b=2.5.SCALAR.FP64.true A t\n") != std::string::npos);
  CHECK(shown.find("[in=X.MATRIX.FP64,b.SCALAR.FP64]") != std::string::npos);
  CHECK(shown.find("°") == std::string::npos);
  CHECK(print(parse_plan(shown, "e3.plan"), true) == raw);
}

TEST_CASE("print_explain shows ‡-joined instructions one per line", "[parser]") {
  const Program p = parse_plan(
      "PROGRAM\n--MAIN PROGRAM\n----GENERIC\n"
      "------CP°rmvar°a‡CP°rmvar°b\n",
      "");
  CHECK(print(p, true) ==
        "PROGRAM\n--MAIN PROGRAM\n----GENERIC\n------CP°rmvar°a\n------CP°rmvar°b\n");
  CHECK(print(p, false) ==
        "PROGRAM\n--MAIN PROGRAM\n----GENERIC\n------CP rmvar a\n------CP rmvar b\n");
  CHECK(to_explain_rendering("CP°rmvar°a‡CP°x°y·SCALAR·FP64") == "CP rmvar a, CP x y.SCALAR.FP64");
}

TEST_CASE("parse_plan_file reads files and reports unreadable ones", "[parser]") {
  REQUIRE_THROWS_AS(parse_plan_file("/nonexistent/dir/p.plan"), IoError);
  REQUIRE_THROWS_WITH(parse_plan_file("/nonexistent/dir/p.plan"),
                      Contains("/nonexistent/dir/p.plan"));
  REQUIRE_THROWS_AS(parse_plan_file("/tmp"), IoError);
  const std::string path = dmlrt::test::test_data_dir() + "/unit/data/parser/loops.plan";
  const Program p = parse_plan_file(path);
  CHECK(p.file == path);
  CHECK(p.main.size() == 3);
}

TEST_CASE("parse errors name file:line, the line and what was expected", "[parser]") {
  const std::string head = "PROGRAM\n--MAIN PROGRAM\n";
  SECTION("instruction without a block at the block level") {
    CHECK(parse_error(head + "----CP°rmvar°x\n") ==
          "plan.plan:3: instruction outside a block (instructions belong in a GENERIC block): "
          "'----CP°rmvar°x'");
  }
  SECTION("instruction one level too deep") {
    CHECK(parse_error(head + "------CP°rmvar°x\n") ==
          "plan.plan:3: expected a block header (GENERIC, IF, ELSE, WHILE, FOR, PARFOR) at "
          "nesting level 2, got '------CP°rmvar°x'");
  }
  SECTION("instruction two levels below its block") {
    CHECK(parse_error(head + "----GENERIC\n--------CP°rmvar°x\n") ==
          "plan.plan:4: expected an instruction or a block header (GENERIC, IF, ELSE, WHILE, "
          "FOR, PARFOR) at nesting level 3, got '--------CP°rmvar°x'");
  }
  SECTION("odd number of dashes") {
    CHECK(parse_error(head + "---GENERIC\n") ==
          "plan.plan:3: odd number of dashes (3); nesting is '--' per level: '---GENERIC'");
  }
  SECTION("nesting depth is bounded") {
    CHECK(parse_error(head + std::string(402, '-') + "GENERIC\n") ==
          "plan.plan:3: nesting deeper than 200 levels: '" + std::string(402, '-') + "GENERIC'");
    std::string deep = head;
    for (int level = 2; level < 200; ++level)
      deep += std::string(2 * level, '-') + "IF\n" + std::string(2 * level + 2, '-') +
              "CP°assignvar°true·SCALAR·BOOLEAN·true°__pred·SCALAR·BOOLEAN\n";
    CHECK(parse_error(deep).empty());
  }
  SECTION("unknown block keyword") {
    CHECK(parse_error(head + "----LOOP\n") ==
          "plan.plan:3: expected a block header (GENERIC, IF, ELSE, WHILE, FOR, PARFOR) at "
          "nesting level 2, got '----LOOP'");
  }
  SECTION("ELSE without IF") {
    CHECK(parse_error(head + "----ELSE\n------GENERIC\n") ==
          "plan.plan:3: ELSE without IF: '----ELSE'");
    CHECK_THAT(parse_error(head + "----WHILE\n------CP°rmvar°x\n----ELSE\n"),
               StartsWith("plan.plan:5: ELSE without IF"));
  }
  SECTION("FOR without [iter=...]") {
    CHECK(parse_error(head + "----FOR (lines 1-2)\n------FROM\n") ==
          "plan.plan:3: FOR without [iter=...]: name the loop variable in the header, e.g. "
          "[iter=i]: '----FOR (lines 1-2)'");
    CHECK_THAT(parse_error(head + "----PARFOR [recompile=true]\n"),
               StartsWith("plan.plan:3: PARFOR without [iter=...]"));
  }
  SECTION("FOR without FROM and TO lists") {
    CHECK_THAT(parse_error(head + "----FOR [iter=i]\n------GENERIC\n--------CP°rmvar°x\n"),
               StartsWith("plan.plan:3: FOR block needs FROM and TO lists"));
    CHECK_THAT(parse_error(head + "----FOR [iter=i]\n------FROM\n"
                                  "------CP°assignvar°1·SCALAR·INT64·true°__pred·SCALAR·INT64\n"
                                  "------TO\n------GENERIC\n--------CP°rmvar°x\n"),
               StartsWith("plan.plan:3: FOR block needs FROM and TO lists"));
  }
  SECTION("predicate instruction before FROM") {
    CHECK_THAT(parse_error(head + "----FOR [iter=i]\n"
                                  "------CP°assignvar°1·SCALAR·INT64·true°__pred·SCALAR·INT64\n"),
               StartsWith("plan.plan:4: predicate instruction before the FROM marker in a FOR "
                          "block"));
  }
  SECTION("markers out of order or out of place") {
    CHECK_THAT(parse_error(head + "----FOR [iter=i]\n------TO\n"),
               StartsWith("plan.plan:4: TO marker before FROM"));
    CHECK_THAT(parse_error(head + "----FOR [iter=i]\n------FROM\n------FROM\n"),
               StartsWith("plan.plan:5: FROM marker out of order"));
    CHECK_THAT(parse_error(head + "----GENERIC\n------FROM\n"),
               StartsWith("plan.plan:4: FROM marker inside a GENERIC block"));
    CHECK_THAT(parse_error(head + "----FROM\n"),
               StartsWith("plan.plan:3: FROM marker outside the predicate of a FOR or PARFOR"));
    CHECK_THAT(
        parse_error(head + "----WHILE\n"
                           "------CP°assignvar°true·SCALAR·BOOLEAN·true°__pred·SCALAR·BOOLEAN\n"
                           "------GENERIC\n--------CP°rmvar°x\n------INCR\n"),
        StartsWith("plan.plan:7: INCR marker out of place"));
  }
  SECTION("a block inside a GENERIC block") {
    CHECK(parse_error(head + "----GENERIC\n------GENERIC\n") ==
          "plan.plan:4: a GENERIC block holds instructions only, not blocks: '------GENERIC'");
  }
  SECTION("a block after exit instructions") {
    CHECK_THAT(
        parse_error(head + "----WHILE\n"
                           "------CP°assignvar°true·SCALAR·BOOLEAN·true°__pred·SCALAR·BOOLEAN\n"
                           "------GENERIC\n--------CP°rmvar°x\n------CP°rmvar°y\n"
                           "------GENERIC\n"),
        StartsWith("plan.plan:8: block after the exit instructions"));
  }
  SECTION("missing MAIN PROGRAM") {
    CHECK(parse_error("PROGRAM\n") == "plan.plan:1: missing '--MAIN PROGRAM' section");
    CHECK(parse_error("") == "plan.plan: empty plan: missing '--MAIN PROGRAM' section");
    CHECK(parse_error("# only a comment\n\n") ==
          "plan.plan: empty plan: missing '--MAIN PROGRAM' section");
    CHECK(parse_error("PROGRAM\n--FUNCTIONS\n----FUNCTION a::b [in=] [out=]\n------GENERIC\n") ==
          "plan.plan:4: missing '--MAIN PROGRAM' section");
    CHECK(parse_error("PROGRAM\n--MAIN\n") ==
          "plan.plan:2: expected --MAIN PROGRAM or --FUNCTIONS, got '--MAIN'");
    CHECK(parse_error("hello\n") ==
          "plan.plan:1: expected the PROGRAM header, --FUNCTIONS or --MAIN PROGRAM, got 'hello'");
  }
  SECTION("text after the main program at level 1") {
    CHECK(parse_error(head + "----GENERIC\n--FUNCTIONS\n") ==
          "plan.plan:4: expected a block header (GENERIC, IF, ELSE, WHILE, FOR, PARFOR) at "
          "nesting level 2, got '--FUNCTIONS'");
  }
  SECTION("functions") {
    const std::string fn = "PROGRAM\n--FUNCTIONS\n";
    CHECK(parse_error(fn + "----FUNCTION a::f [in=] [out=]\n------GENERIC\n"
                           "----FUNCTION a::f [in=] [out=]\n------GENERIC\n--MAIN PROGRAM\n") ==
          "plan.plan:5: duplicate function 'a::f': '----FUNCTION a::f [in=] [out=]'");
    CHECK(parse_error(fn + "----FUNCTION f [in=] [out=]\n--MAIN PROGRAM\n") ==
          "plan.plan:3: expected FUNCTION <namespace>::<name> [in=...] [out=...], got "
          "'----FUNCTION f [in=] [out=]'");
    CHECK_THAT(parse_error(fn + "----FUNCTION a::f [recompile=true]\n--MAIN PROGRAM\n"),
               StartsWith("plan.plan:3: FUNCTION header needs [in=name·DATATYPE·VALUETYPE,...] "
                          "and [out=...] parameter lists"));
    CHECK_THAT(parse_error(fn + "----FUNCTION a::f [in=X] [out=]\n--MAIN PROGRAM\n"),
               StartsWith("plan.plan:3: parameter 'X' must be name·DATATYPE·VALUETYPE"));
    CHECK_THAT(parse_error(fn + "----FUNCTION a::f [in=X·MATRIX·FP65] [out=]\n--MAIN PROGRAM\n"),
               StartsWith("plan.plan:3: parameter 'X·MATRIX·FP65': "));
    CHECK(parse_error(fn + "----GENERIC\n--MAIN PROGRAM\n") ==
          "plan.plan:3: expected a FUNCTION header at nesting level 2, got '----GENERIC'");
    CHECK(parse_error(fn + "----FUNCTION a::f [in=] [out=]\n------CP°rmvar°x\n--MAIN PROGRAM\n") ==
          "plan.plan:4: instruction outside a block (instructions belong in a GENERIC block): "
          "'------CP°rmvar°x'");
  }
  SECTION("bad instructions are parse errors with the location") {
    CHECK_THAT(parse_error(head + "----GENERIC\n------CP°nosuchop°x\n"),
               StartsWith("plan.plan:4: instruction 'CP°nosuchop°x': unknown opcode 'nosuchop'"));
    CHECK_THAT(parse_error(head + "----GENERIC\n------CP°assignvar°x·SCALAR·FP65°y·SCALAR·FP64\n"),
               StartsWith("plan.plan:4: instruction 'CP°assignvar°x·SCALAR·FP65°y·SCALAR·FP64'"));
    CHECK_THAT(parse_error(head + "----GENERIC\n------XP°rmvar°x\n"), StartsWith("plan.plan:4: "));
    CHECK_THAT(parse_error(head + "----GENERIC\n------XP°rmvar°x\n"),
               Contains("unknown execution type 'XP'"));
    CHECK_THAT(parse_error(head + "----GENERIC\n------SPARK°rmvar°x\n"),
               Contains("-exec singlenode"));
    CHECK_THAT(parse_error(head + "----GENERIC\n------CP rmvar\n"), StartsWith("plan.plan:4: "));
  }
  SECTION("function calls are checked against the function") {
    const std::string fn =
        "PROGRAM\n--FUNCTIONS\n----FUNCTION a::f [in=x·SCALAR·FP64] [out=y·SCALAR·FP64]\n"
        "------GENERIC\n--------CP°assignvar°x·SCALAR·FP64·false°y·SCALAR·FP64\n--MAIN PROGRAM\n"
        "----GENERIC\n";
    CHECK(parse_error(fn + "------CP°FCall°a°g°true°1°1°x=1·SCALAR·FP64·true°r\n") ==
          "plan.plan:8: instruction 'CP°FCall°a°g°true°1°1°x=1·SCALAR·FP64·true°r': unknown "
          "function 'a::g'");
    CHECK_THAT(parse_error(fn + "------CP°FCall°a°f°true°1°1°z=1·SCALAR·FP64·true°r\n"),
               Contains("function 'a::f' has no input named 'z'"));
    CHECK_THAT(parse_error(fn + "------CP°FCall°a°f°true°1°2°x=1·SCALAR·FP64·true°r°s\n"),
               Contains("function 'a::f' returns 1 values, the call binds 2"));
    CHECK_THAT(parse_error(fn + "------CP°FCall°a°f°true°0°1°r\n"),
               Contains("function 'a::f' has 1 inputs, the call passes 0"));
    CHECK_THAT(parse_error(fn + "------CP°FCall°a°f°true°1°1°x=1·SCALAR·FP64·true\n"),
               Contains("fcall declares 1 inputs and 1 outputs, so it needs 7 fields, got 6"));
    CHECK_THAT(parse_error(fn + "------CP°FCall°a°f°maybe°1°1°x=1·SCALAR·FP64·true°r\n"),
               Contains("optimize flag must be true or false, got 'maybe'"));
    CHECK_THAT(parse_error(fn + "------CP°FCall°a°f°true°-1°1°r\n"),
               Contains("number of inputs must be a non-negative integer, got '-1'"));
  }
}
