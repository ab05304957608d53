// How SystemDS (Java 17) renders doubles as text: Double.toString, used by print, string
// concatenation and the csv/text writers, and the fixed-point form of toString(X, decimal=d).
// One implementation for all of them; see Note [Java 17's Double.toString].
#pragma once

#include <string>

namespace dmlrt::kernels {

// The decimal significand Java 17's Double.toString prints for a finite a > 0: its digits (no
// leading or trailing zeros, at most 19, written to `digits`) and the decimal exponent of the
// first one (a = 0.d1d2... * 10^(exp10 + 1)). Returns the number of digits.
int java_double_digits(double a, char* digits, int& exp10);

// Appends Double.toString(v): "1.0", "0.001", "1.0E7", "9.999999999999999E22", "NaN",
// "-Infinity", "-0.0".
void append_java_double(std::string& out, double v);
std::string java_double_string(double v);

// toString(X, decimal=d)'s rendering of one cell (SystemDS formats with a DecimalFormat of d
// fraction digits, minimum and maximum, HALF_EVEN): Java's digits padded with zeros where they
// fit in d fraction digits, else the exact binary value rounded half-even to d digits.
std::string java_fixed_decimal(double v, int decimal);

}  // namespace dmlrt::kernels
