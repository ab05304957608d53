// Scalar semantics shared by host and CUDA device code (DMLRT_HD): SystemDS's CP (Java) rules for
// max/min with NaN, pow, %%, %/%, round and signum, plus a portable log and cos(2*pi*u) built from
// IEEE-exact operations only, so the CPU and the GPU draw bit-identical normal random numbers.
// The GPU kernels use these functions; the CPU kernels keep their own (kernels/cpu/java_math.h,
// binary.cpp) and the GPU tests compare the two.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define DMLRT_HD __host__ __device__
#else
#define DMLRT_HD
#endif

namespace dmlrt::kernels::ops {

// Note [No FMA contraction]
// nvcc fuses a*b + c into one fma by default (-fmad=true); the host compiler (ISO C++ mode, x86-64
// without FMA) rounds the product first. Where the CPU result must be reproduced exactly (1-*, %%,
// +*, rand's min + (max-min)*u, the portable log and cos), the multiply and the add are spelled
// with these helpers, which the device compiles to the non-contractible __dmul_rn / __dadd_rn.
DMLRT_HD inline double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
DMLRT_HD inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
DMLRT_HD inline double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
DMLRT_HD inline float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
template <typename T>
DMLRT_HD inline T sub_rn(T a, T b) {
  return add_rn(a, -b);
}

template <typename T>
DMLRT_HD inline bool is_nan(T x) {
  return x != x;
}
template <typename T>
DMLRT_HD inline bool is_finite(T x) {
  return x - x == T(0);  // false for NaN and +-Inf
}
template <typename T>
DMLRT_HD inline T nan_value() {
  return static_cast<T>(NAN);
}
template <typename T>
DMLRT_HD inline T inf_value() {
  return static_cast<T>(INFINITY);
}

// Java's Math.max / Math.min: NaN if either is NaN; +0 is larger than -0 (fmax ignores NaN).
template <typename T>
DMLRT_HD inline T java_max(T a, T b) {
  if (is_nan(a) || is_nan(b)) return nan_value<T>();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <typename T>
DMLRT_HD inline T java_min(T a, T b) {
  if (is_nan(a) || is_nan(b)) return nan_value<T>();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// Java's Math.pow: pow(x, NaN) and pow(+-1, +-Inf) are NaN, where C's pow gives 1.
template <typename T>
DMLRT_HD inline T java_pow(T x, T y) {
  if (is_nan(y)) return nan_value<T>();
  if (!is_finite(y) && std::fabs(x) == T(1)) return nan_value<T>();
  return std::pow(x, y);
}

// SystemDS IntegerDivide: the double quotient, kept when NaN/Inf, else truncated toward zero with
// UtilFunctions.toLong's eps (signum(q) * floor(|q| + 2^-53)) and saturated at the long range, as
// the (long) cast does; -0 becomes 0 (a long has no -0). -7 %/% 2 == -3.
template <typename T>
DMLRT_HD inline T int_divide(T x, T y) {
  const T q = x / y;
  if (!is_finite(q)) return q;
  const T sign = q > T(0) ? T(1) : (q < T(0) ? T(-1) : T(0));
  T t = sign * std::floor(std::fabs(q) + static_cast<T>(0x1p-53));
  const T kLong = static_cast<T>(9223372036854775807.0);  // 2^63 after rounding
  if (t >= kLong) t = kLong;
  if (t <= -kLong) t = -kLong;
  return t + T(0);
}

// SystemDS Modulus: NaN for y == 0, else x - (x %/% y) * y (the sign follows x: -7 %% 2 == -1).
template <typename T>
DMLRT_HD inline T modulus(T x, T y) {
  if (y == T(0)) return nan_value<T>();
  return sub_rn(x, mul_rn(int_divide(x, y), y));
}

// Java's Math.round widened back: floor(x + 1/2) computed exactly (-2.5 -> -2), NaN -> 0,
// saturated at the long range, no -0.
template <typename T>
DMLRT_HD inline T java_round(T x) {
  if (is_nan(x)) return T(0);
  const T kLong = static_cast<T>(9223372036854775807.0);
  if (x >= kLong) return kLong;
  if (x <= -kLong) return -kLong;
  const T f = std::floor(x);
  const T r = (x - f >= T(0.5)) ? f + T(1) : f;  // x - floor(x) is exact
  return r + T(0);
}

// Java's Math.signum: NaN and +-0 are returned as they are.
template <typename T>
DMLRT_HD inline T java_signum(T x) {
  if (is_nan(x) || x == T(0)) return x;
  return x > T(0) ? T(1) : T(-1);
}

template <typename T>
DMLRT_HD inline T sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

// Java's `v != 0`: NaN counts as true.
template <typename T>
DMLRT_HD inline bool truthy(T v) {
  return v != T(0);
}

// ---- Portable log and cos(2*pi*u) for the rand generator (see Note [Portable normal]) -------

// Note [Portable normal]
// Box-Muller needs log and cos; glibc's and CUDA's differ in the last bit for some arguments, so
// rand(pdf="normal") would differ between CPU and GPU. Both backends use these two functions
// instead: fdlibm's e_log.c algorithm, and a cosine whose argument reduction is exact because the
// angle is 2*pi*u for a dyadic u (quadrant = round(4u), remainder exact), followed by fdlibm's
// sin/cos kernel polynomials. Only +, -, *, / and exact bit operations are used, each rounded once
// (Note [No FMA contraction]), so every platform computes the same bits; accuracy is within about
// one ulp of the correctly rounded value.
namespace detail {

DMLRT_HD inline uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(x));
#else
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}
DMLRT_HD inline double double_of(uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(b));
#else
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
#endif
}

// sin(x) and cos(x) for |x| <= pi/4 (fdlibm k_sin.c / k_cos.c with a zero tail).
DMLRT_HD inline double kernel_sin(double x) {
  const double z = mul_rn(x, x);
  const double v = mul_rn(z, x);
  double r = add_rn(-2.50507602534068634195e-08, mul_rn(z, 1.58969099521155010221e-10));
  r = add_rn(2.75573137070700676789e-06, mul_rn(z, r));
  r = add_rn(-1.98412698298579493134e-04, mul_rn(z, r));
  r = add_rn(8.33333333332248946124e-03, mul_rn(z, r));
  return add_rn(x, mul_rn(v, add_rn(-1.66666666666666324348e-01, mul_rn(z, r))));
}
DMLRT_HD inline double kernel_cos(double x) {
  const double z = mul_rn(x, x);
  double r = add_rn(2.08757232129817482790e-09, mul_rn(z, -1.13596475577881948265e-11));
  r = add_rn(-2.75573143513906633035e-07, mul_rn(z, r));
  r = add_rn(2.48015872894767294178e-05, mul_rn(z, r));
  r = add_rn(-1.38888888888741095749e-03, mul_rn(z, r));
  r = add_rn(4.16666666666666019037e-02, mul_rn(z, r));
  r = mul_rn(z, r);
  const double hz = mul_rn(0.5, z);
  const double zr = mul_rn(z, r);
  if (std::fabs(x) < 0.3) return sub_rn(1.0, sub_rn(hz, zr));
  // fdlibm's split 1 - qx - (hz - qx - z*r) keeps the subtraction exact for larger |x|.
  const double qx = std::fabs(x) > 0.78125 ? 0.28125 : mul_rn(0.25, std::fabs(x));
  const double qxt = double_of(bits_of(qx) & 0xFFFFFFFF00000000ull);  // fdlibm keeps the high word
  return sub_rn(sub_rn(1.0, qxt), sub_rn(sub_rn(hz, qxt), zr));
}

}  // namespace detail

