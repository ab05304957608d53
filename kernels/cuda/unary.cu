// Unary kernel family: cell-wise builtins, log with a base, row-wise softmax (one warp per row)
// and the column-wise cumulative scans as a three-phase blocked scan; see unary.h.
#include <cmath>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/cell_ops.cuh"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/unary.h"
#include "kernels/scalar_ops.h"

namespace dmlrt::kernels::cuda {
namespace {

using cpu::CumOp;
using cpu::UnaryOp;
namespace ops = kernels::ops;

using cellops::unary_cell;

// Cell-wise builtins go through the vectorised map (Note [Vectorised cell access] in
// kernel_utils.cuh). One 4-byte (FP32) or 8-byte (FP64) load per thread left exp at 49 % / 55 %
// of the copy bandwidth: FP32 exp is already float math (expf), so it was starved of bytes in
// flight like max(X,0) (48 %); FP64 exp is ~15 dependent DFMAs between the load and the store,
// ~25 % of the memory time in FP64 throughput, so it is latency- not throughput-bound. Four double2
// vectors per thread give eight independent exp chains and 64 bytes in flight per thread.
template <UnaryOp Op, typename T>
struct UnaryCell {
  __device__ T operator()(T x) const { return unary_cell<Op>(x); }
};

// log(x) / log(base) with either side a scalar or a broadcast matrix; `lx` / `lb` are the logs
// of scalar sides, computed once on the host as the CPU does.
template <typename T>
__global__ void log_base_kernel(const T* __restrict__ x, T lx, const T* __restrict__ base, T lb,
                                int64_t base_rows, int64_t base_cols, T* __restrict__ out,
                                int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  const int64_t start = detail::global_thread(), stride = detail::grid_stride();
  if (start >= n) return;
  detail::RowColWalk w(start, stride, cols);
  for (int64_t i = start; i < n; i += stride, w.advance()) {
    const T num = x ? log(x[i]) : lx;
    T den = lb;
    if (base) {
      const int64_t br = base_rows == 1 ? 0 : w.r, bc = base_cols == 1 ? 0 : w.c;
      den = log(base[br * base_cols + bc]);
    }
    out[i] = num / den;
  }
}

// One warp per row: max (java_max, so NaN propagates), Kahan sum of exp(x - max), divide.
template <typename T>
__global__ void softmax_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                               int64_t cols) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = detail::grid_stride() >> 5;
  for (int64_t r = detail::global_thread() >> 5; r < rows; r += warps) {
    const T* x = in + r * cols;
    T* y = out + r * cols;
    T mx = -ops::inf_value<T>();
    for (int64_t c = lane; c < cols; c += 32) mx = ops::java_max(mx, x[c]);
    mx = detail::warp_broadcast(
        detail::warp_reduce(mx, [](T a, T b) { return ops::java_max(a, b); }));
    detail::Kahan s{0.0, 0.0};
    for (int64_t c = lane; c < cols; c += 32) {
      const T e = exp(x[c] - mx);
      y[c] = e;
      detail::kahan_add(s, static_cast<double>(e));
    }
    s = detail::warp_broadcast(detail::warp_reduce(
        s, [](detail::Kahan a, detail::Kahan b) { return detail::kahan_merge(a, b); }));
    const T total = static_cast<T>(s.sum);
    for (int64_t c = lane; c < cols; c += 32) y[c] = y[c] / total;
  }
}

// ---- Blocked column scans ---------------------------------------------------------------------
// Note [Blocked column scan]
// Rows are cut into nb blocks of h rows (h ~ sqrt(rows), a function of the shape only). Phase 1
// folds each (block, column) into a State; phase 2 turns the block States of each column into
// exclusive carries, in block order; phase 3 re-folds each block from its carry and writes every
// prefix. Every State combine happens in a fixed order, so results do not depend on timing, and
// one code path serves every row count. A State is two doubles: a Kahan pair for sums, an affine
// map s -> a + b*s for cumsumprod, a plain value (in `a`) for prod/min/max.
struct ScanState {
  double a;
  double b;
};

