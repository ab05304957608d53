// Reduction kernel family: full aggregates in two passes (fixed grid of per-block partials, then
// one block), row aggregates (a warp per row, a block per row for wide rows), column aggregates
// over 2-D tiles (row chunks x column groups) then a per-column merge, and rowIndexMax/Min; see
// reduce.h. Every input is read as 16-byte vectors (Note [Vectorised cell access] in
// kernel_utils.cuh) in a partition that depends only on the shape; see Note [Vector groups].
#include <cmath>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/reduce.h"
#include "kernels/scalar_ops.h"

namespace dmlrt::kernels::cuda {
namespace {

using cpu::AggOp;
namespace ops = kernels::ops;

// Every op's running state fits three doubles: a Kahan pair (sum, sumsq, mean), a value (prod,
// max, min), or Welford's (count, mean, m2) (var).
struct AggState {
  double a, b, c;
};

template <AggOp Op>
struct Agg {
  // Sums fold a whole FP32 group at once (Note [FP32 group sums]).
  static constexpr bool kSumLike = Op == AggOp::kSum || Op == AggOp::kMean || Op == AggOp::kSumSq;
  __device__ static double term(double x) { return Op == AggOp::kSumSq ? x * x : x; }
  // Adds a partial sum of terms (already squared for sumSq) with Kahan's compensation.
  __device__ static void fold_partial(AggState& s, double partial) {
    detail::Kahan k{s.a, s.b};
    detail::kahan_add(k, partial);
    s.a = k.sum;
    s.b = k.corr;
  }
  __device__ static AggState identity() {
    if constexpr (Op == AggOp::kProd)
      return {1.0, 0.0, 0.0};
    else if constexpr (Op == AggOp::kMax)
      return {-ops::inf_value<double>(), 0.0, 0.0};
    else if constexpr (Op == AggOp::kMin)
      return {ops::inf_value<double>(), 0.0, 0.0};
    else
      return {0.0, 0.0, 0.0};
  }
  __device__ static void fold(AggState& s, double x) {
    if constexpr (Op == AggOp::kSum || Op == AggOp::kMean || Op == AggOp::kSumSq) {
      detail::Kahan k{s.a, s.b};
      detail::kahan_add(k, Op == AggOp::kSumSq ? x * x : x);
      s.a = k.sum;
      s.b = k.corr;
    } else if constexpr (Op == AggOp::kProd) {
      s.a *= x;
    } else if constexpr (Op == AggOp::kMax) {
      s.a = ops::java_max(s.a, x);
    } else if constexpr (Op == AggOp::kMin) {
      s.a = ops::java_min(s.a, x);
    } else {  // kVar: Welford
      s.a += 1.0;
      const double d = x - s.b;
      s.b += d / s.a;
      s.c += d * (x - s.b);
    }
  }
  // `first` followed by `second` (the order matters only for rounding).
  __device__ static AggState combine(AggState first, AggState second) {
    if constexpr (Op == AggOp::kSum || Op == AggOp::kMean || Op == AggOp::kSumSq) {
      const detail::Kahan k = detail::kahan_merge({first.a, first.b}, {second.a, second.b});
      return {k.sum, k.corr, 0.0};
    } else if constexpr (Op == AggOp::kProd) {
      return {first.a * second.a, 0.0, 0.0};
    } else if constexpr (Op == AggOp::kMax) {
      return {ops::java_max(first.a, second.a), 0.0, 0.0};
    } else if constexpr (Op == AggOp::kMin) {
      return {ops::java_min(first.a, second.a), 0.0, 0.0};
    } else {  // kVar: Chan et al.'s pairwise merge
      if (first.a == 0.0) return second;
      if (second.a == 0.0) return first;
      const double n = first.a + second.a;
      const double d = second.b - first.b;
      return {n, first.b + d * (second.a / n),
              first.c + second.c + d * d * (first.a * second.a / n)};
    }
  }
  // The value for `n` cells; see Note [Aggregates of empty inputs] in kernels/cpu/aggregate.cpp.
  __device__ static double result(const AggState& s, int64_t n) {
    if constexpr (Op == AggOp::kMean) {
      return s.a / static_cast<double>(n);  // 0 cells: 0/0 = NaN
    } else if constexpr (Op == AggOp::kVar) {
      if (s.a == 0.0) return ops::nan_value<double>();
      if (s.a == 1.0) return 0.0;
      return s.c / (s.a - 1.0);
    } else {
      return s.a;
    }
  }
};

template <typename Op>
struct Combiner {
  __device__ AggState operator()(const AggState& x, const AggState& y) const {
    return Op::combine(x, y);
  }
};

// Note [FP32 group sums]
// A Kahan step is four dependent FP64 additions, and FP32 cells need a conversion each: per
// 16-byte group of four floats, 20 FP64-pipe operations, which held the FP32 full sum at 82 % of
// the copy bandwidth on the H200 while FP64 (two cells a group) reached 99 %. An FP32 group is
// therefore summed in plain FP64 first (three roundings at 2^-53, far below FP32's 2^-24) and
// folded with one Kahan step: 11 operations.
// Expected gain: FP32 sum and rowSums ~82-87 % -> >= 95 % of copy. The order stays fixed, so
// results remain deterministic; FP64 inputs fold cell by cell as before.
//
// Note [Vector groups]
// The cells of an input are cut into groups of W = 16 / sizeof(T) cells at indices that are
// multiples of W from the matrix's first cell; a thread folds whole groups (and, at the ends of a
// range, single cells) in a fixed order. When the matrix is 16-byte aligned (always, for memory
// manager allocations) a group is one LDG.E.128; when it is not, the same group is read by W
// scalar loads, so the fold order, and so every result bit, depends only on the shape and the
// data, never on the address. Each thread loads kFoldUnroll groups before folding any: 64 bytes
// in flight per thread instead of 4 (FP32) or 8 (FP64).
constexpr int kFoldUnroll = 4;

template <typename T>
__device__ __forceinline__ detail::Vec16<T> load_group(const T* p, bool aligned) {
  return aligned ? detail::load_vec16(p) : detail::load_cells16(p);
}

// Folds cells [begin, end) of `base` into s: lane `lane` of `lanes` takes the single cells before
// the first group boundary, every lanes-th whole group, then the single cells after the last.
template <typename Op, typename T>
__device__ __forceinline__ void fold_range(AggState& s, const T* base, bool aligned, int64_t begin,
                                           int64_t end, int64_t lane, int64_t lanes) {
  constexpr int kW = detail::Vec16<T>::kWidth;
  int64_t gbegin = (begin + kW - 1) / kW * kW;  // first group boundary
  if (gbegin > end) gbegin = end;
  int64_t gend = end / kW * kW;
  if (gend < gbegin) gend = gbegin;
#pragma unroll 1
  for (int64_t i = begin + lane; i < gbegin; i += lanes) Op::fold(s, static_cast<double>(base[i]));
  const int64_t g_last = gend / kW;
#pragma unroll 1
  for (int64_t g0 = gbegin / kW + lane; g0 < g_last; g0 += lanes * kFoldUnroll) {
    detail::Vec16<T> x[kFoldUnroll];
#pragma unroll
    for (int u = 0; u < kFoldUnroll; ++u)
      if (g0 + u * lanes < g_last) x[u] = load_group(base + (g0 + u * lanes) * kW, aligned);
#pragma unroll
    for (int u = 0; u < kFoldUnroll; ++u)
      if (g0 + u * lanes < g_last) {
        if constexpr (Op::kSumLike && sizeof(T) == sizeof(float)) {
          double g = Op::term(static_cast<double>(x[u].v[0]));
#pragma unroll
          for (int e = 1; e < kW; ++e) g += Op::term(static_cast<double>(x[u].v[e]));
          Op::fold_partial(s, g);
        } else {
#pragma unroll
          for (int e = 0; e < kW; ++e) Op::fold(s, static_cast<double>(x[u].v[e]));
        }
      }
  }
#pragma unroll 1
  for (int64_t i = gend + lane; i < end; i += lanes) Op::fold(s, static_cast<double>(base[i]));
}

// The one op switch of this family.
template <typename F>
void with_agg_op(AggOp op, F&& f) {
  detail::dispatch_enum<AggOp, AggOp::kSum, AggOp::kSumSq, AggOp::kProd, AggOp::kMean, AggOp::kMax,
                        AggOp::kMin, AggOp::kVar>(
      op, [&](auto tag) { f(Agg<decltype(tag)::value>{}); });
}

// Partials of a full aggregate, and the pass-2 block size (every partial gets its own thread).
// 512 blocks of 256 threads are all resident at once on the H200 (the partial kernels use 40-60
// registers: 4-6 blocks per SM, 528-792 slots) and keep ~8 MB in flight; 1024 ran as a second,
// partly filled wave.
constexpr int kAllBlocksMax = 512;

int all_blocks(int64_t n) {
  const int64_t b = (n + detail::kThreads * 8 - 1) / (detail::kThreads * 8);
  return static_cast<int>(b < 1 ? 1 : (b > kAllBlocksMax ? kAllBlocksMax : b));
}

// Expected gain (FP32 sum 76 % -> ~90 % of the copy bandwidth; FP64 stays ~96 %): the grid-stride
// loop over single cells had one 4-byte load in flight per thread, now four 16-byte groups.
template <typename Op, typename T>
__global__ void reduce_all_partial_kernel(const T* __restrict__ in, bool aligned, int64_t n,
                                          AggState* __restrict__ partials) {
  __shared__ AggState shared[32];
  AggState s = Op::identity();
  fold_range<Op>(s, in, aligned, 0, n, detail::global_thread(), detail::grid_stride());
  s = detail::block_reduce(s, Combiner<Op>{}, Op::identity(), shared);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

template <typename Op, typename T>
__global__ void reduce_all_final_kernel(const AggState* __restrict__ partials, int num_partials,
                                        int64_t n, T* __restrict__ out) {
  __shared__ AggState shared[32];
  AggState s = threadIdx.x < num_partials ? partials[threadIdx.x] : Op::identity();
  s = detail::block_reduce(s, Combiner<Op>{}, Op::identity(), shared);
  if (threadIdx.x == 0) out[0] = static_cast<T>(Op::result(s, n));
}

// Row r covers cells [r * cols, (r + 1) * cols) of `in`; its groups are those of the whole matrix
// (Note [Vector groups]), so a row whose start is not a group boundary begins with single cells.
// Expected gain (FP32 rowSums 50 % -> ~85-90 %, FP64 86 % -> ~90 %): 16-byte groups, four per
// thread in flight, instead of one 4- or 8-byte cell.

// A warp per row (narrow rows).
template <typename Op, typename T>
__global__ void reduce_rows_warp_kernel(const T* __restrict__ in, bool aligned, int64_t rows,
                                        int64_t cols, T* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = detail::grid_stride() >> 5;
  for (int64_t r = detail::global_thread() >> 5; r < rows; r += warps) {
    AggState s = Op::identity();
    fold_range<Op>(s, in, aligned, r * cols, (r + 1) * cols, lane, 32);
    s = detail::warp_reduce(s, Combiner<Op>{});
    if (lane == 0) out[r] = static_cast<T>(Op::result(s, cols));
  }
}

// A block per row (wide rows).
template <typename Op, typename T>
__global__ void reduce_rows_block_kernel(const T* __restrict__ in, bool aligned, int64_t rows,
                                         int64_t cols, T* __restrict__ out) {
  __shared__ AggState shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    AggState s = Op::identity();
    fold_range<Op>(s, in, aligned, r * cols, (r + 1) * cols, threadIdx.x, blockDim.x);
    s = detail::block_reduce(s, Combiner<Op>{}, Op::identity(), shared);
    if (threadIdx.x == 0) out[r] = static_cast<T>(Op::result(s, cols));
  }
}

constexpr int64_t kWideRow = 2048;

// ---- Column aggregates -------------------------------------------------------------------------
// Note [Column tiles]
// The columns are cut into groups of g cells (g = W when W divides cols, so every row's group is
// 16-byte aligned, else g = 1) and the rows into `chunks` chunks of h rows. A block of 256 threads
// is tc x tr: tc lanes over adjacent column groups (32, fewer for narrow inputs), tr = 256 / tc
// lanes over the rows of its chunk (row ty, ty + tr, ...). The tr partial states of a column are
// combined by a fixed tree in shared memory; the chunks of a column by a second kernel, in order.
// Everything is a function of (rows, cols, W): deterministic. The plan aims at kColBlocks blocks
// (enough to fill the device several times) with at least kColRowsPerLane rows per row lane.
// Expected gain (FP32 colSums 68 % -> ~85-90 %, FP64 86 % -> ~90 %): the old plan ran one thread
// per (chunk of sqrt(rows) rows, column) with one scalar load in flight, and wrote 91 chunk states
// of 24 bytes per column for 8192 rows: 36 MB on top of a 512 MB FP32 input, read again by the
// merge. Now a thread keeps four 16-byte row groups in flight and, for 8192 x 16384, writes 8
// (FP32) / 4 (FP64) states per column: 3 MB / 1.5 MB; 1024 blocks are about two full waves.
constexpr int64_t kColBlocks = 1024;
constexpr int64_t kColRowsPerLane = 8;

struct ColPlan {
  int g;           // cells per column group: W or 1
  int tc, tr;      // block shape: column lanes x row lanes
  int64_t groups;  // column groups
  int64_t tiles;   // blocks across the columns
  int64_t h;       // rows per chunk
  int64_t chunks;  // blocks down the rows
};

ColPlan col_plan(int64_t rows, int64_t cols, int vec_width) {
  ColPlan p{};
  p.g = cols % vec_width == 0 ? vec_width : 1;
  p.groups = cols / p.g;
  p.tc = 32;
  while (p.tc > 1 && p.tc / 2 >= p.groups) p.tc /= 2;
  p.tr = detail::kThreads / p.tc;
  p.tiles = (p.groups + p.tc - 1) / p.tc;
  const int64_t min_h = p.tr * kColRowsPerLane;
  int64_t chunks = (kColBlocks + p.tiles - 1) / p.tiles;
  const int64_t max_chunks = (rows + min_h - 1) / min_h;
  if (chunks > max_chunks) chunks = max_chunks;
  if (chunks > 65535) chunks = 65535;  // gridDim.y
  if (chunks < 1) chunks = 1;
  p.h = (rows + chunks - 1) / chunks;
  p.chunks = (rows + p.h - 1) / p.h;
  return p;
}

// Block (tile, chunk) of the plan; G cells per column group. With one chunk the results go to
// `out`, else the chunk states to ws (chunks, cols).
template <typename Op, typename T, int G>
__global__ void reduce_cols_tile_kernel(const T* __restrict__ in, bool aligned, int64_t rows,
                                        int64_t cols, int tc, int64_t h, AggState* __restrict__ ws,
                                        T* __restrict__ out) {
  __shared__ AggState shared[detail::kThreads * G];  // [ty][tx][e]
  const int tx = threadIdx.x % tc, ty = threadIdx.x / tc, tr = blockDim.x / tc;
  const int64_t col0 = (blockIdx.x * static_cast<int64_t>(tc) + tx) * G;  // first column
  const int64_t r_begin = blockIdx.y * h;
  const int64_t r_end = r_begin + h < rows ? r_begin + h : rows;
  AggState s[G];
#pragma unroll
  for (int e = 0; e < G; ++e) s[e] = Op::identity();
  if (col0 < cols) {
#pragma unroll 1
    for (int64_t r0 = r_begin + ty; r0 < r_end; r0 += tr * kFoldUnroll) {
      T x[kFoldUnroll][G];
#pragma unroll
      for (int u = 0; u < kFoldUnroll; ++u) {
        const int64_t r = r0 + u * static_cast<int64_t>(tr);
        if (r < r_end) {
          if constexpr (G == 1) {
            x[u][0] = in[r * cols + col0];
          } else {
            const detail::Vec16<T> v = load_group(in + r * cols + col0, aligned);
#pragma unroll
            for (int e = 0; e < G; ++e) x[u][e] = v.v[e];
          }
        }
      }
      if constexpr (Op::kSumLike && sizeof(T) == sizeof(float)) {
        // A column's kFoldUnroll cells summed in FP64, then one Kahan step (Note [FP32 group
        // sums]; expected gain: FP32 colSums 85 % -> >= 95 % of copy).
#pragma unroll
        for (int e = 0; e < G; ++e) {
          double g = 0.0;
#pragma unroll
          for (int u = 0; u < kFoldUnroll; ++u)
            if (r0 + u * static_cast<int64_t>(tr) < r_end)
              g += Op::term(static_cast<double>(x[u][e]));
          Op::fold_partial(s[e], g);
        }
      } else {
#pragma unroll
        for (int u = 0; u < kFoldUnroll; ++u)
          if (r0 + u * static_cast<int64_t>(tr) < r_end) {
#pragma unroll
            for (int e = 0; e < G; ++e) Op::fold(s[e], static_cast<double>(x[u][e]));
          }
      }
    }
  }
  AggState* mine = shared + (ty * tc + tx) * G;
#pragma unroll
  for (int e = 0; e < G; ++e) mine[e] = s[e];
  for (int step = 1; step < tr; step <<= 1) {
    __syncthreads();
    if (ty % (2 * step) == 0 && ty + step < tr) {
      const AggState* other = shared + ((ty + step) * tc + tx) * G;
#pragma unroll
      for (int e = 0; e < G; ++e) mine[e] = Op::combine(mine[e], other[e]);
    }
  }
  if (ty != 0 || col0 >= cols) return;
#pragma unroll
  for (int e = 0; e < G; ++e) {
    if (gridDim.y == 1)
      out[col0 + e] = static_cast<T>(Op::result(mine[e], rows));
    else
      ws[blockIdx.y * cols + col0 + e] = mine[e];
  }
}

template <typename Op, typename T>
__global__ void reduce_cols_merge_kernel(const AggState* __restrict__ ws, int64_t rows,
                                         int64_t cols, int64_t chunks, T* __restrict__ out) {
  constexpr int kBatch = 8;  // chunk states loaded before any is combined
  for (int64_t j = detail::global_thread(); j < cols; j += detail::grid_stride()) {
    AggState s = ws[j];
#pragma unroll 1
    for (int64_t k0 = 1; k0 < chunks; k0 += kBatch) {
      AggState x[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (k0 + u < chunks) x[u] = ws[(k0 + u) * cols + j];
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (k0 + u < chunks) s = Op::combine(s, x[u]);
    }
    out[j] = static_cast<T>(Op::result(s, rows));
  }
}

// rowIndexMax/Min: (value, column) with NaN skipped; ties keep the later column, so the result is
// the last position of the extreme value, as the CPU's sequential `>=` scan gives.
struct IndexState {
  double v;
  int64_t idx;  // -1: no non-NaN value seen
};

template <bool kMax>
__device__ __forceinline__ IndexState index_combine(const IndexState& a, const IndexState& b) {
  if (b.idx < 0) return a;
  if (a.idx < 0) return b;
  const bool b_better = kMax ? b.v > a.v : b.v < a.v;
  const bool a_better = kMax ? a.v > b.v : a.v < b.v;
  if (b_better) return b;
  if (a_better) return a;
  return a.idx > b.idx ? a : b;
}

template <bool kMax, typename T>
__global__ void row_index_kernel(const T* __restrict__ in, int64_t rows, int64_t cols,
                                 T* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = detail::grid_stride() >> 5;
  for (int64_t r = detail::global_thread() >> 5; r < rows; r += warps) {
    const T* x = in + r * cols;
    IndexState s{0.0, -1};
    for (int64_t c = lane; c < cols; c += 32) {
      const double v = static_cast<double>(x[c]);
      if (v != v) continue;
      if (s.idx < 0 || (kMax ? v >= s.v : v <= s.v)) s = {v, c};
    }
    s = detail::warp_reduce(
        s, [](const IndexState& a, const IndexState& b) { return index_combine<kMax>(a, b); });
    if (lane == 0) out[r] = static_cast<T>(s.idx < 0 ? 1 : s.idx + 1);
  }
}

template <typename T>
__global__ void fill_value_kernel(T* __restrict__ out, int64_t n, T value) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride()) out[i] = value;
}

template <typename T>
void fill_zero(T* out, int64_t n, cudaStream_t stream, const char* what) {
  fill_value_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, stream>>>(out, n, T(0));
  DMLRT_CHECK_CTX(cudaGetLastError(), what << " zeros n=" << n);
}

template <typename T>
void reduce_all(AggOp op, const T* in, int64_t n, T* out, void* workspace, cudaStream_t stream) {
  const cudaStream_t st = stream;
  auto* partials = static_cast<AggState*>(workspace);
  const int blocks = all_blocks(n);
  const bool aligned = detail::is_aligned16(in);
  with_agg_op(op, [&](auto agg) {
    using Op = decltype(agg);
    reduce_all_partial_kernel<Op, T><<<blocks, detail::kThreads, 0, st>>>(in, aligned, n, partials);
    DMLRT_CHECK_CTX(cudaGetLastError(),
                    "reduce_all partials op=" << static_cast<int>(op) << " n=" << n);
    reduce_all_final_kernel<Op, T><<<1, kAllBlocksMax, 0, st>>>(partials, blocks, n, out);
    DMLRT_CHECK_CTX(cudaGetLastError(),
                    "reduce_all final op=" << static_cast<int>(op) << " n=" << n);
  });
}

template <typename T>
void reduce_rows(AggOp op, const T* in, int64_t rows, int64_t cols, T* out, cudaStream_t stream) {
  if (rows == 0) return;
  const cudaStream_t st = stream;
  if (cols == 0) return fill_zero(out, rows, st, "reduce_rows");
  const bool aligned = detail::is_aligned16(in);
  with_agg_op(op, [&](auto agg) {
    using Op = decltype(agg);
    if (cols >= kWideRow)
      reduce_rows_block_kernel<Op, T>
          <<<detail::grid_for(rows, 1), detail::kThreads, 0, st>>>(in, aligned, rows, cols, out);
    else
      reduce_rows_warp_kernel<Op, T>
          <<<detail::grid_for(rows * 32), detail::kThreads, 0, st>>>(in, aligned, rows, cols, out);
  });
  DMLRT_CHECK_CTX(cudaGetLastError(),
                  "reduce_rows op=" << static_cast<int>(op) << " " << rows << "x" << cols);
}

template <typename T>
void reduce_cols(AggOp op, const T* in, int64_t rows, int64_t cols, T* out, void* workspace,
                 cudaStream_t stream) {
  if (cols == 0) return;
  const cudaStream_t st = stream;
  if (rows == 0) return fill_zero(out, cols, st, "reduce_cols");
  constexpr int kW = detail::kVecWidth<T>;
  const ColPlan p = col_plan(rows, cols, kW);
  const bool aligned = detail::is_aligned16(in);
  auto* ws = static_cast<AggState*>(workspace);
  const dim3 grid(static_cast<unsigned>(p.tiles), static_cast<unsigned>(p.chunks));
  with_agg_op(op, [&](auto agg) {
    using Op = decltype(agg);
    if (p.g == kW)
      reduce_cols_tile_kernel<Op, T, kW>
          <<<grid, detail::kThreads, 0, st>>>(in, aligned, rows, cols, p.tc, p.h, ws, out);
    else
      reduce_cols_tile_kernel<Op, T, 1>
          <<<grid, detail::kThreads, 0, st>>>(in, aligned, rows, cols, p.tc, p.h, ws, out);
    DMLRT_CHECK_CTX(cudaGetLastError(),
                    "reduce_cols tiles op=" << static_cast<int>(op) << " " << rows << "x" << cols);
    if (p.chunks == 1) return;
    reduce_cols_merge_kernel<Op, T>
        <<<detail::grid_for(cols), detail::kThreads, 0, st>>>(ws, rows, cols, p.chunks, out);
    DMLRT_CHECK_CTX(cudaGetLastError(),
                    "reduce_cols merge op=" << static_cast<int>(op) << " " << rows << "x" << cols);
  });
}

template <typename T>
void row_index(bool is_max, const T* in, int64_t rows, int64_t cols, T* out, cudaStream_t stream) {
  if (rows == 0) return;
  const cudaStream_t st = stream;
  if (cols == 0) return fill_zero(out, rows, st, "row_index");
  const int grid = detail::grid_for(rows * 32);
  if (is_max)
    row_index_kernel<true, T><<<grid, detail::kThreads, 0, st>>>(in, rows, cols, out);
  else
    row_index_kernel<false, T><<<grid, detail::kThreads, 0, st>>>(in, rows, cols, out);
  DMLRT_CHECK_CTX(cudaGetLastError(), (is_max ? "rowIndexMax " : "rowIndexMin ")
                                          << rows << "x" << cols);
}

}  // namespace