// Natural logarithm (fdlibm e_log.c).
DMLRT_HD inline double portable_log(double x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kTwo54 = 1.80143985094819840000e+16;
  uint64_t b = detail::bits_of(x);
  int32_t hx = static_cast<int32_t>(b >> 32);
  int k = 0;
  if (hx < 0x00100000) {                                                // x < 2^-1022
    if ((b & 0x7FFFFFFFFFFFFFFFull) == 0) return -inf_value<double>();  // log(+-0)
    if (hx < 0) return nan_value<double>();                             // log(negative)
    k -= 54;
    x = mul_rn(x, kTwo54);  // subnormal: scale up
    b = detail::bits_of(x);
    hx = static_cast<int32_t>(b >> 32);
  }
  if (hx >= 0x7FF00000) return x + x;  // Inf or NaN
  k += (hx >> 20) - 1023;
  hx &= 0x000FFFFF;
  const int32_t i = (hx + 0x95F64) & 0x100000;
  // Normalise x (or x/2) into [sqrt(2)/2, sqrt(2)).
  x = detail::double_of(
      (static_cast<uint64_t>(static_cast<uint32_t>(hx | (i ^ 0x3FF00000))) << 32) |
      (b & 0xFFFFFFFFull));
  k += (i >> 20);
  const double f = sub_rn(x, 1.0);
  const double dk = static_cast<double>(k);
  if ((0x000FFFFF & (2 + hx)) < 3) {  // |f| < 2^-20
    if (f == 0.0) {
      if (k == 0) return 0.0;
      return add_rn(mul_rn(dk, kLn2Hi), mul_rn(dk, kLn2Lo));
    }
    const double rr = mul_rn(mul_rn(f, f), sub_rn(0.5, mul_rn(0.33333333333333333, f)));
    if (k == 0) return sub_rn(f, rr);
    return sub_rn(mul_rn(dk, kLn2Hi), sub_rn(sub_rn(rr, mul_rn(dk, kLn2Lo)), f));
  }
  const double s = f / add_rn(2.0, f);
  const double z = mul_rn(s, s);
  const double w = mul_rn(z, z);
  const double t1 = mul_rn(
      w, add_rn(3.999999999940941908e-01,
                mul_rn(w, add_rn(2.222219843214978396e-01, mul_rn(w, 1.531383769920937332e-01)))));
  const double t2 =
      mul_rn(z, add_rn(6.666666666666735130e-01,
                       mul_rn(w, add_rn(2.857142874366239149e-01,
                                        mul_rn(w, add_rn(1.818357216161805012e-01,
                                                         mul_rn(w, 1.479819860511658591e-01)))))));
  const int32_t ii = (hx - 0x6147A) | (0x6B851 - hx);
  const double r = add_rn(t2, t1);
  if (ii > 0) {
    const double hfsq = mul_rn(mul_rn(0.5, f), f);
    const double shr = mul_rn(s, add_rn(hfsq, r));
    if (k == 0) return sub_rn(f, sub_rn(hfsq, shr));
    return sub_rn(mul_rn(dk, kLn2Hi), sub_rn(sub_rn(hfsq, add_rn(shr, mul_rn(dk, kLn2Lo))), f));
  }
  const double sfr = mul_rn(s, sub_rn(f, r));
  if (k == 0) return sub_rn(f, sfr);
  return sub_rn(mul_rn(dk, kLn2Hi), sub_rn(sub_rn(sfr, mul_rn(dk, kLn2Lo)), f));
}

// cos(2*pi*u) for u in [0, 1) with 53-bit dyadic u (exact argument reduction).
DMLRT_HD inline double portable_cos_2pi(double u) {
  const double t = mul_rn(4.0, u);  // quarter turns, exact
  double q = std::floor(t);
  double f = sub_rn(t, q);  // exact, in [0, 1)
  if (f > 0.5) {
    q = add_rn(q, 1.0);
    f = sub_rn(f, 1.0);  // exact (Sterbenz), in (-0.5, 0)
  }
  const double theta = mul_rn(f, 1.57079632679489661923);  // |theta| <= pi/4
  const int quadrant = static_cast<int>(q) & 3;
  switch (quadrant) {
    case 0:
      return detail::kernel_cos(theta);
    case 1:
      return -detail::kernel_sin(theta);
    case 2:
      return -detail::kernel_cos(theta);
    default:
      return detail::kernel_sin(theta);
  }
}

}  // namespace dmlrt::kernels::ops
