// Device-side helpers shared by the kernel families (.cu only): launch geometry, the grid-stride
// (row, column) walk, warp/block reductions over a combinable state, and the op-tag dispatch idiom.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace dmlrt::kernels::cuda::detail {

constexpr int kThreads = 256;
// Grid-stride loops need no more blocks than keep the device busy; a fixed cap (not the device's
// SM count) keeps every launch configuration, and so every reduction order, device-independent.
constexpr int64_t kMaxBlocks = 65535 * 32;

inline int grid_for(int64_t n, int threads = kThreads) {
  const int64_t blocks = (n + threads - 1) / threads;
  return static_cast<int>(blocks < kMaxBlocks ? (blocks > 0 ? blocks : 1) : kMaxBlocks);
}

inline cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

__device__ __forceinline__ int64_t global_thread() {
  return blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
}
__device__ __forceinline__ int64_t grid_stride() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

// Walks the linear indices i = start, start + stride, ... of a (rows, cols) row-major matrix and
// keeps (r, c) = (i / cols, i % cols) up to date with one division per thread, not per element.
struct RowColWalk {
  int64_t r, c, step_r, step_c, cols;
  __device__ RowColWalk(int64_t start, int64_t stride, int64_t cols_)
      : r(start / cols_),
        c(start % cols_),
        step_r(stride / cols_),
        step_c(stride % cols_),
        cols(cols_) {}
  __device__ __forceinline__ void advance() {
    r += step_r;
    c += step_c;
    if (c >= cols) {
      c -= cols;
      ++r;
    }
  }
};

// Tree reductions of a per-thread State over a warp / a block (blockDim.x a multiple of 32, at
// most 1024) with Combine(State, State) -> State applied in a fixed order, so results never depend
// on timing. The result is valid in lane 0 / thread 0. `shared` holds 32 States.
template <typename State, typename Combine>
__device__ State warp_reduce(State s, Combine combine) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    State other;
    constexpr int kWords = sizeof(State) / sizeof(int);
    static_assert(sizeof(State) % sizeof(int) == 0, "State must be a whole number of words");
    int* src = reinterpret_cast<int*>(&s);
    int* dst = reinterpret_cast<int*>(&other);
#pragma unroll
    for (int w = 0; w < kWords; ++w) dst[w] = __shfl_down_sync(0xFFFFFFFFu, src[w], offset);
    if ((threadIdx.x & 31) + offset < 32) s = combine(s, other);
  }
  return s;
}

template <typename State, typename Combine>
__device__ State block_reduce(State s, Combine combine, State identity, State* shared) {
  s = warp_reduce(s, combine);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) shared[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < static_cast<int>(blockDim.x >> 5) ? shared[lane] : identity;
    s = warp_reduce(s, combine);
  }
  __syncthreads();  // `shared` may be reused by the caller
  return s;
}

// Sends lane 0's State to every lane of the warp.
template <typename State>
__device__ State warp_broadcast(State s) {
  constexpr int kWords = sizeof(State) / sizeof(int);
  int* w = reinterpret_cast<int*>(&s);
#pragma unroll
  for (int i = 0; i < kWords; ++i) w[i] = __shfl_sync(0xFFFFFFFFu, w[i], 0);
  return s;
}

// Kahan-compensated sum (see Note [Kahan summation] in kernels/cpu/java_math.h): the value is
// `sum`; `corr` is the low part still to be added. Once a value or the sum is not finite the
// addition is plain IEEE, as on the CPU.
struct Kahan {
  double sum;
  double corr;
};
__device__ __forceinline__ void kahan_add(Kahan& k, double x) {
  if (x - x != 0.0 || k.sum - k.sum != 0.0) {
    k.sum += x;
    k.corr = 0.0;
    return;
  }
  const double y = x + k.corr;
  const double t = k.sum + y;
  k.corr = y - (t - k.sum);
  k.sum = t;
}
// The sum of `a` followed by `b`.
__device__ __forceinline__ Kahan kahan_merge(Kahan a, const Kahan& b) {
  kahan_add(a, b.sum);
  kahan_add(a, b.corr);
  return a;
}

// Calls f(std::integral_constant<Enum, v>{}) for the runtime value `op` of the listed values: the
// one switch of a family, written as a fold so adding an op is one entry in the list.
template <typename Enum, Enum... Vs, typename F>
void dispatch_enum(Enum op, F&& f) {
  ((op == Vs ? (f(std::integral_constant<Enum, Vs>{}), true) : false) || ...);
}

}  // namespace dmlrt::kernels::cuda::detail