template <CumOp Op>
struct CumScan {
  __device__ static ScanState identity() {
    if constexpr (Op == CumOp::kSum)
      return {0.0, 0.0};
    else if constexpr (Op == CumOp::kProd)
      return {1.0, 0.0};
    else if constexpr (Op == CumOp::kMin)
      return {ops::inf_value<double>(), 0.0};
    else
      return {-ops::inf_value<double>(), 0.0};
  }
  template <typename T>
  __device__ static void fold(ScanState& s, const T* in, int64_t r, int64_t j, int64_t in_cols) {
    const double x = static_cast<double>(in[r * in_cols + j]);
    if constexpr (Op == CumOp::kSum) {
      detail::Kahan k{s.a, s.b};
      detail::kahan_add(k, x);
      s = {k.sum, k.corr};
    } else if constexpr (Op == CumOp::kProd) {
      s.a *= x;
    } else if constexpr (Op == CumOp::kMin) {
      s.a = ops::java_min(s.a, x);
    } else {
      s.a = ops::java_max(s.a, x);
    }
  }
  // `first` followed by `second`.
  __device__ static ScanState combine(ScanState first, ScanState second) {
    if constexpr (Op == CumOp::kSum) {
      const detail::Kahan k = detail::kahan_merge({first.a, first.b}, {second.a, second.b});
      return {k.sum, k.corr};
    } else if constexpr (Op == CumOp::kProd) {
      return {first.a * second.a, 0.0};
    } else if constexpr (Op == CumOp::kMin) {
      return {ops::java_min(first.a, second.a), 0.0};
    } else {
      return {ops::java_max(first.a, second.a), 0.0};
    }
  }
};

// s_i = a_i + b_i * s_{i-1}: the State is the map s -> a + b*s; folding (x, y) gives
// s -> x + y*(a + b*s). Products are rounded before sums, as the CPU's loop does.
struct SumProdScan {
  __device__ static ScanState identity() { return {0.0, 1.0}; }
  template <typename T>
  __device__ static void fold(ScanState& s, const T* in, int64_t r, int64_t, int64_t) {
    const double x = static_cast<double>(in[2 * r]), y = static_cast<double>(in[2 * r + 1]);
    s = {ops::add_rn(x, ops::mul_rn(y, s.a)), ops::mul_rn(y, s.b)};
  }
  __device__ static ScanState combine(ScanState first, ScanState second) {
    return {ops::add_rn(second.a, ops::mul_rn(second.b, first.a)), ops::mul_rn(second.b, first.b)};
  }
};

inline int64_t scan_block_height(int64_t rows) {
  int64_t h = static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(rows))));
  return h < 16 ? 16 : h;
}

template <typename Scan, typename T>
__global__ void scan_aggregate_kernel(const T* __restrict__ in, ScanState* __restrict__ ws,
                                      int64_t rows, int64_t cols, int64_t in_cols, int64_t h,
                                      int64_t nb) {
  for (int64_t t = detail::global_thread(); t < nb * cols; t += detail::grid_stride()) {
    const int64_t b = t / cols, j = t % cols;
    const int64_t end = (b + 1) * h < rows ? (b + 1) * h : rows;
    ScanState s = Scan::identity();
    for (int64_t r = b * h; r < end; ++r) Scan::fold(s, in, r, j, in_cols);
    ws[t] = s;
  }
}

template <typename Scan>
__global__ void scan_carry_kernel(ScanState* __restrict__ ws, int64_t cols, int64_t nb) {
  for (int64_t j = detail::global_thread(); j < cols; j += detail::grid_stride()) {
    ScanState carry = Scan::identity();
    for (int64_t b = 0; b < nb; ++b) {
      const ScanState agg = ws[b * cols + j];
      ws[b * cols + j] = carry;
      carry = Scan::combine(carry, agg);
    }
  }
}

