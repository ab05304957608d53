// printf: Java's String.format for DML scalars, and the instruction (printf_instruction.h).
#include "instructions/printf_instruction.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <string>

#include "gpu_context/error.h"
#include "kernels/cpu/java_format.h"

namespace dmlrt::inst {
namespace {

// Note [printf as Java formats]
// java.util.Formatter renders a Double from the digits Double.toString would print (Java 17's
// FloatingDecimal), rounded HALF_UP at the requested precision and padded with zeros past them:
// String.format("%.2f", 1.005) is "1.01" and "%.20f" of 0.1 is "0.10000000000000000000", unlike
// C's printf, which rounds the exact binary value. %g keeps `precision` significant digits and
// picks fixed notation for 1e-4 <= |rounded| < 10^precision, scientific otherwise, and never
// strips zeros. A DML INT64 is a Long, so %d %o %x %h take it and %c rejects it (Java's %c takes
// Integer, not Long); a DML BOOLEAN is a Boolean, printed "true"/"false" by %s and %b.

struct Spec {
  std::string text;   // the specifier as written, for messages
  int index = 0;      // explicit argument index (1-based), -1 for '<', 0 for the next one
  std::string flags;  // of "-#+ 0,("
  int width = -1, precision = -1;
  char conv = 0;
  bool upper = false;
};

[[noreturn]] void fail(const Spec& s, const std::string& what) {
  throw RuntimeError("printf: format specifier '" + s.text + "': " + what);
}

bool has(const Spec& s, char f) { return s.flags.find(f) != std::string::npos; }

const char* java_class(const ScalarValue& v) {
  switch (v.type()) {
    case ValueType::kINT64:
    case ValueType::kINT32:
      return "java.lang.Long";
    case ValueType::kBoolean:
      return "java.lang.Boolean";
    case ValueType::kString:
      return "java.lang.String";
    default:
      return "java.lang.Double";
  }
}

bool is_long(const ScalarValue& v) {
  return v.type() == ValueType::kINT64 || v.type() == ValueType::kINT32;
}
bool is_double(const ScalarValue& v) {
  return v.type() == ValueType::kFP64 || v.type() == ValueType::kFP32;
}

// Object.toString() of the boxed argument.
std::string java_to_string(const ScalarValue& v) {
  if (v.type() == ValueType::kBoolean) return v.to_bool() ? "true" : "false";
  if (is_double(v)) return kernels::java_double_string(v.to_double());
  return v.to_string();
}

// Object.hashCode() of the boxed argument.
int32_t java_hash(const ScalarValue& v) {
  if (v.type() == ValueType::kBoolean) return v.to_bool() ? 1231 : 1237;
  if (v.type() == ValueType::kString) {
    // String.hashCode over UTF-16 code units; DML strings here are taken as Latin-1/ASCII bytes.
    uint32_t h = 0;
    for (unsigned char c : v.to_string()) h = 31 * h + c;
    return static_cast<int32_t>(h);
  }
  uint64_t b;
  if (is_long(v)) {
    b = static_cast<uint64_t>(v.to_int());
  } else {
    const double d = v.to_double();
    if (std::isnan(d)) {
      b = 0x7ff8000000000000ULL;
    } else {
      static_assert(sizeof b == sizeof d);
      std::memcpy(&b, &d, sizeof b);
    }
  }
  return static_cast<int32_t>(static_cast<uint32_t>(b ^ (b >> 32)));
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Pads to the width: spaces on the left, or on the right with '-'.
std::string justify(const Spec& s, std::string body) {
  if (s.width > static_cast<int>(body.size())) {
    const std::string pad(s.width - body.size(), ' ');
    body = has(s, '-') ? body + pad : pad + body;
  }
  return body;
}

std::string group_thousands(const std::string& digits) {
  std::string out;
  const int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// A number's sign, magnitude text and the flags + space ( 0 - and width, as Java applies them.
std::string signed_number(const Spec& s, bool neg, const std::string& magnitude) {
  std::string pre, post;
  if (neg) {
    if (has(s, '(')) {
      pre = "(";
      post = ")";
    } else {
      pre = "-";
    }
  } else if (has(s, '+')) {
    pre = "+";
  } else if (has(s, ' ')) {
    pre = " ";
  }
  std::string body = magnitude;
  if (has(s, '0')) {
    const int len = static_cast<int>(pre.size() + body.size() + post.size());
    if (s.width > len) body = std::string(s.width - len, '0') + body;
  }
  return justify(s, pre + body + post);
}

// The digits of a finite double > 0 as Java prints them (d0.d1d2... * 10^exp).
struct Digits {
  std::string d;
  int exp = 0;
};

Digits java_digits(double a) {
  if (a == 0.0) return {"0", 0};
  char buf[32];
  int exp10 = 0;
  const int n = kernels::java_double_digits(a, buf, exp10);
  return {std::string(buf, n), exp10};
}

// HALF_UP rounding to `keep` significant digits (keep <= 0 drops them all: 0, or a carry into
// the next power of ten).
Digits round_half_up(Digits x, int keep) {
  const int n = static_cast<int>(x.d.size());
  if (keep >= n) return x;
  if (keep < 0) return {"0", 0};
  const bool up = x.d[keep] >= '5';
  x.d.resize(keep);
  if (up) {
    int i = keep - 1;
    for (; i >= 0 && x.d[i] == '9'; --i) x.d[i] = '0';
    if (i >= 0) {
      ++x.d[i];
    } else {
      x.d.insert(x.d.begin(), '1');
      ++x.exp;
    }
  } else if (keep == 0) {
    return {"0", 0};
  }
  while (x.d.size() > 1 && x.d.back() == '0') x.d.pop_back();
  if (x.d.empty() || x.d == "0") return {"0", 0};
  return x;
}

std::string fixed_text(const Spec& s, const Digits& x, int prec) {
  const int n = static_cast<int>(x.d.size());
  const bool zero = x.d == "0";
  std::string ip;
  if (zero || x.exp < 0) {
    ip = "0";
  } else {
    for (int i = 0; i <= x.exp; ++i) ip += i < n ? x.d[i] : '0';
  }
  if (has(s, ',')) ip = group_thousands(ip);
  std::string out = ip;
  if (prec > 0 || has(s, '#')) out += '.';
  for (int k = 1; k <= prec; ++k) {
    const int i = x.exp + k;
    out += !zero && i >= 0 && i < n ? x.d[i] : '0';
  }
  return out;
}

std::string sci_text(const Spec& s, const Digits& x, int prec) {
  const bool zero = x.d == "0";
  std::string out(1, x.d[0]);
  if (prec > 0 || has(s, '#')) out += '.';
  for (int k = 1; k <= prec; ++k) out += k < static_cast<int>(x.d.size()) ? x.d[k] : '0';
  const int e = zero ? 0 : x.exp;
  const int ae = e < 0 ? -e : e;
  out += e < 0 ? "e-" : "e+";
  if (ae < 10) out += '0';
  out += std::to_string(ae);
  return out;
}

std::string format_double(const Spec& s, double v) {
  if (std::isnan(v) || std::isinf(v)) {
    std::string t = std::isnan(v) ? "NaN" : "Infinity";
    if (std::isinf(v) && v < 0)
      t = has(s, '(') ? "(Infinity)" : "-Infinity";
    else if (std::isinf(v) && has(s, '+'))
      t = "+Infinity";
    else if (std::isinf(v) && has(s, ' '))
      t = " Infinity";
    return justify(s, s.upper ? upper(t) : t);
  }
  const bool neg = std::signbit(v);  // Double.compare(v, 0.0) == -1: -0.0 is negative
  const Digits x = java_digits(std::fabs(v));
  std::string mag;
  if (s.conv == 'f') {
    const int prec = s.precision < 0 ? 6 : s.precision;
    mag = fixed_text(s, round_half_up(x, x.exp + 1 + prec), prec);
  } else if (s.conv == 'e') {
    const int prec = s.precision < 0 ? 6 : s.precision;
    mag = sci_text(s, round_half_up(x, prec + 1), prec);
  } else {  // 'g'
    const int prec = s.precision < 0 ? 6 : s.precision == 0 ? 1 : s.precision;
    const Digits r = round_half_up(x, prec);
    const bool zero = r.d == "0";
    if (zero || (r.exp >= -4 && r.exp < prec))
      mag = fixed_text(s, r, prec - 1 - (zero ? 0 : r.exp));
    else
      mag = sci_text(s, r, prec - 1);
  }
  if (s.upper) mag = upper(mag);
  return signed_number(s, neg, mag);
}

std::string format_long(const Spec& s, int64_t v) {
  if (s.conv == 'd') {
    const uint64_t m = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    std::string digits = std::to_string(m);
    if (has(s, ',')) digits = group_thousands(digits);
    return signed_number(s, v < 0, digits);
  }
  // o, x: the two's complement bits of a negative Long, no sign flags.
  if (has(s, '+') || has(s, ' ') || has(s, ',') || has(s, '('))
    fail(s, "flags + space , ( do not apply to a Long in %" + std::string(1, s.conv));
  const uint64_t u = static_cast<uint64_t>(v);
  std::string digits;
  const int shift = s.conv == 'o' ? 3 : 4;
  const uint64_t mask = s.conv == 'o' ? 7 : 15;
  uint64_t w = u;
  do {
    digits.insert(digits.begin(), "0123456789abcdef"[w & mask]);
    w >>= shift;
  } while (w != 0);
  std::string prefix = has(s, '#') ? (s.conv == 'o' ? "0" : "0x") : "";
  if (has(s, '0') && s.width > static_cast<int>(prefix.size() + digits.size()))
    digits = std::string(s.width - prefix.size() - digits.size(), '0') + digits;
  std::string body = prefix + digits;
  return justify(s, s.upper ? upper(body) : body);
}

// Parses one specifier starting after '%' at fmt[i]; i ends past the conversion.
Spec parse_spec(const std::string& fmt, size_t& i) {
  Spec s;
  const size_t start = i - 1;
  auto digits = [&]() {
    int v = 0;
    while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i])))
      v = std::min(v * 10 + (fmt[i++] - '0'), 1 << 24);
    return v;
  };
  // [index$]: digits followed by '$' (else the digits are the width, or a '0' flag first).
  size_t j = i;
  while (j < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[j]))) ++j;
  if (j > i && j < fmt.size() && fmt[j] == '$') {
    s.index = digits();
    ++i;
  }
  while (i < fmt.size() && std::string("-#+ 0,(<").find(fmt[i]) != std::string::npos) {
    if (fmt[i] == '<')
      s.index = -1;
    else
      s.flags += fmt[i];
    ++i;
  }
  if (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) s.width = digits();
  if (i < fmt.size() && fmt[i] == '.') {
    ++i;
    if (i >= fmt.size() || !std::isdigit(static_cast<unsigned char>(fmt[i]))) {
      s.text = fmt.substr(start, i - start);
      fail(s, "a precision needs digits");
    }
    s.precision = digits();
  }
  if (i >= fmt.size()) {
    s.text = fmt.substr(start);
    fail(s, "the format ends inside a specifier (Java: UnknownFormatConversionException)");
  }
  const char c = fmt[i++];
  s.text = fmt.substr(start, i - start);
  s.upper = std::isupper(static_cast<unsigned char>(c)) != 0;
  s.conv = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string java_format_string(const std::string& fmt, const std::vector<ScalarValue>& args) {
  std::string out;
  int next = 0, last = -1;  // ordinary index, last used argument
  for (size_t i = 0; i < fmt.size();) {
    if (fmt[i] != '%') {
      out += fmt[i++];
      continue;
    }
    ++i;
    const Spec s = parse_spec(fmt, i);
    if (s.conv == '%' || s.conv == 'n') {
      if (s.precision >= 0) fail(s, "no precision applies (Java: IllegalFormatPrecisionException)");
      std::string t = s.conv == '%' ? "%" : "\n";
      out += s.conv == '%' ? justify(s, t) : t;
      continue;
    }
    if ((has(s, '-') || has(s, '0')) && s.width < 0)
      fail(s, "the flags - and 0 need a width (Java: MissingFormatWidthException)");
    if (has(s, '-') && has(s, '0'))
      fail(s, "the flags - and 0 together (Java: IllegalFormatFlagsException)");
    if (has(s, '+') && has(s, ' '))
      fail(s, "the flags + and space together (Java: IllegalFormatFlagsException)");
    int ai = s.index > 0 ? s.index - 1 : s.index < 0 ? last : next++;
    if (ai < 0 || ai >= static_cast<int>(args.size()))
      fail(s, "no argument for it (Java: MissingFormatArgumentException)");
    last = ai;
    const ScalarValue& a = args[ai];
    const std::string mismatch = std::string(1, s.conv) + " != " + java_class(a) +
                                 " (Java: IllegalFormatConversionException)";
    switch (s.conv) {
      case 'b':
      case 's':
      case 'h': {
        if (has(s, '#') || has(s, '+') || has(s, ' ') || has(s, '0') || has(s, ',') || has(s, '('))
          fail(s, "only the flag - applies (Java: FormatFlagsConversionMismatchException)");
        std::string t;
        if (s.conv == 's')
          t = java_to_string(a);
        else if (s.conv == 'b')
          t = a.type() == ValueType::kBoolean ? (a.to_bool() ? "true" : "false") : "true";
        else {
          char buf[16];
          std::snprintf(buf, sizeof buf, "%x", static_cast<uint32_t>(java_hash(a)));
          t = buf;
        }
        if (s.precision >= 0 && s.precision < static_cast<int>(t.size())) t.resize(s.precision);
        out += justify(s, s.upper ? upper(t) : t);
        break;
      }
      case 'd':
      case 'o':
      case 'x':
        if (!is_long(a)) fail(s, mismatch);
        if (s.precision >= 0)
          fail(s, "no precision applies (Java: IllegalFormatPrecisionException)");
        if (s.conv == 'd' && has(s, '#'))
          fail(s, "the flag # does not apply (Java: FormatFlagsConversionMismatchException)");
        out += format_long(s, a.to_int());
        break;
      case 'e':
      case 'f':
      case 'g':
        if (!is_double(a)) fail(s, mismatch);
        if ((s.conv == 'g' && has(s, '#')) || (s.conv == 'e' && has(s, ',')))
          fail(s, "a flag that does not apply (Java: FormatFlagsConversionMismatchException)");
        out += format_double(s, a.to_double());
        break;
      case 'c':
        fail(s, mismatch);  // Java's %c takes Character, Byte, Short, Integer; DML has Long
      case 'a':
        fail(s, "hexadecimal floating point (%a) is not supported by dmlrt");
      case 't':
        fail(s, "date/time conversions need a date argument, which DML has not");
      default:
        fail(s, std::string("unknown conversion '") + fmt[i - 1] +
                    "' (Java: UnknownFormatConversionException)");
    }
  }
  return out;
}

PrintfInstruction::PrintfInstruction(InstructionText t) : Instruction(std::move(t)) {
  DMLRT_REQUIRE(num_fields() >= 2, ParseError,
                where() << ": printf needs a format operand and an output");
  for (size_t i = 0; i + 1 < num_fields(); ++i) {
    in_.push_back(operand(i));
    DMLRT_REQUIRE(!in_.back().is_matrix(), ParseError,
                  where() << ": printf takes scalars only, operand " << (i + 1) << " is a matrix");
  }
  out_ = operand(num_fields() - 1);
}

void PrintfInstruction::run_cpu(ExecutionContext& ec) {
  const ScalarValue fmt = ec.scalar(in_[0]);
  // SystemDS: "First parameter needs to be a string".
  DMLRT_REQUIRE(fmt.type() == ValueType::kString, RuntimeError,
                "printf: the first parameter needs to be a string, got " << fmt.to_string());
  std::vector<ScalarValue> args;
  for (size_t i = 1; i < in_.size(); ++i) args.push_back(ec.scalar(in_[i]));
  const std::string s = java_format_string(fmt.to_string(), args);
  ec.services().out() << s << '\n';
  ec.set_scalar(out_.name, ScalarValue::string(s));
}

}  // namespace dmlrt::inst
