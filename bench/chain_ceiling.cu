// The fused SGD chain of the cell section written by hand (chain_ceiling.h): every value in a
// register, the operands and scalars compiled in. Its bandwidth is what the access pattern (four
// streams read, two written) allows, the ceiling for dmlrt's generic fused kernel on this chain,
// against which the copy anchor (one stream read, one written) may be unreachable.
#include <cuda_runtime.h>

#include <cstdint>

#include "chain_ceiling.h"

namespace dmlrt_bench {
namespace {

__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }

// One cell: T1 = x + 5e-4 * y; t2 = z - 0.01 * T1; out = w + 1.9 * t2 (the scalars in T, as
// dmlrt converts the plan's FP64 literals).
template <typename T>
__device__ __forceinline__ void cell(T x, T y, T z, T w, T& t2, T& out) {
  const T t1 = add_rn(x, mul_rn(static_cast<T>(5.0e-4), y));
  t2 = sub_rn(z, mul_rn(static_cast<T>(0.01), t1));
  out = add_rn(w, mul_rn(static_cast<T>(1.9), t2));
}

template <typename T>
struct Vec;
template <>
struct Vec<float> {
  using type = float4;
  static constexpr int kWidth = 4;
};
template <>
struct Vec<double> {
  using type = double2;
  static constexpr int kWidth = 2;
};

template <typename T>
__global__ void chain_vector(const T* x, const T* y, const T* z, const T* w, T* t2, T* out,
                             int64_t vectors) {
  using V = typename Vec<T>::type;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= vectors) return;
  const V a = __ldg(reinterpret_cast<const V*>(x) + i), b = __ldg(reinterpret_cast<const V*>(y) + i),
          c = __ldg(reinterpret_cast<const V*>(z) + i), d = __ldg(reinterpret_cast<const V*>(w) + i);
  const T* av = reinterpret_cast<const T*>(&a);
  const T* bv = reinterpret_cast<const T*>(&b);
  const T* cv = reinterpret_cast<const T*>(&c);
  const T* dv = reinterpret_cast<const T*>(&d);
  V u, o;
  T* uv = reinterpret_cast<T*>(&u);
  T* ov = reinterpret_cast<T*>(&o);
#pragma unroll
  for (int e = 0; e < Vec<T>::kWidth; ++e) cell(av[e], bv[e], cv[e], dv[e], uv[e], ov[e]);
  reinterpret_cast<V*>(t2)[i] = u;
  reinterpret_cast<V*>(out)[i] = o;
}

template <typename T>
__global__ void chain_scalar(const T* x, const T* y, const T* z, const T* w, T* t2, T* out,
                             int64_t from, int64_t n) {
  const int64_t i = from + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) cell(__ldg(x + i), __ldg(y + i), __ldg(z + i), __ldg(w + i), t2[i], out[i]);
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

constexpr int kThreads = 256;

int blocks_for(int64_t items) { return static_cast<int>((items + kThreads - 1) / kThreads); }

}  // namespace

template <typename T>
cudaError_t launch_sgd_chain_by_hand(const T* x, const T* y, const T* z, const T* w, T* t2, T* out,
                                     int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  int64_t head = 0;  // cells done by the vector kernel
  if (aligned16(x) && aligned16(y) && aligned16(z) && aligned16(w) && aligned16(t2) &&
      aligned16(out)) {
    const int64_t vectors = n / Vec<T>::kWidth;
    if (vectors > 0)
      chain_vector<T><<<blocks_for(vectors), kThreads, 0, stream>>>(x, y, z, w, t2, out, vectors);
    head = vectors * Vec<T>::kWidth;
  }
  if (head < n)
    chain_scalar<T><<<blocks_for(n - head), kThreads, 0, stream>>>(x, y, z, w, t2, out, head, n);
  return cudaGetLastError();
}

template cudaError_t launch_sgd_chain_by_hand<float>(const float*, const float*, const float*,
                                                     const float*, float*, float*, int64_t,
                                                     cudaStream_t);
template cudaError_t launch_sgd_chain_by_hand<double>(const double*, const double*, const double*,
                                                      const double*, double*, double*, int64_t,
                                                      cudaStream_t);

}  // namespace dmlrt_bench
