// ScalarValue conversions and Java-compatible double formatting.
#include "instructions/scalar_value.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "gpu_context/error.h"
#include "kernels/cpu/java_format.h"

namespace dmlrt::inst {
namespace {

bool parse_double_text(const std::string& text, double* out) {
  if (text.empty()) return false;
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(begin, &end);
  if (end == begin || *end != '\0') {
    // Java spellings that strtod does not take as is.
    if (text == "Infinity" || text == "+Infinity") v = std::numeric_limits<double>::infinity();
    else if (text == "-Infinity") v = -std::numeric_limits<double>::infinity();
    else if (text == "NaN") v = std::numeric_limits<double>::quiet_NaN();
    else return false;
  }
  *out = v;
  return true;
}

int64_t java_long_cast(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

}  // namespace

ScalarValue ScalarValue::fp64(double v) {
  ScalarValue s;
  s.type_ = ValueType::kFP64;
  s.d_ = v;
  return s;
}

ScalarValue ScalarValue::int64(int64_t v) {
  ScalarValue s;
  s.type_ = ValueType::kINT64;
  s.i_ = v;
  return s;
}

ScalarValue ScalarValue::boolean(bool v) {
  ScalarValue s;
  s.type_ = ValueType::kBoolean;
  s.b_ = v;
  return s;
}

ScalarValue ScalarValue::string(std::string v) {
  ScalarValue s;
  s.type_ = ValueType::kString;
  s.s_ = std::move(v);
  return s;
}

ScalarValue ScalarValue::from_literal(const std::string& text, ValueType vt) {
  switch (vt) {
    case ValueType::kString:
      return string(text);
    case ValueType::kBoolean:
      if (text == "true" || text == "TRUE") return boolean(true);
      if (text == "false" || text == "FALSE") return boolean(false);
      DMLRT_FAIL(ParseError, "'" << text << "' is not a BOOLEAN literal");
    case ValueType::kINT64:
    case ValueType::kINT32: {
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (!text.empty() && *end == '\0' && errno == 0) return int64(v);
      // An integer beyond int64 is an error, not a silent 2^63-1 (SystemDS's parser rejects it
      // too: Long.parseLong throws).
      DMLRT_REQUIRE(!(!text.empty() && *end == '\0' && errno == ERANGE), ParseError,
                    "integer literal '" << text << "' is out of the INT64 range [" << INT64_MIN
                                        << ", " << INT64_MAX << "]");
      // SystemDS sometimes prints integral doubles for INT64 literals ("3.0").
      double d = 0;
      if (parse_double_text(text, &d) && std::floor(d) == d) {
        DMLRT_REQUIRE(d >= -9.2233720368547758e18 && d < 9.2233720368547758e18, ParseError,
                      "integer literal '" << text << "' is out of the INT64 range [" << INT64_MIN
                                          << ", " << INT64_MAX << "]");
        return int64(java_long_cast(d));
      }
      DMLRT_FAIL(ParseError, "'" << text << "' is not an INT64 literal");
    }
    case ValueType::kFP64:
    case ValueType::kFP32:
    case ValueType::kUnknown: {
      double d = 0;
      if (parse_double_text(text, &d)) return fp64(d);
      DMLRT_FAIL(ParseError, "'" << text << "' is not an FP64 literal");
    }
  }
  DMLRT_FAIL(ParseError, "bad literal '" << text << "'");
}

double ScalarValue::to_double() const {
  switch (type_) {
    case ValueType::kINT64:
    case ValueType::kINT32: return static_cast<double>(i_);
    case ValueType::kBoolean: return b_ ? 1.0 : 0.0;
    case ValueType::kString: {
      double d = 0;
      DMLRT_REQUIRE(parse_double_text(s_, &d), RuntimeError,
                    "cannot convert string '" << s_ << "' to a number");
      return d;
    }
    default: return d_;
  }
}

int64_t ScalarValue::to_int() const {
  switch (type_) {
    case ValueType::kINT64:
    case ValueType::kINT32: return i_;
    case ValueType::kBoolean: return b_ ? 1 : 0;
    case ValueType::kString: return from_literal(s_, ValueType::kINT64).i_;
    default: return java_long_cast(d_);
  }
}

bool ScalarValue::to_bool() const {
  switch (type_) {
    case ValueType::kINT64:
    case ValueType::kINT32: return i_ != 0;
    case ValueType::kBoolean: return b_;
    case ValueType::kString:
      if (s_ == "true" || s_ == "TRUE") return true;
      if (s_ == "false" || s_ == "FALSE") return false;
      DMLRT_FAIL(RuntimeError, "cannot convert string '" << s_ << "' to a boolean");
    default: return d_ != 0.0;
  }
}

std::string ScalarValue::to_string() const {
  switch (type_) {
    case ValueType::kINT64:
    case ValueType::kINT32: return std::to_string(i_);
    case ValueType::kBoolean: return b_ ? "TRUE" : "FALSE";
    case ValueType::kString: return s_;
    default: return format_double_java(d_);
  }
}

ScalarValue ScalarValue::cast_to(ValueType vt) const {
  switch (vt) {
    case ValueType::kFP64:
    case ValueType::kFP32: return type_ == ValueType::kFP64 ? *this : fp64(to_double());
    case ValueType::kINT64:
    case ValueType::kINT32: return type_ == ValueType::kINT64 ? *this : int64(to_int());
    case ValueType::kBoolean: return boolean(to_bool());
    case ValueType::kString: return string(to_string());
    case ValueType::kUnknown: return *this;
  }
  return *this;
}

std::string format_double_java(double v) { return kernels::java_double_string(v); }

}  // namespace dmlrt::inst
