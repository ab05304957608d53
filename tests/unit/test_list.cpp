// Lists and eval (instructions/list_instructions.h): construction, indexing, left indexing,
// append/remove, the casts, toString, and eval through the interpreter; every error path with its
// message, including a list that flows into an instruction that needs a matrix or a scalar.
#include <catch2/catch.hpp>
#include <sstream>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"

using namespace dmlrt;
using Catch::Matchers::Contains;
using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::TestContext;

namespace {

// The message of the error running `raw` in `t` throws ("" when it runs).
std::string error_of(TestContext& t, const std::string& raw) {
  try {
    t.run(raw);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// t with X (2x2), L = list(X, 7, "s", list(1, 2)) and N = list(a=X, b=5).
void fill(TestContext& t) {
  t.set_matrix("X", dense_of(2, 2, {1, 2, 3, 4}));
  t.run("CP°list°1·SCALAR·INT64·true°2·SCALAR·INT64·true°In·LIST·UNKNOWN");
  t.run(
      "CP°list°X·MATRIX·FP64°7·SCALAR·INT64·true°s·SCALAR·STRING·true°In·LIST·UNKNOWN·false°"
      "L·LIST·UNKNOWN");
  t.run("CP°nvlist°a=X°b=5°N·LIST·UNKNOWN");
}

const inst::ListValue& list_of(TestContext& t, const std::string& name) { return *t.ec.list(name); }

std::string index_line(const std::string& in, const std::string& rl, const std::string& ru,
                       const std::string& out) {
  return "CP°rightIndex°" + in + "·LIST·UNKNOWN·false°" + rl + "°" + ru +
         "°1·SCALAR·INT64·true°1·SCALAR·INT64·true°" + out + "·LIST·UNKNOWN";
}

}  // namespace

TEST_CASE("list, nvlist, indexing and the casts", "[list]") {
  TestContext t;
  fill(t);
  CHECK(list_of(t, "L").size() == 4);
  CHECK_FALSE(list_of(t, "L").named);
  CHECK(list_of(t, "N").names == std::vector<std::string>{"a", "b"});

  // by position: a one-entry list; as.matrix shares the entry's matrix object
  t.run(index_line("L", "1·SCALAR·INT64·true", "1·SCALAR·INT64·true", "E"));
  t.run("CP°castdtm°E·LIST·UNKNOWN·false°M·MATRIX·FP64°2");
  CHECK(t.ec.matrix_object("M") == t.ec.matrix_object("X"));
  // by a range, then as.scalar of the first entry
  t.run(index_line("L", "2·SCALAR·INT64·true", "3·SCALAR·INT64·true", "R"));
  CHECK(list_of(t, "R").size() == 2);
  t.run("CP°castdts°R·LIST·UNKNOWN·false°s·SCALAR·UNKNOWN°2");
  CHECK(t.scalar("s").to_int() == 7);
  // by name; nvlist's literal 5 is an INT64
  t.run(index_line("N", "b·SCALAR·STRING·true", "b·SCALAR·STRING·true", "B"));
  t.run("CP°castdts°B·LIST·UNKNOWN·false°b·SCALAR·UNKNOWN°2");
  CHECK(t.scalar("b").type() == inst::ValueType::kINT64);
  // as.list of a list holding one list gives the inner list; length
  t.run(index_line("L", "4·SCALAR·INT64·true", "4·SCALAR·INT64·true", "I"));
  t.run("CP°castdtl°I·LIST·UNKNOWN·false°J·LIST·UNKNOWN°2");
  t.run("CP°length°J·LIST·UNKNOWN·false°n·SCALAR·INT64°2");
  CHECK(t.scalar("n").to_int() == 2);
  // as.matrix of several scalars: a column
  t.run("CP°castdtm°J·LIST·UNKNOWN·false°C·MATRIX·FP64°2");
  CHECK(t.matrix("C").rows() == 2);
  CHECK(t.matrix("C").get(1, 0) == 2.0);
}

TEST_CASE("list left indexing, append and remove copy on write", "[list]") {
  TestContext t;
  fill(t);
  t.run(
      "CP°leftIndex°L·LIST·UNKNOWN·false°9·SCALAR·INT64·true°2·SCALAR·INT64·true°"
      "2·SCALAR·INT64·true°1·SCALAR·INT64·true°1·SCALAR·INT64·true°L2·LIST·UNKNOWN");
  CHECK(std::get<inst::ScalarValue>(list_of(t, "L2").items[1]).to_int() == 9);
  CHECK(std::get<inst::ScalarValue>(list_of(t, "L").items[1]).to_int() == 7);  // unchanged
  t.run("CP°append°L·LIST·UNKNOWN·false°X·MATRIX·FP64°-1·SCALAR·INT64·true°L3·LIST·UNKNOWN°true");
  CHECK(list_of(t, "L3").size() == 5);
  CHECK(list_of(t, "L").size() == 4);
  t.run("CP°remove°N·LIST·UNKNOWN·false°1·SCALAR·INT64·true°N2°r");
  CHECK(list_of(t, "N2").names == std::vector<std::string>{"b"});
  CHECK_FALSE(list_of(t, "r").named);
  CHECK(list_of(t, "N").size() == 2);
}

TEST_CASE("toString of a list", "[list]") {
  TestContext t;
  fill(t);
  t.run("CP°toString°target=L°decimal=1°out·SCALAR·STRING");
  CHECK(t.scalar("out").to_string() ==
        "List containing:\n[\nMatrix:\n1.0 2.0\n3.0 4.0\n, 7, s, List containing:\n[1, 2]]");
  t.run("CP°list°E·LIST·UNKNOWN");
  t.run("CP°toString°target=E°out·SCALAR·STRING");
  CHECK(t.scalar("out").to_string() == "List containing:]");
  // a matrix target still takes the matrix form
  t.run("CP°toString°target=X°out·SCALAR·STRING");
  CHECK(t.scalar("out").to_string() == "1.000 2.000\n3.000 4.000\n");
}

TEST_CASE("list errors name the instruction, the index and the list", "[list]") {
  TestContext t;
  fill(t);
  CHECK_THAT(error_of(t, index_line("L", "5·SCALAR·INT64·true", "5·SCALAR·INT64·true", "E")),
             Contains("list index 5 is out of range for a list of length 4"));
  CHECK_THAT(error_of(t, index_line("L", "0·SCALAR·INT64·true", "0·SCALAR·INT64·true", "E")),
             Contains("list index 0 is out of range for a list of length 4"));
  CHECK_THAT(error_of(t, index_line("L", "3·SCALAR·INT64·true", "2·SCALAR·INT64·true", "E")),
             Contains("list range 3:2 is empty (from > to)"));
  CHECK_THAT(error_of(t, index_line("N", "z·SCALAR·STRING·true", "z·SCALAR·STRING·true", "E")),
             Contains("the named list of length 2 has no entry named 'z'"));
  CHECK_THAT(error_of(t, index_line("L", "a·SCALAR·STRING·true", "a·SCALAR·STRING·true", "E")),
             Contains("cannot index an unnamed list of length 4 by name 'a'"));
  CHECK_THAT(error_of(t,
                      "CP°append°N·LIST·UNKNOWN·false°1·SCALAR·INT64·true°-1·SCALAR·INT64·true°"
                      "N2·LIST·UNKNOWN°true"),
             Contains("cannot append an unnamed entry to a named list of length 2"));
  CHECK_THAT(error_of(t,
                      "CP°leftIndex°L·LIST·UNKNOWN·false°In·LIST·UNKNOWN·false°"
                      "1·SCALAR·INT64·true°3·SCALAR·INT64·true°1·SCALAR·INT64·true°"
                      "1·SCALAR·INT64·true°L2·LIST·UNKNOWN"),
             Contains("list left indexing size mismatch: range 1:3 of a list of length 4, "
                      "right-hand side a list of length 2"));
  // as.scalar of a matrix entry, as.matrix of a string entry or of mixed entries
  t.run(index_line("L", "1·SCALAR·INT64·true", "1·SCALAR·INT64·true", "E"));
  CHECK_THAT(error_of(t, "CP°castdts°E·LIST·UNKNOWN·false°s·SCALAR·UNKNOWN°2"),
             Contains("as.scalar of a list whose first entry is a matrix, not a scalar"));
  t.run(index_line("L", "3·SCALAR·INT64·true", "3·SCALAR·INT64·true", "S"));
  CHECK_THAT(error_of(t, "CP°castdtm°S·LIST·UNKNOWN·false°M·MATRIX·FP64°2"),
             Contains("as.matrix of a list whose entry is a string"));
  CHECK_THAT(error_of(t, "CP°castdtm°L·LIST·UNKNOWN·false°M·MATRIX·FP64°2"),
             Contains("needs scalar entries only; entry 1 is a matrix"));
}

TEST_CASE("a list where a matrix or a scalar is expected fails clearly", "[list]") {
  TestContext t;
  fill(t);
  CHECK_THAT(error_of(t, "CP°uak+°L·MATRIX·FP64°s·SCALAR·FP64°2"),
             Contains("variable 'L' is a list where a matrix is expected"));
  CHECK_THAT(error_of(t, "CP°+°L·SCALAR·FP64·false°1·SCALAR·INT64·true°s·SCALAR·FP64"),
             Contains("variable 'L' is a list where a scalar is expected"));
  CHECK(error_of(t, "CP°length°X·MATRIX·FP64°n·SCALAR·INT64°2").empty());
  CHECK_THAT(error_of(t, "CP°length°X·LIST·UNKNOWN·false°n·SCALAR·INT64°2"),
             Contains("variable 'X' is a matrix where a list is expected"));
}

namespace {

const std::string kEvalPlan =
    "PROGRAM\n--FUNCTIONS\n"
    "----FUNCTION .defaultNS::g [in=X·MATRIX·FP64,a·SCALAR·FP64] "
    "[out=Y·MATRIX·FP64,n·SCALAR·INT64]\n"
    "------GENERIC\n"
    "--------CP°*°X·MATRIX·FP64°a·SCALAR·FP64·false°Y·MATRIX·FP64°1\n"
    "--------CP°nrow°X·MATRIX·FP64°n·SCALAR·INT64°1\n"
    "----FUNCTION .defaultNS::takes_list [in=P·LIST·UNKNOWN] [out=k·SCALAR·INT64]\n"
    "------GENERIC\n"
    "--------CP°length°P·LIST·UNKNOWN·false°k·SCALAR·INT64°1\n"
    "--MAIN PROGRAM\n----GENERIC\n"
    "------CP°rand°2·SCALAR·INT64·true°2·SCALAR·INT64·true°1000°1°1°1.0°-1°uniform°1.0°1°"
    "X·MATRIX·FP64\n";

std::string run_eval(const std::string& lines) {
  runtime::Program program = runtime::parse_plan(kEvalPlan + lines, "t.plan");
  std::ostringstream out;
  runtime::Interpreter interp(program, out, nullptr);
  inst::ExecutionContext ec(interp, {});
  try {
    interp.run(ec);
  } catch (const Error& e) {
    return e.what();
  }
  return out.str();
}

}  // namespace

TEST_CASE("eval binds positional, list and named-list arguments", "[list]") {
  const std::string p = "------CP°print°s·SCALAR·FP64·false°_p·SCALAR·STRING°1\n";
  CHECK(run_eval("------CP°eval°g·SCALAR·STRING·true°X·MATRIX·FP64°3·SCALAR·INT64·true°"
                 "Y·MATRIX·FP64\n------CP°uak+°Y·MATRIX·FP64°s·SCALAR·FP64°1\n" +
                 p) == "12.0\n");
  CHECK(run_eval("------CP°nvlist°a=2°X=X°A·LIST·UNKNOWN\n"
                 "------CP°eval°g·SCALAR·STRING·true°A·LIST·UNKNOWN·false°Y·MATRIX·FP64\n"
                 "------CP°uak+°Y·MATRIX·FP64°s·SCALAR·FP64°1\n" +
                 p) == "8.0\n");
  // a list output takes every output, named
  CHECK(run_eval("------CP°eval°g·SCALAR·STRING·true°X·MATRIX·FP64°3·SCALAR·INT64·true°"
                 "R·LIST·UNKNOWN\n"
                 "------CP°rightIndex°R·LIST·UNKNOWN·false°n·SCALAR·STRING·true°"
                 "n·SCALAR·STRING·true°1·SCALAR·INT64·true°1·SCALAR·INT64·true°E·LIST·UNKNOWN\n"
                 "------CP°castdts°E·LIST·UNKNOWN·false°s·SCALAR·UNKNOWN°1\n" +
                 p) == "2\n");
  // a function whose only input is a list gets the list itself
  CHECK(run_eval("------CP°list°1·SCALAR·INT64·true°2·SCALAR·INT64·true°A·LIST·UNKNOWN\n"
                 "------CP°eval°takes_list·SCALAR·STRING·true°A·LIST·UNKNOWN·false°"
                 "Y·MATRIX·FP64\n------CP°uak+°Y·MATRIX·FP64°s·SCALAR·FP64°1\n" +
                 p) == "2.0\n");
}

TEST_CASE("eval errors", "[list]") {
  CHECK_THAT(run_eval("------CP°eval°nosuch·SCALAR·STRING·true°X·MATRIX·FP64°Y·MATRIX·FP64\n"),
             Contains("eval: unknown function 'nosuch' (the plan has none of "
                      ".defaultNS::nosuch, .builtinNS::m_nosuch, .builtinNS::nosuch"));
  CHECK_THAT(run_eval("------CP°list°X·MATRIX·FP64°A·LIST·UNKNOWN\n"
                      "------CP°eval°g·SCALAR·STRING·true°A·LIST·UNKNOWN·false°Y·MATRIX·FP64\n"),
             Contains("eval: cannot spread a list of length 1 over the 2 inputs of "
                      ".defaultNS::g (dmlrt cannot fill inputs from default values"));
  CHECK_THAT(run_eval("------CP°nvlist°a=2°Z=X°A·LIST·UNKNOWN\n"
                      "------CP°eval°g·SCALAR·STRING·true°A·LIST·UNKNOWN·false°Y·MATRIX·FP64\n"),
             Contains("the named list of length 2 has no entry named 'X'"));
  CHECK_THAT(run_eval("------CP°list°1·SCALAR·INT64·true°A·LIST·UNKNOWN\n"
                      "------CP°FCall°.defaultNS°g°true°2°2°X=A·LIST·UNKNOWN·false°"
                      "a=1·SCALAR·FP64·true°Y°n\n"),
             Contains("function .defaultNS::g: input 'X' expects a matrix, got a list"));
}