template <typename Scan, typename T>
__global__ void scan_write_kernel(const T* __restrict__ in, const ScanState* __restrict__ ws,
                                  T* __restrict__ out, int64_t rows, int64_t cols, int64_t in_cols,
                                  int64_t h, int64_t nb) {
  for (int64_t t = detail::global_thread(); t < nb * cols; t += detail::grid_stride()) {
    const int64_t b = t / cols, j = t % cols;
    const int64_t end = (b + 1) * h < rows ? (b + 1) * h : rows;
    ScanState s = ws[t];
    for (int64_t r = b * h; r < end; ++r) {
      Scan::fold(s, in, r, j, in_cols);
      out[r * cols + j] = static_cast<T>(s.a);
    }
  }
}

template <typename Scan, typename T>
void blocked_scan(const T* in, T* out, int64_t rows, int64_t cols, int64_t in_cols, void* workspace,
                  cudaStream_t stream) {
  const int64_t h = scan_block_height(rows);
  const int64_t nb = (rows + h - 1) / h;
  auto* ws = static_cast<ScanState*>(workspace);
  const int grid = detail::grid_for(nb * cols);
  scan_aggregate_kernel<Scan, T>
      <<<grid, detail::kThreads, 0, stream>>>(in, ws, rows, cols, in_cols, h, nb);
  DMLRT_CHECK_CTX(cudaGetLastError(), "scan aggregate " << rows << "x" << cols);
  scan_carry_kernel<Scan><<<detail::grid_for(cols, 128), 128, 0, stream>>>(ws, cols, nb);
  DMLRT_CHECK_CTX(cudaGetLastError(), "scan carry " << rows << "x" << cols);
  scan_write_kernel<Scan, T>
      <<<grid, detail::kThreads, 0, stream>>>(in, ws, out, rows, cols, in_cols, h, nb);
  DMLRT_CHECK_CTX(cudaGetLastError(), "scan write " << rows << "x" << cols);
}

template <typename T>
void unary(UnaryOp op, const T* in, T* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  const detail::CellOperands<T, 1> cells{{in}, {T(0)}};
#define DMLRT_UNARY_VALUE(name, opcode, sparse_safe) , UnaryOp::name
  detail::dispatch_enum<UnaryOp DMLRT_UNARY_OPS(DMLRT_UNARY_VALUE)>(op, [&](auto tag) {
    detail::launch_cellwise(cells, out, n, UnaryCell<decltype(tag)::value, T>{}, stream);
  });
#undef DMLRT_UNARY_VALUE
  DMLRT_CHECK_CTX(cudaGetLastError(), "unary " << cpu::opcode_of(op) << " n=" << n);
}

template <typename T>
void log_base(const T* x, double x_value, const T* base, double base_value, int64_t base_rows,
              int64_t base_cols, T* out, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows * cols == 0) return;
  const T lx = static_cast<T>(std::log(x_value)), lb = static_cast<T>(std::log(base_value));
  log_base_kernel<T><<<detail::grid_for(rows * cols), detail::kThreads, 0, stream>>>(
      x, lx, base, lb, base_rows, base_cols, out, rows, cols);
  DMLRT_CHECK_CTX(cudaGetLastError(), "log with base " << rows << "x" << cols);
}

// One thread per row, left to right, Kahan-summed in FP64 as the CPU's row_cumsum: the same
// additions in the same order. Rows are independent; a row's cells are `cols` apart between
// neighbouring threads, which is uncoalesced but fine for the narrow matrices rowCumsum sees.
template <typename T>
__global__ void row_cumsum_kernel(const T* in, T* out, int64_t rows, int64_t cols) {
  for (int64_t i = detail::global_thread(); i < rows; i += detail::grid_stride()) {
    detail::Kahan s{0.0, 0.0};
    for (int64_t j = 0; j < cols; ++j) {
      detail::kahan_add(s, static_cast<double>(in[i * cols + j]));
      out[i * cols + j] = static_cast<T>(s.sum);
    }
  }
}

template <typename T>
void row_cumsum(const T* in, T* out, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows * cols == 0) return;
  row_cumsum_kernel<T><<<detail::grid_for(rows, 128), 128, 0, stream>>>(in, out, rows, cols);
  DMLRT_CHECK_CTX(cudaGetLastError(), "row cumsum " << rows << "x" << cols);
}

