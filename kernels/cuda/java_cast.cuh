// Device form of SystemDS's UtilFunctions.toLong (kernels/cpu/parameterized.h, java_to_long), for
// the kernels that turn values into 1-based indices (rexpand, ctable). .cu only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace dmlrt::kernels::cuda::detail {

// signum(v) * floor(|v| + 2^-53), saturating as Java's (long) cast; NaN -> 0. The same steps as
// the CPU's, in double, so both backends give the same index for every value.
__device__ __forceinline__ int64_t java_to_long(double v) {
  constexpr double kDoubleEps = 1.1102230246251565e-16;  // 2^-53
  if (isnan(v)) return 0;
  const double f = floor(fabs(v) + kDoubleEps);
  const double r = v < 0 ? -f : f;
  if (r >= 9223372036854775807.0) return INT64_MAX;
  if (r <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(r);
}

}  // namespace dmlrt::kernels::cuda::detail
