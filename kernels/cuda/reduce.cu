// Reduction kernel family: full aggregates in two passes (fixed grid of per-block partials, then
// one block), row aggregates (a warp per row, a block per row for wide rows), column aggregates
// over row chunks then a per-column merge, and rowIndexMax/Min; see reduce.h.
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

// The one op switch of this family.
template <typename F>
void with_agg_op(AggOp op, F&& f) {
  detail::dispatch_enum<AggOp, AggOp::kSum, AggOp::kSumSq, AggOp::kProd, AggOp::kMean, AggOp::kMax,
                        AggOp::kMin, AggOp::kVar>(
      op, [&](auto tag) { f(Agg<decltype(tag)::value>{}); });
}

constexpr int kAllBlocksMax = 1024;  // pass-2 block size: every partial gets its own thread

int all_blocks(int64_t n) {
  const int64_t b = (n + detail::kThreads * 8 - 1) / (detail::kThreads * 8);
  return static_cast<int>(b < 1 ? 1 : (b > kAllBlocksMax ? kAllBlocksMax : b));
}

template <typename Op, typename T>
__global__ void reduce_all_partial_kernel(const T* __restrict__ in, int64_t n,
                                          AggState* __restrict__ partials) {
  __shared__ AggState shared[32];
  AggState s = Op::identity();
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride())
    Op::fold(s, static_cast<double>(in[i]));
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

// A warp per row (narrow rows).
template <typename Op, typename T>
__global__ void reduce_rows_warp_kernel(const T* __restrict__ in, int64_t rows, int64_t cols,
                                        T* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = detail::grid_stride() >> 5;
  for (int64_t r = detail::global_thread() >> 5; r < rows; r += warps) {
    const T* x = in + r * cols;
    AggState s = Op::identity();
    for (int64_t c = lane; c < cols; c += 32) Op::fold(s, static_cast<double>(x[c]));
    s = detail::warp_reduce(s, Combiner<Op>{});
    if (lane == 0) out[r] = static_cast<T>(Op::result(s, cols));
  }
}

// A block per row (wide rows).
template <typename Op, typename T>
__global__ void reduce_rows_block_kernel(const T* __restrict__ in, int64_t rows, int64_t cols,
                                         T* __restrict__ out) {
  __shared__ AggState shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = in + r * cols;
    AggState s = Op::identity();
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) Op::fold(s, static_cast<double>(x[c]));
    s = detail::block_reduce(s, Combiner<Op>{}, Op::identity(), shared);
    if (threadIdx.x == 0) out[r] = static_cast<T>(Op::result(s, cols));
  }
}

constexpr int64_t kWideRow = 2048;

// Column aggregates: rows are cut into chunks of h rows (a function of `rows` only); phase 1
// folds each (chunk, column), phase 2 merges a column's chunks in order.
int64_t col_chunk_height(int64_t rows) {
  const int64_t h = static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(rows))));
  return h < 32 ? 32 : h;
}

template <typename Op, typename T>
__global__ void reduce_cols_chunk_kernel(const T* __restrict__ in, int64_t rows, int64_t cols,
                                         int64_t h, int64_t chunks, AggState* __restrict__ ws) {
  for (int64_t t = detail::global_thread(); t < chunks * cols; t += detail::grid_stride()) {
    const int64_t k = t / cols, j = t % cols;
    const int64_t end = (k + 1) * h < rows ? (k + 1) * h : rows;
    AggState s = Op::identity();
    for (int64_t r = k * h; r < end; ++r) Op::fold(s, static_cast<double>(in[r * cols + j]));
    ws[t] = s;
  }
}

