// Java 17's number renderings (kernels/cpu/java_format.h), against strings Java 17 printed:
// Double.toString for print, string concatenation and the writers, and toString(X, decimal=d).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "kernels/cpu/java_format.h"
#include "common/test_paths.h"

using dmlrt::kernels::java_double_string;
using dmlrt::kernels::java_fixed_decimal;

TEST_CASE("Double.toString as Java 17 prints it, including its non-shortest large integers", "[format]") {
  // Java 17 keeps the digits of integer-valued doubles in [2^53, 2^63) (Note [Java 17's
  // Double.toString]); the shortest rendering of 2^60 would be 1.152921504606847E18.
  CHECK(java_double_string(std::ldexp(1.0, 60)) == "1.15292150460684698E18");
  CHECK(java_double_string(std::ldexp(1.0, 62) + std::ldexp(1.0, 10)) == "4.6116860184273889E18");
  CHECK(java_double_string(-std::ldexp(3.0, 58)) == "-8.6469112845513523E17");
  CHECK(java_double_string(std::ldexp(9.0, 55)) == "3.2425917317067571E17");
  CHECK(java_double_string(std::ldexp(1.0, 53)) == "9.007199254740992E15");
  CHECK(java_double_string(0x1.0p-1074) == "4.9E-324");
  CHECK(java_double_string(0.1 + 0.2) == "0.30000000000000004");
  CHECK(java_double_string(9.999999999999998e-4) == "9.999999999999998E-4");
  CHECK(java_double_string(1e7) == "1.0E7");
  CHECK(java_double_string(-0.0) == "-0.0");

  // 300 doubles drawn from 2 million printed by Java 17 (half of them large integers).
  std::ifstream in(dmlrt::test::test_data_dir() + "/unit/data/format/java17_doubles.txt");
  REQUIRE(in.good());
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string hex, java;
    fields >> hex >> java;
    const uint64_t bits = std::stoull(hex, nullptr, 16);
    double v;
    std::memcpy(&v, &bits, sizeof v);
    INFO(hex << " " << java);
    CHECK(java_double_string(v) == java);
    ++checked;
  }
  CHECK(checked == 300);
}

TEST_CASE("toString(decimal=d) pads Java's digits and rounds the binary value half-even", "[format]") {
  // What SystemDS 3.4 prints for toString(X, decimal=d) of these cells.
  CHECK(java_fixed_decimal(24.3596, 17) == "24.35960000000000000");  // not ...00036, the binary value
  CHECK(java_fixed_decimal(-5.7056, 3) == "-5.706");
  CHECK(java_fixed_decimal(0.15, 1) == "0.1");  // 0.1499999... : the tie is broken by the binary value
  CHECK(java_fixed_decimal(0.35, 1) == "0.3");
  CHECK(java_fixed_decimal(0.25, 1) == "0.2");  // an exact tie: half-even
  CHECK(java_fixed_decimal(2.5, 0) == "2");
  CHECK(java_fixed_decimal(7.0, 3) == "7.000");
  CHECK(java_fixed_decimal(0.000123, 3) == "0.000");
  CHECK(java_fixed_decimal(1e20, 2) == "100000000000000000000.00");
  CHECK(java_fixed_decimal(std::ldexp(1.0, 60), 1) == "1152921504606846980.0");  // Java's digits, padded
  CHECK(java_fixed_decimal(99.995, 2) == "100.00");  // 99.99500000000000454...
}
