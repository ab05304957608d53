// Fixes found by the conformance suite (tests/conformance/cases), one test each:
// line breaks in string literals, which captures write as U+240A / U+240D (print_stop_assert).
#include <catch2/catch.hpp>
#include <string>

#include "common/fake_services.h"
#include "instructions/instruction.h"

using dmlrt::test::TestContext;

TEST_CASE("U+240A and U+240D in instruction fields become LF and CR", "[conformance_fixes]") {
  // SystemDS prints print("two\nlines") as two lines; its capture holds `two␊lines`.
  TestContext t;
  t.run("CP°print°two\u240Alines·SCALAR·STRING·true°_Var1·SCALAR·STRING°2");
  CHECK(t.services.output.str() == "two\nlines\n");
  t.run("CP°+°a\u240D\u240Ab·SCALAR·STRING·true°c·SCALAR·STRING·true°_Var2·SCALAR·STRING");
  CHECK(t.scalar("_Var2").to_string() == "a\r\nbc");
  // The raw text (used in error messages) keeps the one-line form.
  const auto text = dmlrt::inst::InstructionText::parse("CP°print°x\u240Ay·SCALAR·STRING·true°o");
  CHECK(text.fields[0] == "x\ny·SCALAR·STRING·true");
  CHECK(text.raw.find('\n') == std::string::npos);
}
