// Scalar arithmetic with the semantics of SystemDS's CP backend (Java): Math.round, Math.max/min
// (NaN-propagating), Math.signum, and the Kahan summation of SystemDS's KahanPlus. Shared by the
// unary and aggregate CPU kernels so cumulative scans and reductions agree on every value.
#pragma once

#include <cmath>
#include <limits>

namespace dmlrt::kernels::cpu {

// Java's Math.round(double) widened back to double: floor(x + 1/2) computed exactly (ties go up:
// -2.5 -> -2, 2.5 -> 3), NaN -> 0, and saturation at the long range (1e300 -> 2^63).
inline double java_round(double x) {
  if (std::isnan(x)) return 0.0;
  constexpr double kLongMax = 9223372036854775807.0;  // rounds to 2^63, as (double)Long.MAX_VALUE
  if (x >= kLongMax) return kLongMax;
  if (x <= -kLongMax) return -kLongMax;
  const double f = std::floor(x);
  // x - floor(x) is exact for every double, so the tie test has no rounding error (x + 0.5 would
  // round 0.49999999999999994 up to 1).
  const double r = (x - f >= 0.5) ? f + 1.0 : f;
  return r + 0.0;  // a Java long has no -0
}

// Java's Math.max / Math.min: NaN if either is NaN; +0 is larger than -0.
inline double java_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline double java_min(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// Java's Math.signum: NaN and +-0 are returned as they are.
inline double java_signum(double x) {
  if (std::isnan(x) || x == 0.0) return x;
  return x > 0.0 ? 1.0 : -1.0;
}

// Note [Kahan summation]
// SystemDS sums with KahanPlus (uak+, uark+, uack+, uasqk+, ucumk+, and mean). dmlrt uses it for
// every sum, the plain `+` variants (ua+ uar+ uac+) included: the results only get closer to the
// exact sum. Once a value or the sum is not finite, the compensation would turn Inf into NaN
// (Inf - Inf), so from then on the sum is plain IEEE addition. SystemDS instead replaces the sum by
// an infinite addend (its sum of [Inf, -Inf] is -Inf); dmlrt keeps IEEE results (DESIGN.md §6).
struct KahanSum {
  double sum = 0.0;
  double correction = 0.0;

  void add(double x) {
    if (!std::isfinite(x) || !std::isfinite(sum)) {
      sum += x;
      correction = 0.0;
      return;
    }
    const double y = x + correction;
    const double t = sum + y;
    correction = y - (t - sum);
    sum = t;
  }

  // Adds another compensated sum (a partial of a chunked reduction), its correction included, as
  // SystemDS's KahanPlus merges two partial aggregates.
  void merge(const KahanSum& part) {
    if (!std::isfinite(part.sum) || !std::isfinite(sum)) {
      sum += part.sum;
      correction = 0.0;
      return;
    }
    const double y = part.sum + (correction + part.correction);
    const double t = sum + y;
    correction = y - (t - sum);
    sum = t;
  }
};

}  // namespace dmlrt::kernels::cpu
