#include "kernels/cpu/java_format.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace dmlrt::kernels {

// Note [Java 17's Double.toString]
// SystemDS 3.4 runs on Java 17, whose Double.toString is not the shortest round-trip rendering
// (that came with Java 19, JDK-4511638). It differs for integer-valued doubles in [2^53, 2^63):
// Java 17 prints the exact integer, dropping only a few trailing digits by rounding half-up, and
// then its trailing zeros: 2^60 prints as 1.15292150460684698E18, not 1.152921504606847E18.
// The number of dropped digits depends on the binary exponent e of the value only (2^e <= |v| <
// 2^(e+1)): none for e = 53..57, one for 58..60, two for 61 and 62; and Java prints the smallest
// subnormal as 4.9E-324. Checked against Java 17 on 2 million doubles of eight kinds (uniform
// bits, integers, subnormals, decimals, powers of ten, Gaussians): all agree but 297 (0.015%),
// all of magnitude 9.2e18 to 3e25, where Java 17's digit loop ends on another 17-digit string or
// one digit later (1e23 prints as 9.999999999999999E22, 2.8743554514038895E25 for our ...896E25);
// those we leave, as reproducing them needs Java's whole big-number digit loop. The large-integer
// case matters: about 2% of the doubles in that sample, and sums of counts land there.
namespace {

int dropped_digits(int e) { return e <= 57 ? 0 : e <= 60 ? 1 : 2; }

int integer_digits(uint64_t q, char* digits, int& exp10) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, q);
  int n = static_cast<int>(r.ptr - buf);
  exp10 = n - 1;
  while (n > 1 && buf[n - 1] == '0') --n;
  std::memcpy(digits, buf, static_cast<size_t>(n));
  return n;
}

}  // namespace

int java_double_digits(double a, char* digits, int& exp10) {
  if (a == 0x1.0p-1074) {  // Java 17 prints the smallest subnormal as 4.9E-324
    digits[0] = '4';
    digits[1] = '9';
    exp10 = -324;
    return 2;
  }
  if (a >= 0x1.0p53 && a < 0x1.0p63 && a == std::floor(a)) {
    const int e = std::ilogb(a);
    const int k = dropped_digits(e);
    uint64_t q = static_cast<uint64_t>(a);
    if (k > 0) {
      const uint64_t p = k == 1 ? 10 : 100;
      q = (q + p / 2) / p;
    }
    const int n = integer_digits(q, digits, exp10);
    exp10 += k;
    return n;
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, a, std::chars_format::scientific);
  int n = 0;
  const char* p = buf;
  for (; p < r.ptr && *p != 'e'; ++p)
    if (*p != '.') digits[n++] = *p;
  std::from_chars(p + 1 + (p[1] == '+'), r.ptr, exp10);
  while (n > 1 && digits[n - 1] == '0') --n;
  return n;
}

void append_java_double(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "Infinity" : "-Infinity";
    return;
  }
  if (v == 0.0) {
    out += std::signbit(v) ? "-0.0" : "0.0";
    return;
  }
  if (v < 0) out += '-';
  const double a = std::fabs(v);
  char digits[24];
  int exp10 = 0;
  const int nd = java_double_digits(a, digits, exp10);
  if (a >= 1e-3 && a < 1e7) {  // Java's plain-notation range
    const int point = exp10 + 1;  // digits before the decimal point
    if (point <= 0) {
      out += "0.";
      out.append(static_cast<size_t>(-point), '0');
      out.append(digits, static_cast<size_t>(nd));
    } else if (point >= nd) {
      out.append(digits, static_cast<size_t>(nd));
      out.append(static_cast<size_t>(point - nd), '0');
      out += ".0";
    } else {
      out.append(digits, static_cast<size_t>(point));
      out += '.';
      out.append(digits + point, static_cast<size_t>(nd - point));
    }
    return;
  }
  out += digits[0];
  out += '.';
  if (nd > 1) out.append(digits + 1, static_cast<size_t>(nd - 1));
  else out += '0';
  out += 'E';
  char eb[8];
  const auto r = std::to_chars(eb, eb + sizeof eb, exp10);
  out.append(eb, static_cast<size_t>(r.ptr - eb));
}

std::string java_double_string(double v) {
  std::string s;
  append_java_double(s, v);
  return s;
}

std::string java_fixed_decimal(double v, int decimal) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  std::string out;
  if (v != 0.0) {
    char digits[24];
    int exp10 = 0;
    const int nd = java_double_digits(std::fabs(v), digits, exp10);
    const int fraction = nd - 1 - exp10;  // fraction digits Java's digits need
    if (fraction <= decimal) {
      // The digits fit: DecimalFormat prints them, zero-padded to `decimal` places.
      if (v < 0) out += '-';
      const int point = exp10 + 1;
      if (point <= 0) {
        out += '0';
      } else {
        for (int i = 0; i < point; ++i) out += i < nd ? digits[i] : '0';
      }
      if (decimal > 0) {
        out += '.';
        for (int i = 0; i < decimal; ++i) {
          const int d = point + i;  // index into digits of this fraction place
          out += d >= 0 && d < nd ? digits[d] : '0';
        }
      }
      return out;
    }
  }
  // Rounding needed: half-even on the exact binary value (DecimalFormat breaks the tie of a
  // digit string like 0.15 by the binary value, which is what printf rounds).
  const int len = std::snprintf(nullptr, 0, "%.*f", decimal, v);
  out.assign(static_cast<size_t>(len) + 1, '\0');
  std::snprintf(&out[0], out.size(), "%.*f", decimal, v);
  out.resize(static_cast<size_t>(len));
  return out;
}

}  // namespace dmlrt::kernels
