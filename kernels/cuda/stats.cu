// Statistics kernel family: tak+* and cov / cm as fixed-grid two-stage sums (per-block partials
// of K Kahan sums, then one block that merges them in order and finishes the value), tack+* over
// 2-D tiles (column lanes x row lanes, row chunks) then a per-column merge; see stats.h.
// Every partition depends only on the shape, so results are the same from run to run.
#include <algorithm>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/stats.h"

namespace dmlrt::kernels::cuda {
namespace {

using detail::Kahan;

// K Kahan sums carried together: tak+* 1; cov's first pass 3 (w, w x, w y); cm's 2 (w, w x).
template <int K>
struct Sums {
  Kahan k[K];
};

template <int K>
__device__ __forceinline__ Sums<K> zero_sums() {
  Sums<K> s;
#pragma unroll
  for (int i = 0; i < K; ++i) s.k[i] = {0.0, 0.0};
  return s;
}

template <int K>
struct MergeSums {
  __device__ Sums<K> operator()(const Sums<K>& first, const Sums<K>& second) const {
    Sums<K> r;
#pragma unroll
    for (int i = 0; i < K; ++i) r.k[i] = detail::kahan_merge(first.k[i], second.k[i]);
    return r;
  }
};

// Partials of a two-stage sum: 512 blocks at most, so the final block gives every partial its own
// thread (as reduce.cu's full aggregates); the count depends only on n.
constexpr int kBlocksMax = 512;

int sum_blocks(int64_t n) {
  const int64_t b = (n + detail::kThreads * 8 - 1) / (detail::kThreads * 8);
  return static_cast<int>(b < 1 ? 1 : (b > kBlocksMax ? kBlocksMax : b));
}

// Cells give K terms per index: `init` runs once per thread before the first (it loads what an
// earlier pass left on the device), `operator()(i, v)` writes the terms of cell i.
template <int K, typename Cell>
__global__ void sums_partial_kernel(Cell cell, int64_t n, Sums<K>* __restrict__ partials) {
  __shared__ Sums<K> shared[32];
  Cell c = cell;
  c.init();
  Sums<K> s = zero_sums<K>();
  const int64_t stride = detail::grid_stride();
  int64_t i = detail::global_thread();
  // Four cells' loads in flight before any is folded; the fold order stays i, i + stride, ...
#pragma unroll 1
  for (; i + 3 * stride < n; i += 4 * stride) {
    double v[4][K];
#pragma unroll
    for (int u = 0; u < 4; ++u) c(i + u * stride, v[u]);
#pragma unroll
    for (int u = 0; u < 4; ++u)
#pragma unroll
      for (int k = 0; k < K; ++k) detail::kahan_add(s.k[k], v[u][k]);
  }
#pragma unroll 1
  for (; i < n; i += stride) {
    double v[K];
    c(i, v);
#pragma unroll
    for (int k = 0; k < K; ++k) detail::kahan_add(s.k[k], v[k]);
  }
  s = detail::block_reduce(s, MergeSums<K>{}, zero_sums<K>(), shared);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

// One block of kBlocksMax threads merges the partials in a fixed tree and hands the total to
// `finish` (thread 0), which writes the result or the means of the next pass.
template <int K, typename Finish>
__global__ void sums_final_kernel(const Sums<K>* __restrict__ partials, int num_partials,
                                  Finish finish) {
  __shared__ Sums<K> shared[32];
  Sums<K> s = static_cast<int>(threadIdx.x) < num_partials ? partials[threadIdx.x] : zero_sums<K>();
  s = detail::block_reduce(s, MergeSums<K>{}, zero_sums<K>(), shared);
  if (threadIdx.x == 0) finish(s);
}

template <int K, typename Cell, typename Finish>
void two_stage_sum(const Cell& cell, int64_t n, void* workspace, const Finish& finish,
                   cudaStream_t stream, const char* what) {
  auto* partials = static_cast<Sums<K>*>(workspace);
  const int blocks = sum_blocks(n);
  sums_partial_kernel<K, Cell><<<blocks, detail::kThreads, 0, stream>>>(cell, n, partials);
  DMLRT_CHECK_CTX(cudaGetLastError(), what << " partials n=" << n);
  sums_final_kernel<K, Finish><<<1, kBlocksMax, 0, stream>>>(partials, blocks, finish);
  DMLRT_CHECK_CTX(cudaGetLastError(), what << " final n=" << n);
}

// ---- tak+*, tack+* ---------------------------------------------------------------------------

// a*b*c of cell i, formed as the CPU does: 1.0, times each factor in order, in double.
template <typename T>
struct Product3Cell {
  const T* p[3];
  double v[3];
  __device__ void init() {}
  __device__ __forceinline__ double at(int64_t i) const {
    double r = 1.0;
#pragma unroll
    for (int k = 0; k < 3; ++k) r *= p[k] ? static_cast<double>(p[k][i]) : v[k];
    return r;
  }
  __device__ __forceinline__ void operator()(int64_t i, double* t) const { t[0] = at(i); }
};

template <typename T>
Product3Cell<T> product_cell(const ProductArg<T>& a, const ProductArg<T>& b,
                             const ProductArg<T>& c) {
  Product3Cell<T> cell;
  const ProductArg<T>* args[3] = {&a, &b, &c};
  for (int k = 0; k < 3; ++k) {
    cell.p[k] = args[k]->data;
    cell.v[k] = args[k]->value;
  }
  return cell;
}

template <typename T>
struct WriteSum {
  T* out;
  __device__ void operator()(const Sums<1>& s) const { out[0] = static_cast<T>(s.k[0].sum); }
};

// Note [Column product tiles]
// A block of 256 threads is tc x tr: tc lanes over adjacent columns (32, or the smallest power of
// two >= cols for narrow inputs, so a warp reads consecutive cells of a row) and tr = 256 / tc
// lanes over the rows of its chunk (row ty, ty + tr, ...). The tr Kahan states of a column are
// merged by a fixed tree in shared memory into the chunk's partial; a second kernel merges a
// column's chunks in order. The plan (tc, tiles, chunks, chunk rows) is a function of the shape
// only: about kColBlocks blocks, at least kRowsPerLane rows per row lane.
constexpr int64_t kColBlocks = 2048;
constexpr int64_t kRowsPerLane = 16;

struct ColPlan {
  int tc = 32;
  int64_t tiles = 1, chunks = 1, chunk_rows = 0;
};

ColPlan col_plan(int64_t rows, int64_t cols) {
  ColPlan p;
  while (p.tc > 1 && p.tc / 2 >= cols) p.tc /= 2;
  const int64_t tr = detail::kThreads / p.tc;
  p.tiles = (cols + p.tc - 1) / p.tc;
  const int64_t most = std::max<int64_t>(1, (rows + tr * kRowsPerLane - 1) / (tr * kRowsPerLane));
  const int64_t want = std::max<int64_t>(1, kColBlocks / p.tiles);
  const int64_t chunks = std::min<int64_t>({most, want, 65535});
  p.chunk_rows = (rows + chunks - 1) / chunks;
  p.chunks = p.chunk_rows > 0 ? (rows + p.chunk_rows - 1) / p.chunk_rows : 1;
  return p;
}

// partials (chunks, cols) row-major: the Kahan state of each column over each chunk of rows.
template <typename T>
__global__ void col_product_tile_kernel(Product3Cell<T> cell, int64_t rows, int64_t cols, int tc,
                                        int64_t chunk_rows, Kahan* __restrict__ partials) {
  __shared__ Kahan sh[detail::kThreads];
  const int tx = static_cast<int>(threadIdx.x) % tc, ty = static_cast<int>(threadIdx.x) / tc;
  const int tr = static_cast<int>(blockDim.x) / tc;
  const int64_t c = static_cast<int64_t>(blockIdx.x) * tc + tx;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * chunk_rows;
  const int64_t r1 = r0 + chunk_rows < rows ? r0 + chunk_rows : rows;
  Kahan s{0.0, 0.0};
  if (c < cols) {
    int64_t r = r0 + ty;
#pragma unroll 1
    for (; r + 3 * tr < r1; r += 4 * tr) {
      double v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = cell.at((r + u * tr) * cols + c);
#pragma unroll
      for (int u = 0; u < 4; ++u) detail::kahan_add(s, v[u]);
    }
#pragma unroll 1
    for (; r < r1; r += tr) detail::kahan_add(s, cell.at(r * cols + c));
  }
  sh[threadIdx.x] = s;  // threadIdx.x = ty * tc + tx
  __syncthreads();
  for (int half = tr / 2; half > 0; half >>= 1) {
    if (ty < half)
      sh[threadIdx.x] = detail::kahan_merge(sh[threadIdx.x], sh[threadIdx.x + half * tc]);
    __syncthreads();
  }
  if (ty == 0 && c < cols) partials[static_cast<int64_t>(blockIdx.y) * cols + c] = sh[tx];
}

template <typename T>
__global__ void col_product_merge_kernel(const Kahan* __restrict__ partials, int64_t chunks,
                                         int64_t cols, T* __restrict__ out) {
  for (int64_t c = detail::global_thread(); c < cols; c += detail::grid_stride()) {
    Kahan s = partials[c];
    for (int64_t ch = 1; ch < chunks; ++ch) s = detail::kahan_merge(s, partials[ch * cols + c]);
    out[c] = static_cast<T>(s.sum);
  }
}

template <typename T>
void sum_product3(const ProductArg<T>& a, const ProductArg<T>& b, const ProductArg<T>& c, int64_t n,
                  T* out, void* workspace, cudaStream_t stream) {
  two_stage_sum<1>(product_cell(a, b, c), n, workspace, WriteSum<T>{out}, stream, "tak+*");
}

template <typename T>
void col_sum_product3(const ProductArg<T>& a, const ProductArg<T>& b, const ProductArg<T>& c,
                      int64_t rows, int64_t cols, T* out, void* workspace, cudaStream_t stream) {
  if (cols == 0) return;
  if (rows == 0) {
    DMLRT_CHECK_CTX(cudaMemsetAsync(out, 0, static_cast<size_t>(cols) * sizeof(T), stream),
                    "tack+* zeros 0x" << cols);
    return;
  }
  const ColPlan p = col_plan(rows, cols);
  auto* partials = static_cast<Kahan*>(workspace);
  const dim3 grid(static_cast<unsigned>(p.tiles), static_cast<unsigned>(p.chunks));
  col_product_tile_kernel<T><<<grid, detail::kThreads, 0, stream>>>(
      product_cell(a, b, c), rows, cols, p.tc, p.chunk_rows, partials);
  DMLRT_CHECK_CTX(cudaGetLastError(), "tack+* tiles " << rows << "x" << cols);
  col_product_merge_kernel<T>
      <<<detail::grid_for(cols), detail::kThreads, 0, stream>>>(partials, p.chunks, cols, out);
  DMLRT_CHECK_CTX(cudaGetLastError(), "tack+* merge " << rows << "x" << cols);
}

// ---- cov, cm ---------------------------------------------------------------------------------
// The workspace holds the partials, then kStats doubles that the first pass's final block fills
// (sum w and the means) and the second pass reads on the device: no host round trip between.
constexpr int kStats = 4;

size_t partials_bytes(int64_t n) { return static_cast<size_t>(sum_blocks(n)) * sizeof(Sums<3>); }
double* stats_of(void* workspace, int64_t n) {
  return reinterpret_cast<double*>(static_cast<char*>(workspace) + partials_bytes(n));
}

template <typename T>
__device__ __forceinline__ double weight(const T* w, int64_t i) {
  return w ? static_cast<double>(w[i]) : 1.0;
}

// Pass 1 of cov: w, w x, w y.
template <typename T>
struct CovSumsCell {
  const T *x, *y, *w;
  __device__ void init() {}
  __device__ __forceinline__ void operator()(int64_t i, double* t) const {
    const double wi = weight(w, i);
    t[0] = wi;
    t[1] = wi * static_cast<double>(x[i]);
    t[2] = wi * static_cast<double>(y[i]);
  }
};

struct CovMeans {
  double* stats;  // sum w, mx, my
  __device__ void operator()(const Sums<3>& s) const {
    stats[0] = s.k[0].sum;
    stats[1] = s.k[1].sum / s.k[0].sum;
    stats[2] = s.k[2].sum / s.k[0].sum;
  }
};

// Pass 2 of cov: w (x - mx) (y - my), multiplied left to right as on the CPU.
template <typename T>
struct CovProductCell {
  const T *x, *y, *w;
  const double* stats;
  double mx, my;
  __device__ void init() {
    mx = stats[1];
    my = stats[2];
  }
  __device__ __forceinline__ void operator()(int64_t i, double* t) const {
    t[0] = weight(w, i) * (static_cast<double>(x[i]) - mx) * (static_cast<double>(y[i]) - my);
  }
};

template <typename T>
struct CovResult {
  const double* stats;
  T* out;
  __device__ void operator()(const Sums<1>& s) const {
    out[0] = static_cast<T>(s.k[0].sum / (stats[0] - 1.0));
  }
};

// Pass 1 of cm: w, w x.
template <typename T>
struct CmSumsCell {
  const T *x, *w;
  __device__ void init() {}
  __device__ __forceinline__ void operator()(int64_t i, double* t) const {
    const double wi = weight(w, i);
    t[0] = wi;
    t[1] = wi * static_cast<double>(x[i]);
  }
};

// Order 0 (the weighted mean) is finished here: 0 for no cells, as the CPU.
template <typename T>
struct CmMean {
  double* stats;  // sum w, mean
  T* out;
  bool mean_only;
  int64_t n;
  __device__ void operator()(const Sums<2>& s) const {
    stats[0] = s.k[0].sum;
    stats[1] = s.k[1].sum / s.k[0].sum;
    if (mean_only) out[0] = static_cast<T>(n == 0 ? 0.0 : stats[1]);
  }
};

// Pass 2 of cm: w (x - mean)^order by multiplications (within an ulp or two of the CPU's pow).
template <typename T>
struct CmPowerCell {
  const T *x, *w;
  const double* stats;
  int order;
  double mean;
  __device__ void init() { mean = stats[1]; }
  __device__ __forceinline__ void operator()(int64_t i, double* t) const {
    const double d = static_cast<double>(x[i]) - mean;
    const double d2 = d * d;
    t[0] = weight(w, i) * (order == 2 ? d2 : (order == 3 ? d2 * d : d2 * d2));
  }
};

template <typename T>
struct CmResult {
  const double* stats;
  T* out;
  __device__ void operator()(const Sums<1>& s) const {
    out[0] = static_cast<T>(s.k[0].sum / stats[0]);
  }
};

template <typename T>
void covariance(const T* x, const T* y, const T* w, int64_t n, T* out, void* workspace,
                cudaStream_t stream) {
  double* stats = stats_of(workspace, n);
  two_stage_sum<3>(CovSumsCell<T>{x, y, w}, n, workspace, CovMeans{stats}, stream, "cov sums");
  two_stage_sum<1>(CovProductCell<T>{x, y, w, stats, 0.0, 0.0}, n, workspace,
                   CovResult<T>{stats, out}, stream, "cov products");
}

template <typename T>
void central_moment(const T* x, const T* w, int64_t n, int order, T* out, void* workspace,
                    cudaStream_t stream) {
  double* stats = stats_of(workspace, n);
  two_stage_sum<2>(CmSumsCell<T>{x, w}, n, workspace, CmMean<T>{stats, out, order == 0, n}, stream,
                   "cm sums");
  if (order == 0) return;
  two_stage_sum<1>(CmPowerCell<T>{x, w, stats, order, 0.0}, n, workspace, CmResult<T>{stats, out},
                   stream, "cm powers");
}

}  // namespace

size_t sum_product3_workspace_bytes(int64_t n) {
  return static_cast<size_t>(sum_blocks(n)) * sizeof(Sums<1>);
}

size_t col_sum_product3_workspace_bytes(int64_t rows, int64_t cols) {
  if (rows == 0 || cols == 0) return 0;
  const ColPlan p = col_plan(rows, cols);
  return static_cast<size_t>(p.chunks * cols) * sizeof(Kahan);
}

size_t moments_workspace_bytes(int64_t n) { return partials_bytes(n) + kStats * sizeof(double); }

void launch_sum_product3(ProductArg<double> a, ProductArg<double> b, ProductArg<double> c,
                         int64_t n, double* out, void* workspace, cudaStream_t stream) {
  sum_product3(a, b, c, n, out, workspace, stream);
}
void launch_sum_product3(ProductArg<float> a, ProductArg<float> b, ProductArg<float> c, int64_t n,
                         float* out, void* workspace, cudaStream_t stream) {
  sum_product3(a, b, c, n, out, workspace, stream);
}
void launch_col_sum_product3(ProductArg<double> a, ProductArg<double> b, ProductArg<double> c,
                             int64_t rows, int64_t cols, double* out, void* workspace,
                             cudaStream_t stream) {
  col_sum_product3(a, b, c, rows, cols, out, workspace, stream);
}
void launch_col_sum_product3(ProductArg<float> a, ProductArg<float> b, ProductArg<float> c,
                             int64_t rows, int64_t cols, float* out, void* workspace,
                             cudaStream_t stream) {
  col_sum_product3(a, b, c, rows, cols, out, workspace, stream);
}
void launch_covariance(const double* x, const double* y, const double* w, int64_t n, double* out,
                       void* workspace, cudaStream_t stream) {
  covariance(x, y, w, n, out, workspace, stream);
}
void launch_covariance(const float* x, const float* y, const float* w, int64_t n, float* out,
                       void* workspace, cudaStream_t stream) {
  covariance(x, y, w, n, out, workspace, stream);
}
void launch_central_moment(const double* x, const double* w, int64_t n, int order, double* out,
                           void* workspace, cudaStream_t stream) {
  central_moment(x, w, n, order, out, workspace, stream);
}
void launch_central_moment(const float* x, const float* w, int64_t n, int order, float* out,
                           void* workspace, cudaStream_t stream) {
  central_moment(x, w, n, order, out, workspace, stream);
}

}  // namespace dmlrt::kernels::cuda