size_t reduce_all_workspace_bytes(int64_t n) {
  return static_cast<size_t>(all_blocks(n)) * sizeof(AggState);
}

// The plan depends on the element width; the bytes cover both precisions.
size_t reduce_cols_workspace_bytes(int64_t rows, int64_t cols) {
  if (rows == 0 || cols == 0) return 0;
  int64_t chunks = 0;
  for (int w : {detail::kVecWidth<double>, detail::kVecWidth<float>}) {
    const ColPlan p = col_plan(rows, cols, w);
    if (p.chunks > 1 && p.chunks > chunks) chunks = p.chunks;
  }
  return static_cast<size_t>(chunks * cols) * sizeof(AggState);
}

void launch_reduce_all(cpu::AggOp op, const double* in, int64_t n, double* out, void* workspace,
                       cudaStream_t stream) {
  reduce_all(op, in, n, out, workspace, stream);
}
void launch_reduce_all(cpu::AggOp op, const float* in, int64_t n, float* out, void* workspace,
                       cudaStream_t stream) {
  reduce_all(op, in, n, out, workspace, stream);
}
void launch_reduce_rows(cpu::AggOp op, const double* in, int64_t rows, int64_t cols, double* out,
                        cudaStream_t stream) {
  reduce_rows(op, in, rows, cols, out, stream);
}
void launch_reduce_rows(cpu::AggOp op, const float* in, int64_t rows, int64_t cols, float* out,
                        cudaStream_t stream) {
  reduce_rows(op, in, rows, cols, out, stream);
}
void launch_reduce_cols(cpu::AggOp op, const double* in, int64_t rows, int64_t cols, double* out,
                        void* workspace, cudaStream_t stream) {
  reduce_cols(op, in, rows, cols, out, workspace, stream);
}
void launch_reduce_cols(cpu::AggOp op, const float* in, int64_t rows, int64_t cols, float* out,
                        void* workspace, cudaStream_t stream) {
  reduce_cols(op, in, rows, cols, out, workspace, stream);
}
void launch_row_index(bool is_max, const double* in, int64_t rows, int64_t cols, double* out,
                      cudaStream_t stream) {
  row_index(is_max, in, rows, cols, out, stream);
}
void launch_row_index(bool is_max, const float* in, int64_t rows, int64_t cols, float* out,
                      cudaStream_t stream) {
  row_index(is_max, in, rows, cols, out, stream);
}
}  // namespace dmlrt::kernels::cuda
