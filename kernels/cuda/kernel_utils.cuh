// Device-side helpers shared by the kernel families (.cu only): launch geometry, the grid-stride
// (row, column) walk, 16-byte vector access and the vectorised cell-wise map, warp/block
// reductions over a combinable state, and the op-tag dispatch idiom.
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

// ---- 16-byte vectors -------------------------------------------------------------------------
// Note [Vectorised cell access]
// A memory-bound kernel reaches the copy bandwidth only with enough bytes in flight (Little's
// law: ~4.2 TB/s x ~0.7 us of latency is ~3 MB, ~23 KB per SM of the H200). One 4-byte load per
// thread gives at most 8 KB per SM (2048 threads), one 8-byte load 16 KB: measured, FP32 X+Y and
// max(X,0) reached 70 % and 48 % of the copy bandwidth, FP64 max(X,0) 82 % and FP64 X+Y (two
// 8-byte loads) 99 %. So the cell-wise kernels and the reductions move 16-byte vectors (float4 /
// double2: LDG.E.128 / STG.E.128), several per thread, every load issued before any value is
// used. A vector starts at a 16-byte boundary; the cells before the first boundary (head) and
// after the last whole vector (tail) go one at a time. The vectorised paths are covered by the
// kernel tests at sizes that are not multiples of the vector width and at offset pointers.

constexpr int kVecBytes = 16;

template <typename T>
struct alignas(kVecBytes) Vec16 {
  static constexpr int kWidth = kVecBytes / static_cast<int>(sizeof(T));
  T v[kWidth];
};

template <typename T>
constexpr int kVecWidth = Vec16<T>::kWidth;

// p must be 16-byte aligned.
template <typename T>
__device__ __forceinline__ Vec16<T> load_vec16(const T* p) {
  return *reinterpret_cast<const Vec16<T>*>(p);
}
template <typename T>
__device__ __forceinline__ void store_vec16(T* p, const Vec16<T>& x) {
  *reinterpret_cast<Vec16<T>*>(p) = x;
}
// The same cells as load_vec16, one load each (any alignment).
template <typename T>
__device__ __forceinline__ Vec16<T> load_cells16(const T* p) {
  Vec16<T> x;
#pragma unroll
  for (int k = 0; k < Vec16<T>::kWidth; ++k) x.v[k] = p[k];
  return x;
}
template <typename T>
__device__ __forceinline__ Vec16<T> splat16(T value) {
  Vec16<T> x;
#pragma unroll
  for (int k = 0; k < Vec16<T>::kWidth; ++k) x.v[k] = value;
  return x;
}

inline bool is_aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % kVecBytes == 0; }

// ---- Vectorised cell-wise map (see Note [Vectorised cell access]) -----------------------------
// out[i] = f(in[0][i], ..., in[N-1][i]) for n cells; an operand with a null pointer is the scalar
// value[k] in every cell. `out` may alias an input exactly (each cell is read before it is
// written by the same thread), not partially.
template <typename T, int N>
struct CellOperands {
  const T* in[N];
  T value[N];
};

// Vectors each thread loads per operand before using any: 64 bytes per thread for a unary op, 64
// or 96 for two or three operands. A unary FP64 op with a long math chain (exp: 52 registers, so
// 1024 resident threads) still keeps ~64 KB per SM in flight.
template <int N>
constexpr int kCellUnroll = N == 1 ? 4 : 2;

template <int N, typename T, typename F>
__device__ __forceinline__ T apply_cell(const F& f, const T (&x)[N]) {
  if constexpr (N == 1)
    return f(x[0]);
  else if constexpr (N == 2)
    return f(x[0], x[1]);
  else
    return f(x[0], x[1], x[2]);
}

template <typename T, int N, typename F>
__device__ __forceinline__ T cell_at(const CellOperands<T, N>& ops, const F& f, int64_t i) {
  T x[N];
#pragma unroll
  for (int k = 0; k < N; ++k) x[k] = ops.in[k] ? ops.in[k][i] : ops.value[k];
  return apply_cell<N>(f, x);
}

// Cells [0, head) and [head + nvec * width, n) one at a time, [head, head + nvec * width) as
// nvec 16-byte vectors (every pointer is 16-byte aligned at `head`).
template <typename T, int N, typename F>
__global__ void cellwise_kernel(CellOperands<T, N> ops, T* out, int64_t n, int64_t head,
                                int64_t nvec, F f) {
  constexpr int kW = Vec16<T>::kWidth;
  const int64_t t = global_thread(), stride = grid_stride();
  for (int64_t v0 = t; v0 < nvec; v0 += stride * kCellUnroll<N>) {
    Vec16<T> x[kCellUnroll<N>][N];
#pragma unroll
    for (int u = 0; u < kCellUnroll<N>; ++u) {
      const int64_t v = v0 + u * stride;
      if (v < nvec) {
#pragma unroll
        for (int k = 0; k < N; ++k)
          x[u][k] = ops.in[k] ? load_vec16(ops.in[k] + head + v * kW) : splat16(ops.value[k]);
      }
    }
#pragma unroll
    for (int u = 0; u < kCellUnroll<N>; ++u) {
      const int64_t v = v0 + u * stride;
      if (v < nvec) {
        Vec16<T> y;
#pragma unroll
        for (int e = 0; e < kW; ++e) {
          T c[N];
#pragma unroll
          for (int k = 0; k < N; ++k) c[k] = x[u][k].v[e];
          y.v[e] = apply_cell<N>(f, c);
        }
        store_vec16(out + head + v * kW, y);
      }
    }
  }
  // At most kW - 1 cells each, unless the pointers' phases differ (then head == n).
#pragma unroll 1
  for (int64_t i = t; i < head; i += stride) out[i] = cell_at(ops, f, i);
#pragma unroll 1
  for (int64_t i = head + nvec * kW + t; i < n; i += stride) out[i] = cell_at(ops, f, i);
}

// Launches cellwise_kernel on `stream` (n > 0; the caller checks the launch). When the pointers
// do not share one 16-byte phase (an offset view of one operand), every cell is a head cell.
template <typename T, int N, typename F>
void launch_cellwise(const CellOperands<T, N>& ops, T* out, int64_t n, F f, cudaStream_t stream) {
  constexpr int64_t kW = Vec16<T>::kWidth;
  const uintptr_t phase = reinterpret_cast<uintptr_t>(out) % kVecBytes;
  bool vectorise = phase % sizeof(T) == 0;
  for (int k = 0; k < N; ++k)
    if (ops.in[k] && reinterpret_cast<uintptr_t>(ops.in[k]) % kVecBytes != phase) vectorise = false;
  int64_t head = n, nvec = 0;
  if (vectorise) {
    head = static_cast<int64_t>((kVecBytes - phase) % kVecBytes / sizeof(T));
    if (head > n) head = n;
    nvec = (n - head) / kW;
  }
  const int64_t scalar_cells = n - nvec * kW;  // head + tail
  const int64_t vec_threads = (nvec + kCellUnroll<N> - 1) / kCellUnroll<N>;
  const int grid = grid_for(vec_threads > scalar_cells ? vec_threads : scalar_cells);
  cellwise_kernel<T, N, F><<<grid, kThreads, 0, stream>>>(ops, out, n, head, nvec, f);
}

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
