// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), the
// counter-based generator behind dmlrt's rand: a value depends only on (seed, cell index, draw
// number), never on the order or the thread that computes it, so CPU and GPU give the same values.
// Header-only; every function compiles for host and CUDA device code.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/scalar_ops.h"  // DMLRT_HD, portable log/cos

namespace dmlrt::kernels {

struct Philox4x32 {
  uint32_t v[4];
};

namespace detail {

constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;  // golden ratio
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;  // sqrt(3) - 1

DMLRT_HD inline void philox_round(uint32_t ctr[4], const uint32_t key[2]) {
  const uint64_t p0 = static_cast<uint64_t>(kPhiloxM0) * ctr[0];
  const uint64_t p1 = static_cast<uint64_t>(kPhiloxM1) * ctr[2];
  const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
  const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
  const uint32_t c1 = ctr[1], c3 = ctr[3];
  ctr[0] = hi1 ^ c1 ^ key[0];
  ctr[1] = lo1;
  ctr[2] = hi0 ^ c3 ^ key[1];
  ctr[3] = lo0;
}

}  // namespace detail

// One Philox4x32-10 block: 128 random bits for (counter, key).
DMLRT_HD inline Philox4x32 philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                                         uint32_t k0, uint32_t k1) {
  uint32_t ctr[4] = {c0, c1, c2, c3};
  uint32_t key[2] = {k0, k1};
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += detail::kPhiloxW0;
      key[1] += detail::kPhiloxW1;
    }
    detail::philox_round(ctr, key);
  }
  return Philox4x32{{ctr[0], ctr[1], ctr[2], ctr[3]}};
}

// Note [Philox cell streams]
// Cell i of a rand matrix (row-major linear index) owns the counters (lo32(i), hi32(i), j, 0) for
// j = 0, 1, 2, ... under the key (lo32(seed), hi32(seed)); its words are read in order. Word 0
// decides whether the cell is nonzero (sparsity), the following words feed the distribution. A
// GPU kernel that walks the same stream produces bit-identical matrices.
class PhiloxCellStream {
 public:
  DMLRT_HD PhiloxCellStream(uint64_t seed, uint64_t cell)
      : k0_(static_cast<uint32_t>(seed)),
        k1_(static_cast<uint32_t>(seed >> 32)),
        c0_(static_cast<uint32_t>(cell)),
        c1_(static_cast<uint32_t>(cell >> 32)) {}

  DMLRT_HD uint32_t next_u32() {
    if (pos_ == 4) {
      buf_ = philox4x32_10(c0_, c1_, block_++, 0u, k0_, k1_);
      pos_ = 0;
    }
    return buf_.v[pos_++];
  }

  // Uniform in [0, 1) with 53 random bits (two words).
  DMLRT_HD double next_double() {
    const uint64_t a = next_u32() >> 5;                                      // 27 bits
    const uint64_t b = next_u32() >> 6;                                      // 26 bits
    return static_cast<double>((a << 26) | b) * (1.0 / 9007199254740992.0);  // 2^-53
  }

  // Uniform in (0, 1]: safe for log().
  DMLRT_HD double next_double_open0() { return 1.0 - next_double(); }

 private:
  uint32_t k0_, k1_, c0_, c1_;
  uint32_t block_ = 0;
  int pos_ = 4;
  Philox4x32 buf_{{0, 0, 0, 0}};
};

// True with probability `p` from one word (exact for p = 0 and p = 1).
DMLRT_HD inline bool philox_bernoulli(uint32_t word, double p) {
  if (p >= 1.0) return true;
  if (p <= 0.0) return false;
  return static_cast<double>(word) * (1.0 / 4294967296.0) < p;  // word / 2^32 in [0, 1)
}

// Standard normal by Box-Muller from two uniforms (the cosine branch only, so each cell uses a
// fixed number of words). log and cos are the portable ones, so CPU and GPU agree bit for bit
// (see Note [Portable normal] in scalar_ops.h); sqrt and * are IEEE-exact everywhere.
DMLRT_HD inline double philox_normal(PhiloxCellStream& s) {
  const double u1 = s.next_double_open0();
  const double u2 = s.next_double();
  return ops::mul_rn(std::sqrt(ops::mul_rn(-2.0, ops::portable_log(u1))),
                     ops::portable_cos_2pi(u2));
}

// Poisson(lambda): Knuth's product of uniforms for small lambda; Hörmann's transformed rejection
// (PTRS, "The transformed rejection method for generating Poisson random variables", 1993) for
// lambda >= 10, where Knuth's O(lambda) loop and exp(-lambda) underflow would hurt.
DMLRT_HD inline double philox_poisson(PhiloxCellStream& s, double lambda) {
  if (!(lambda > 0.0)) return 0.0;
  if (lambda < 10.0) {
    const double limit = std::exp(-lambda);
    double prod = s.next_double_open0();
    double k = 0.0;
    while (prod > limit) {
      prod *= s.next_double_open0();
      k += 1.0;
    }
    return k;
  }
  const double slam = std::sqrt(lambda);
  const double loglam = std::log(lambda);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2.0);
  while (true) {
    const double u = s.next_double() - 0.5;
    const double v = s.next_double_open0();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2.0 * a / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <=
        -lambda + k * loglam - std::lgamma(k + 1.0))
      return k;
  }
}

}  // namespace dmlrt::kernels
