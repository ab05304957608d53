// CPU kernels of cdf / invcdf (pnorm, qt, pchisq, ...): the five distributions SystemDS accepts,
// with Boost.Math's special functions. SystemDS computes them with Apache Commons Math; see
// Note [Distributions against Commons Math] in distribution.cpp for where the two differ.
#pragma once

#include <cstdint>
#include <string>

namespace dmlrt::kernels::cpu {

enum class Distribution { kNormal, kExp, kChisq, kF, kT };

// "normal", "exp", "chisq", "f", "t" (SystemDS's ProbabilityDistributionCode); false otherwise.
bool distribution_from_name(const std::string& name, Distribution* out);

// The parameters each distribution reads; the rest are ignored, as in SystemDS (an "exp" reads
// only rate, never mean). The caller validates them (sd > 0, rate > 0, df > 0).
struct DistributionParams {
  double mean = 0.0;  // normal
  double sd = 1.0;    // normal
  double rate = 1.0;  // exp: mean 1/rate
  int64_t df = 0;     // chisq, t
  int64_t df1 = 0;    // f
  int64_t df2 = 0;    // f
};

// P(X <= x), or 1 - P(X <= x) for the upper tail (SystemDS subtracts; it does not use the
// complement). NaN for NaN x.
double distribution_cdf(Distribution d, const DistributionParams& p, double x, bool lower_tail);

// The x with P(X <= x) = prob; prob in [0, 1] (the caller checks). prob 0 and 1 give the ends of
// the support (0 or -Infinity, +Infinity). NaN for NaN prob.
double distribution_invcdf(Distribution d, const DistributionParams& p, double prob);

}  // namespace dmlrt::kernels::cpu