template <typename Op, typename T>
__global__ void reduce_cols_merge_kernel(const AggState* __restrict__ ws, int64_t rows,
                                         int64_t cols, int64_t chunks, T* __restrict__ out) {
  for (int64_t j = detail::global_thread(); j < cols; j += detail::grid_stride()) {
    AggState s = ws[j];
    for (int64_t k = 1; k < chunks; ++k) s = Op::combine(s, ws[k * cols + j]);
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
  DMLRT_CUDA_CHECK_CTX(cudaGetLastError(), what << " zeros n=" << n);
}

template <typename T>
void reduce_all(AggOp op, const T* in, int64_t n, T* out, void* workspace, void* stream) {
  const cudaStream_t st = detail::as_stream(stream);
  auto* partials = static_cast<AggState*>(workspace);
  const int blocks = all_blocks(n);
  with_agg_op(op, [&](auto agg) {
    using Op = decltype(agg);
    reduce_all_partial_kernel<Op, T><<<blocks, detail::kThreads, 0, st>>>(in, n, partials);
    DMLRT_CUDA_CHECK_CTX(cudaGetLastError(),
                         "reduce_all partials op=" << static_cast<int>(op) << " n=" << n);
    reduce_all_final_kernel<Op, T><<<1, kAllBlocksMax, 0, st>>>(partials, blocks, n, out);
    DMLRT_CUDA_CHECK_CTX(cudaGetLastError(),
                         "reduce_all final op=" << static_cast<int>(op) << " n=" << n);
  });
}

template <typename T>
void reduce_rows(AggOp op, const T* in, int64_t rows, int64_t cols, T* out, void* stream) {
  if (rows == 0) return;
  const cudaStream_t st = detail::as_stream(stream);
  if (cols == 0) return fill_zero(out, rows, st, "reduce_rows");
  with_agg_op(op, [&](auto agg) {
    using Op = decltype(agg);
    if (cols >= kWideRow)
      reduce_rows_block_kernel<Op, T>
          <<<detail::grid_for(rows, 1), detail::kThreads, 0, st>>>(in, rows, cols, out);
    else
      reduce_rows_warp_kernel<Op, T>
          <<<detail::grid_for(rows * 32), detail::kThreads, 0, st>>>(in, rows, cols, out);
  });
  DMLRT_CUDA_CHECK_CTX(cudaGetLastError(),
                       "reduce_rows op=" << static_cast<int>(op) << " " << rows << "x" << cols);
}

template <typename T>
void reduce_cols(AggOp op, const T* in, int64_t rows, int64_t cols, T* out, void* workspace,
                 void* stream) {
  if (cols == 0) return;
  const cudaStream_t st = detail::as_stream(stream);
  if (rows == 0) return fill_zero(out, cols, st, "reduce_cols");
  const int64_t h = col_chunk_height(rows);
  const int64_t chunks = (rows + h - 1) / h;
  auto* ws = static_cast<AggState*>(workspace);
  with_agg_op(op, [&](auto agg) {
    using Op = decltype(agg);
    reduce_cols_chunk_kernel<Op, T><<<detail::grid_for(chunks * cols), detail::kThreads, 0, st>>>(
        in, rows, cols, h, chunks, ws);
    DMLRT_CUDA_CHECK_CTX(cudaGetLastError(), "reduce_cols chunks op=" << static_cast<int>(op) << " "
                                                                      << rows << "x" << cols);
    reduce_cols_merge_kernel<Op, T>
        <<<detail::grid_for(cols), detail::kThreads, 0, st>>>(ws, rows, cols, chunks, out);
    DMLRT_CUDA_CHECK_CTX(cudaGetLastError(), "reduce_cols merge op=" << static_cast<int>(op) << " "
                                                                     << rows << "x" << cols);
  });
}

template <typename T>
void row_index(bool is_max, const T* in, int64_t rows, int64_t cols, T* out, void* stream) {
  if (rows == 0) return;
  const cudaStream_t st = detail::as_stream(stream);
  if (cols == 0) return fill_zero(out, rows, st, "row_index");
  const int grid = detail::grid_for(rows * 32);
  if (is_max)
    row_index_kernel<true, T><<<grid, detail::kThreads, 0, st>>>(in, rows, cols, out);
  else
    row_index_kernel<false, T><<<grid, detail::kThreads, 0, st>>>(in, rows, cols, out);
  DMLRT_CUDA_CHECK_CTX(cudaGetLastError(), (is_max ? "rowIndexMax " : "rowIndexMin ")
                                               << rows << "x" << cols);
}

}  // namespace

size_t reduce_all_workspace_bytes(int64_t n) {
  return static_cast<size_t>(all_blocks(n)) * sizeof(AggState);
}

size_t reduce_cols_workspace_bytes(int64_t rows, int64_t cols) {
  if (rows == 0 || cols == 0) return 0;
  const int64_t h = col_chunk_height(rows);
  return static_cast<size_t>((rows + h - 1) / h * cols) * sizeof(AggState);
}

void launch_reduce_all(cpu::AggOp op, const double* in, int64_t n, double* out, void* workspace,
                       void* stream) {
  reduce_all(op, in, n, out, workspace, stream);
}
void launch_reduce_all(cpu::AggOp op, const float* in, int64_t n, float* out, void* workspace,
                       void* stream) {
  reduce_all(op, in, n, out, workspace, stream);
}
void launch_reduce_rows(cpu::AggOp op, const double* in, int64_t rows, int64_t cols, double* out,
                        void* stream) {
  reduce_rows(op, in, rows, cols, out, stream);
}
void launch_reduce_rows(cpu::AggOp op, const float* in, int64_t rows, int64_t cols, float* out,
                        void* stream) {
  reduce_rows(op, in, rows, cols, out, stream);
}
void launch_reduce_cols(cpu::AggOp op, const double* in, int64_t rows, int64_t cols, double* out,
                        void* workspace, void* stream) {
  reduce_cols(op, in, rows, cols, out, workspace, stream);
}
void launch_reduce_cols(cpu::AggOp op, const float* in, int64_t rows, int64_t cols, float* out,
                        void* workspace, void* stream) {
  reduce_cols(op, in, rows, cols, out, workspace, stream);
}
void launch_row_index(bool is_max, const double* in, int64_t rows, int64_t cols, double* out,
                      void* stream) {
  row_index(is_max, in, rows, cols, out, stream);
}
void launch_row_index(bool is_max, const float* in, int64_t rows, int64_t cols, float* out,
                      void* stream) {
  row_index(is_max, in, rows, cols, out, stream);
}
}  // namespace dmlrt::kernels::cuda
