// SystemDS's KMV sketch (countDistinctApprox: KMVSketch, Hash.linearHash) as host and device code
// (DMLRT_HD), so the CPU kernel (kernels/cpu/count_distinct.cpp) and the GPU run
// (instructions/count_distinct_gpu.cpp, kernels/cuda/sort.cu) hash, bucket and estimate with the
// same bits. The sketch keeps the k smallest distinct values it is offered; which values those
// are (hash buckets of the whole matrix, or the cells of each row or column) is the caller's.
#pragma once

#include <climits>
#include <cstdint>

#include "kernels/scalar_ops.h"

namespace dmlrt::kernels::kmv {

// KMVSketch's parameters for D possible distinct values: k kept values, M hash buckets.
DMLRT_HD inline int64_t sketch_k(int64_t D) { return D < 64 ? D : 64; }
DMLRT_HD inline int32_t sketch_m(int64_t D) {
  const double dd = static_cast<double>(D) * static_cast<double>(D);
  return dd > static_cast<double>(INT_MAX) ? INT_MAX : static_cast<int32_t>(D * D);
}

// Double.doubleToLongBits: every NaN is the canonical one.
DMLRT_HD inline uint64_t java_bits(double v) {
  return v != v ? 0x7ff8000000000000ULL : ops::detail::bits_of(v);
}

DMLRT_HD inline uint32_t parity(uint32_t x) {
  x ^= x >> 16;
  x ^= x >> 8;
  x ^= x >> 4;
  x ^= x >> 2;
  x ^= x >> 1;
  return x & 1u;
}

// Hash.hash(double, LinearHash): bit i (from the top) is the parity of SystemDS's mask i (Hash.a)
// and the xor of the value's two 32-bit halves.
DMLRT_HD inline int32_t linear_hash(double v) {
  constexpr uint32_t kMasks[32] = {
      0xFFFFFFFF, 0xB7825CBC, 0x10FA23F2, 0xD54E1532, 0x7590E53C, 0xECE6F631, 0x8954BF60,
      0x5BE38B88, 0xCA1D3AC0, 0xB2726F8E, 0xBADE7E7A, 0xCACD1184, 0xFB32BDAD, 0x2936C9D7,
      0xB5B88D37, 0xD272D353, 0xE139A063, 0xDACF6B87, 0x3568D521, 0x75C619EA, 0x7C2B8CBD,
      0x012C3C7F, 0x0A621C37, 0x77274A12, 0x731D379A, 0xE45E0D3B, 0xEAB4AE13, 0x10C440C7,
      0x50CF2899, 0xD865BD46, 0xAABDF34F, 0x218FA0C3};
  const uint64_t b = java_bits(v);
  const uint32_t x = static_cast<uint32_t>(b ^ (b >> 32));
  uint32_t res = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int i = 0; i < 32; ++i) res = (res << 1) + parity(kMasks[i] & x);
  return static_cast<int32_t>(res);
}

// The bucket of v in [1, M - 1] (KMVSketch: Math.abs(hash) % (M - 1) + 1, Java int arithmetic:
// Math.abs(Integer.MIN_VALUE) stays negative).
DMLRT_HD inline double bucket(double v, int32_t M) {
  const int32_t h = linear_hash(v);
  const int32_t a = h == INT_MIN ? h : (h < 0 ? -h : h);
  return static_cast<double>(a % (M - 1) + 1);
}

// KMVSketch's estimate from `distinct` values kept (at most k) and the largest of them, kth:
// the count itself below k, else round((k - 1) / (kth / M)) capped at D.
DMLRT_HD inline double estimate(int64_t distinct, int64_t k, double kth, int64_t D, int32_t M) {
  if (distinct < k) return static_cast<double>(distinct);
  const double u_k = kth / M;
  const double q = static_cast<double>(k - 1) / u_k, cap = static_cast<double>(D);
  return ops::java_round(cap < q ? cap : q);
}

}  // namespace dmlrt::kernels::kmv
