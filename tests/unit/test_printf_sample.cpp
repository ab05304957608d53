// Tests of printf (Java's String.format on DML scalars; the expected strings are what Java 17
// prints) and sample (seed-independent properties: sizes, range, distinct values without
// replacement, determinism for one seed), with their error messages.
#include <catch2/catch.hpp>
#include <set>

#include "common/fake_services.h"
#include "gpu_context/error.h"
#include "instructions/printf_instruction.h"

using dmlrt::inst::java_format_string;
using dmlrt::inst::ScalarValue;
using dmlrt::test::TestContext;

TEST_CASE("printf formats as Java's String.format", "[printf]") {
  auto f = [](const std::string& fmt, std::vector<ScalarValue> a) {
    return java_format_string(fmt, a);
  };
  CHECK(f("%d|%5d|%-5d|%05d|%,d|%+d|%(d",
          {ScalarValue::int64(42), ScalarValue::int64(42), ScalarValue::int64(42),
           ScalarValue::int64(-42), ScalarValue::int64(1234567), ScalarValue::int64(3),
           ScalarValue::int64(-3)}) == "42|   42|42   |-0042|1,234,567|+3|(3)");
  // HALF_UP on Java's shortest digits, zeros past them.
  CHECK(f("%.2f %.1f %.0f %.20f", {ScalarValue::fp64(1.005), ScalarValue::fp64(0.25),
                                   ScalarValue::fp64(2.5), ScalarValue::fp64(0.1)}) ==
        "1.01 0.3 3 0.10000000000000000000");
  CHECK(f("%e %.2E %g %g %.3g",
          {ScalarValue::fp64(12345.678), ScalarValue::fp64(-0.000123), ScalarValue::fp64(1e6),
           ScalarValue::fp64(0.0001), ScalarValue::fp64(99950.0)}) ==
        "1.234568e+04 -1.23E-04 1.00000e+06 0.000100000 1.00e+05");
  CHECK(f("%x %X %o %#x", {ScalarValue::int64(255), ScalarValue::int64(-1), ScalarValue::int64(8),
                           ScalarValue::int64(4095)}) == "ff FFFFFFFFFFFFFFFF 10 0xfff");
  CHECK(f("%s %s %s %.2s %b %S",
          {ScalarValue::fp64(1e7), ScalarValue::boolean(true), ScalarValue::int64(5),
           ScalarValue::string("abc"), ScalarValue::int64(0), ScalarValue::string("up")}) ==
        "1.0E7 true 5 ab true UP");
  CHECK(f("%2$s %1$s %<s %s %% %n", {ScalarValue::string("a"), ScalarValue::string("b")}) ==
        "b a a a % \n");
  CHECK(f("%f %+f %.1f", {ScalarValue::fp64(-1.0 / 0.0), ScalarValue::fp64(1.0 / 0.0),
                          ScalarValue::fp64(0.0 / 0.0)}) == "-Infinity +Infinity NaN");
}

TEST_CASE("printf: what Java rejects is an error naming the specifier", "[printf]") {
  auto err = [](const std::string& fmt, std::vector<ScalarValue> a) {
    try {
      java_format_string(fmt, a);
    } catch (const dmlrt::RuntimeError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(err("%d", {ScalarValue::fp64(1.5)}),
             Catch::Contains("format specifier '%d': d != java.lang.Double"));
  CHECK_THAT(err("%f", {ScalarValue::int64(1)}),
             Catch::Contains("format specifier '%f': f != java.lang.Long"));
  CHECK_THAT(err("%s %s", {ScalarValue::string("a")}),
             Catch::Contains("format specifier '%s': no argument for it"));
  CHECK_THAT(err("%q", {ScalarValue::int64(1)}), Catch::Contains("unknown conversion 'q'"));
  CHECK_THAT(err("%-d", {ScalarValue::int64(1)}), Catch::Contains("need a width"));
  CHECK_THAT(err("abc %", {}), Catch::Contains("ends inside a specifier"));
  TestContext t;
  CHECK_THROWS_WITH(t.run("CP°printf°1·SCALAR·INT64·true°o·SCALAR·STRING"),
                    Catch::Contains("printf: the first parameter needs to be a string"));
  CHECK_THROWS_WITH(t.run("CP°printf°%d·SCALAR·STRING·true°X·MATRIX·FP64°o·SCALAR·STRING"),
                    Catch::Contains("printf takes scalars only, operand 2 is a matrix"));
}

TEST_CASE("printf prints the line and binds the string", "[printf]") {
  TestContext t;
  t.set_scalar("n", ScalarValue::int64(3));
  t.run(
      "CP°printf°n=%d x=%.1f·SCALAR·STRING·true°n·SCALAR·INT64·false°2.25·SCALAR·FP64·true°"
      "o·SCALAR·STRING");
  CHECK(t.services.output.str() == "n=3 x=2.3\n");
  CHECK(t.scalar("o").to_string() == "n=3 x=2.3");
}

TEST_CASE("sample: sizes, range, distinct without replacement, one seed one sample", "[datagen]") {
  TestContext t;
  t.run("CP°sample°50°50·SCALAR·INT64·true°false°7°1000°A·MATRIX·FP64");
  const auto& a = t.matrix("A");
  REQUIRE(a.rows() == 50);
  REQUIRE(a.cols() == 1);
  std::set<double> seen;
  for (int64_t i = 0; i < 50; ++i) seen.insert(a.get(i, 0));
  CHECK(seen.size() == 50);
  CHECK(*seen.begin() == 1.0);
  CHECK(*seen.rbegin() == 50.0);
  t.run("CP°sample°50°50·SCALAR·INT64·true°false°7°1000°B·MATRIX·FP64");
  CHECK(t.matrix("B").equals(t.matrix("A")));
  t.run("CP°sample°3.9°200·SCALAR·INT64·true°true°-1°1000°C·MATRIX·FP64");  // range (long) 3
  std::set<double> c;
  for (int64_t i = 0; i < 200; ++i) c.insert(t.matrix("C").get(i, 0));
  CHECK(c == std::set<double>{1, 2, 3});
  t.run("CP°sample°1.0E15°5·SCALAR·INT64·true°false°3°1000°D·MATRIX·FP64");
  CHECK(t.matrix("D").rows() == 5);
}

TEST_CASE("sample: bad sizes are errors", "[datagen]") {
  TestContext t;
  CHECK_THROWS_WITH(
      t.run("CP°sample°10°15·SCALAR·INT64·true°false°-1°1000°A·MATRIX·FP64"),
      Catch::Contains(
          "Sample (size=15) larger than population (size=10) can only be generated with "
          "replacement."));
  CHECK_THROWS_WITH(t.run("CP°sample°10°-1·SCALAR·INT64·true°true°-1°1000°A·MATRIX·FP64"),
                    Catch::Contains("sample: invalid sample size -1"));
  CHECK_THROWS_WITH(t.run("CP°sample°0°2·SCALAR·INT64·true°true°-1°1000°A·MATRIX·FP64"),
                    Catch::Contains("sample: invalid population size 0"));
  CHECK_THROWS_WITH(t.run("CP°sample°ten°2·SCALAR·INT64·true°true°-1°1000°A·MATRIX·FP64"),
                    Catch::Contains("sample range must be a number, got 'ten'"));
  CHECK_THROWS_WITH(t.run("CP°sample°10°2·SCALAR·INT64·true°maybe°-1°1000°A·MATRIX·FP64"),
                    Catch::Contains("sample replace must be true or false"));
}
