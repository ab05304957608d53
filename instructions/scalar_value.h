// Scalar values of the DML type system (INT64, FP64, BOOLEAN, STRING) with DML's conversions and
// print formatting (Java's Double.toString for doubles, TRUE/FALSE for booleans).
#pragma once

#include <cstdint>
#include <string>

#include "instructions/types.h"

namespace dmlrt::inst {

class ScalarValue {
 public:
  ScalarValue() = default;  // FP64 0.0
  static ScalarValue fp64(double v);
  static ScalarValue int64(int64_t v);
  static ScalarValue boolean(bool v);
  static ScalarValue string(std::string v);

  // Parses literal text of the given value type ("3", "0.5", "true", "TRUE", "abc").
  // Throws ParseError when the text is not a value of that type.
  static ScalarValue from_literal(const std::string& text, ValueType vt);

  ValueType type() const { return type_; }
  bool is_string() const { return type_ == ValueType::kString; }

  // DML conversions. Strings convert to numbers only when they parse; booleans are 0/1.
  double to_double() const;
  int64_t to_int() const;  // doubles: Java's (long) cast (truncation, saturating; NaN -> 0)
  bool to_bool() const;    // numbers: != 0; strings: "true"/"TRUE"
  std::string to_string() const;  // as DML's print shows it

  // Value converted to `vt` (FP32 and INT32 are kept as FP64 and INT64).
  ScalarValue cast_to(ValueType vt) const;

 private:
  ValueType type_ = ValueType::kFP64;
  double d_ = 0.0;
  int64_t i_ = 0;
  bool b_ = false;
  std::string s_;
};

// Java's Double.toString: "3.0", "0.1", "1.0E-20", "1.2345678E7", "NaN", "Infinity".
std::string format_double_java(double v);

}  // namespace dmlrt::inst
