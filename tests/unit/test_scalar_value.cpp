// ScalarValue: DML conversions and Java's Double.toString formatting (expected strings are what
// SystemDS 3.4 prints for the same values).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "instructions/scalar_value.h"

using dmlrt::inst::format_double_java;
using dmlrt::inst::ScalarValue;
using dmlrt::inst::ValueType;

TEST_CASE("doubles print as Java's Double.toString", "[scalar]") {
  CHECK(format_double_java(3.0) == "3.0");
  CHECK(format_double_java(-2.0) == "-2.0");
  CHECK(format_double_java(0.001) == "0.001");
  CHECK(format_double_java(1e-20) == "1.0E-20");
  CHECK(format_double_java(123456789.0) == "1.23456789E8");
  CHECK(format_double_java(1e7) == "1.0E7");
  CHECK(format_double_java(12345.678) == "12345.678");
  CHECK(format_double_java(1.0 / 3.0) == "0.3333333333333333");
  CHECK(format_double_java(20.06241654935743) == "20.06241654935743");
  CHECK(format_double_java(std::numeric_limits<double>::infinity()) == "Infinity");
  CHECK(format_double_java(std::nan("")) == "NaN");
  CHECK(format_double_java(0.0) == "0.0");
}

TEST_CASE("scalar conversions follow DML", "[scalar]") {
  CHECK(ScalarValue::fp64(3.7).to_int() == 3);
  CHECK(ScalarValue::fp64(-3.7).to_int() == -3);
  CHECK(ScalarValue::boolean(true).to_string() == "TRUE");
  CHECK(ScalarValue::int64(100000000).to_string() == "100000000");
  CHECK(ScalarValue::from_literal("TRUE", ValueType::kBoolean).to_bool());
  CHECK(ScalarValue::from_literal("", ValueType::kString).to_string().empty());
  CHECK_THROWS_WITH(ScalarValue::from_literal("abc", ValueType::kINT64),
                    Catch::Contains("'abc' is not an INT64 literal"));
}