template <typename T>
void softmax(const T* in, T* out, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows * cols == 0) return;
  softmax_kernel<T>
      <<<detail::grid_for(rows * 32), detail::kThreads, 0, stream>>>(in, out, rows, cols);
  DMLRT_CHECK_CTX(cudaGetLastError(), "softmax " << rows << "x" << cols);
}

template <typename T>
void cumulative(CumOp op, const T* in, T* out, int64_t rows, int64_t cols, void* workspace,
                cudaStream_t stream) {
  if (rows * cols == 0) return;
  detail::dispatch_enum<CumOp, CumOp::kSum, CumOp::kProd, CumOp::kMin, CumOp::kMax>(
      op, [&](auto tag) {
        blocked_scan<CumScan<decltype(tag)::value>>(in, out, rows, cols, cols, workspace, stream);
      });
}

template <typename T>
void cumsumprod(const T* in, T* out, int64_t rows, void* workspace, cudaStream_t stream) {
  if (rows == 0) return;
  blocked_scan<SumProdScan>(in, out, rows, 1, 2, workspace, stream);
}

}  // namespace

size_t cumulative_workspace_bytes(int64_t rows, int64_t cols, size_t /*elem_bytes*/) {
  if (rows * cols == 0) return 0;
  const int64_t h = scan_block_height(rows);
  return static_cast<size_t>((rows + h - 1) / h * cols) * sizeof(ScanState);
}

void launch_unary(cpu::UnaryOp op, const double* in, double* out, int64_t n, cudaStream_t stream) {
  unary(op, in, out, n, stream);
}
void launch_unary(cpu::UnaryOp op, const float* in, float* out, int64_t n, cudaStream_t stream) {
  unary(op, in, out, n, stream);
}
void launch_log_base(const double* x, double x_value, const double* base, double base_value,
                     int64_t base_rows, int64_t base_cols, double* out, int64_t rows, int64_t cols,
                     cudaStream_t stream) {
  log_base(x, x_value, base, base_value, base_rows, base_cols, out, rows, cols, stream);
}
void launch_log_base(const float* x, double x_value, const float* base, double base_value,
                     int64_t base_rows, int64_t base_cols, float* out, int64_t rows, int64_t cols,
                     cudaStream_t stream) {
  log_base(x, x_value, base, base_value, base_rows, base_cols, out, rows, cols, stream);
}
void launch_softmax(const double* in, double* out, int64_t rows, int64_t cols,
                    cudaStream_t stream) {
  softmax(in, out, rows, cols, stream);
}
void launch_softmax(const float* in, float* out, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax(in, out, rows, cols, stream);
}
void launch_cumulative(cpu::CumOp op, const double* in, double* out, int64_t rows, int64_t cols,
                       void* workspace, cudaStream_t stream) {
  cumulative(op, in, out, rows, cols, workspace, stream);
}
void launch_cumulative(cpu::CumOp op, const float* in, float* out, int64_t rows, int64_t cols,
                       void* workspace, cudaStream_t stream) {
  cumulative(op, in, out, rows, cols, workspace, stream);
}
void launch_row_cumsum(const double* in, double* out, int64_t rows, int64_t cols,
                       cudaStream_t stream) {
  row_cumsum(in, out, rows, cols, stream);
}
void launch_row_cumsum(const float* in, float* out, int64_t rows, int64_t cols,
                       cudaStream_t stream) {
  row_cumsum(in, out, rows, cols, stream);
}

void launch_cumsumprod(const double* in, double* out, int64_t rows, void* workspace,
                       cudaStream_t stream) {
  cumsumprod(in, out, rows, workspace, stream);
}
void launch_cumsumprod(const float* in, float* out, int64_t rows, void* workspace,
                       cudaStream_t stream) {
  cumsumprod(in, out, rows, workspace, stream);
}

}  // namespace dmlrt::kernels::cuda
