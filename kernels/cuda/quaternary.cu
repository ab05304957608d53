// Quaternary kernel family: the per-cell step of the weighted factorisation operators; see
// quaternary.h (Note [GPU quaternary ops]). Cell values follow kernels/cpu/quaternary.cpp.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/quaternary.h"

namespace dmlrt::kernels::cuda {
namespace {

template <typename T>
__device__ __forceinline__ T sigmoid_of(T v) {
  return T(1) / (T(1) + exp(-v));
}

template <QuatCell Op, typename T>
__device__ __forceinline__ T cell_value(T w, T x, T uv, T eps) {
  if constexpr (Op == QuatCell::kWslossPre) {
    const T d = w - (x != T(0) ? x * uv : T(0));
    return d * d;
  } else if constexpr (Op == QuatCell::kWslossNone) {
    const T d = w - uv;
    return d * d;
  } else {
    if (w == T(0)) return T(0);  // NaN weights count as nonzero, as on the CPU
    if constexpr (Op == QuatCell::kWslossPost) {
      const T d = x - uv;
      return w * d * d;
    } else if constexpr (Op == QuatCell::kWslossPostNz) {
      const T d = w - uv;
      return d * d;
    } else if constexpr (Op == QuatCell::kWcemm) {
      return w * log(uv + eps);
    } else if constexpr (Op == QuatCell::kWsigmoid) {
      return w * sigmoid_of(uv);
    } else if constexpr (Op == QuatCell::kWsigmoidLog) {
      return w * log(sigmoid_of(uv));
    } else if constexpr (Op == QuatCell::kWsigmoidMinus) {
      return w * sigmoid_of(-uv);
    } else if constexpr (Op == QuatCell::kWsigmoidLogMinus) {
      return w * log(sigmoid_of(-uv));
    } else if constexpr (Op == QuatCell::kWdivmmMult || Op == QuatCell::kWummMult) {
      return w * uv;
    } else if constexpr (Op == QuatCell::kWdivmmDiv || Op == QuatCell::kWummDiv) {
      return w / uv;
    } else if constexpr (Op == QuatCell::kWdivmmDivEps) {
      return w / (uv + eps);
    } else if constexpr (Op == QuatCell::kWdivmmMinus) {
      return uv - w;
    } else {  // kWdivmmMinus4
      return w * (uv - x);
    }
  }
}

template <QuatCell Op, typename T>
__global__ void quaternary_cells_kernel(const T* __restrict__ w, const T* __restrict__ x,
                                        const T* uv, T eps, int64_t n, T* out) {
  for (int64_t c = detail::global_thread(); c < n; c += detail::grid_stride())
    out[c] = cell_value<Op, T>(w[c], x != nullptr ? x[c] : T(0), uv[c], eps);
}

template <QuatCell Op, typename T>
void launch_op(const T* w, const T* x, const T* uv, T eps, int64_t n, T* out,
               cudaStream_t stream) {
  quaternary_cells_kernel<Op, T>
      <<<detail::grid_for(n), detail::kThreads, 0, stream>>>(w, x, uv, eps, n, out);
}

template <typename T>
void quaternary_cells(QuatCell op, const T* w, const T* x, const T* uv, double eps, int64_t n,
                      T* out, cudaStream_t stream) {
  if (n == 0) return;
  const T e = static_cast<T>(eps);
  switch (op) {
#define DMLRT_QUAT_CASE(name) \
  case QuatCell::name:        \
    launch_op<QuatCell::name, T>(w, x, uv, e, n, out, stream); \
    break;
    DMLRT_QUAT_CASE(kWslossPost)
    DMLRT_QUAT_CASE(kWslossPostNz)
    DMLRT_QUAT_CASE(kWslossPre)
    DMLRT_QUAT_CASE(kWslossNone)
    DMLRT_QUAT_CASE(kWcemm)
    DMLRT_QUAT_CASE(kWsigmoid)
    DMLRT_QUAT_CASE(kWsigmoidLog)
    DMLRT_QUAT_CASE(kWsigmoidMinus)
    DMLRT_QUAT_CASE(kWsigmoidLogMinus)
    DMLRT_QUAT_CASE(kWdivmmMult)
    DMLRT_QUAT_CASE(kWdivmmDiv)
    DMLRT_QUAT_CASE(kWdivmmDivEps)
    DMLRT_QUAT_CASE(kWdivmmMinus)
    DMLRT_QUAT_CASE(kWdivmmMinus4)
    DMLRT_QUAT_CASE(kWummMult)
    DMLRT_QUAT_CASE(kWummDiv)
#undef DMLRT_QUAT_CASE
  }
  DMLRT_CHECK_CTX(cudaGetLastError(), "quaternary cells n=" << n);
}

}  // namespace

void launch_quaternary_cells(QuatCell op, const double* w, const double* x, const double* uv,
                             double eps, int64_t n, double* out, cudaStream_t stream) {
  quaternary_cells(op, w, x, uv, eps, n, out, stream);
}
void launch_quaternary_cells(QuatCell op, const float* w, const float* x, const float* uv,
                             double eps, int64_t n, float* out, cudaStream_t stream) {
  quaternary_cells(op, w, x, uv, eps, n, out, stream);
}

}  // namespace dmlrt::kernels::cuda
