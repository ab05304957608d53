// ctable kernel family: the scan and the atomic scatter of table(A, B, W); see ctable.h.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/ctable.h"
#include "kernels/cuda/java_cast.cuh"
#include "kernels/cuda/kernel_utils.cuh"

namespace dmlrt::kernels::cuda {
namespace {

template <typename T>
__device__ __forceinline__ double at(const CtableInput<T>& x, int64_t i) {
  return x.p != nullptr ? static_cast<double>(x.p[i]) : x.scalar;
}

// Cell i as kernels/cpu/ctable.cpp sees it: kept (r, c, weight), invalid, or skipped.
struct CtableCell {
  int64_t r = 0, c = 0;
  double w = 0;
  bool kept = false, invalid = false;
};

template <typename T>
__device__ CtableCell ctable_cell(const CtableInput<T>& a, const CtableInput<T>& b,
                                  const CtableInput<T>& w, const CtableArgs& args, int64_t i) {
  CtableCell cell;
  const double v1 = at(a, i), v2 = at(b, i), wv = at(w, i);
  if (isnan(v1) || isnan(v2) || isnan(wv)) return cell;
  const int64_t r = detail::java_to_long(v1), c = detail::java_to_long(v2);
  if (args.ignore_zeros && r == 0 && c == 0) return cell;
  if (r <= 0 || c <= 0) {
    cell.invalid = true;
    return cell;
  }
  if ((args.dim1 >= 0 && r > args.dim1) || (args.dim2 >= 0 && c > args.dim2)) return cell;
  cell.r = r;
  cell.c = c;
  cell.w = wv;
  cell.kept = true;
  return cell;
}

template <typename T>
__global__ void ctable_scan_kernel(CtableInput<T> a, CtableInput<T> b, CtableInput<T> w,
                                   CtableArgs args, unsigned long long* __restrict__ stats) {
  // Per-thread maxima first: one atomic per thread, not per cell.
  unsigned long long max_r = 0, max_c = 0, bad = ~0ull;
  for (int64_t i = detail::global_thread(); i < args.cells; i += detail::grid_stride()) {
    const CtableCell cell = ctable_cell(a, b, w, args, i);
    if (cell.invalid && bad == ~0ull) bad = static_cast<unsigned long long>(i);
    if (!cell.kept) continue;
    max_r = max(max_r, static_cast<unsigned long long>(cell.r));
    max_c = max(max_c, static_cast<unsigned long long>(cell.c));
  }
  if (bad != ~0ull) atomicMin(&stats[0], bad);
  if (max_r > 0) atomicMax(&stats[1], max_r);
  if (max_c > 0) atomicMax(&stats[2], max_c);
}

template <typename T>
__global__ void ctable_scatter_kernel(CtableInput<T> a, CtableInput<T> b, CtableInput<T> w,
                                      CtableArgs args, int64_t cols, T* __restrict__ out) {
  for (int64_t i = detail::global_thread(); i < args.cells; i += detail::grid_stride()) {
    const CtableCell cell = ctable_cell(a, b, w, args, i);
    if (cell.kept) atomicAdd(&out[(cell.r - 1) * cols + (cell.c - 1)], static_cast<T>(cell.w));
  }
}

}  // namespace

template <typename T>
void launch_ctable_scan(CtableInput<T> a, CtableInput<T> b, CtableInput<T> w,
                        const CtableArgs& args, unsigned long long* stats, cudaStream_t stream) {
  if (args.cells == 0) return;
  ctable_scan_kernel<T>
      <<<detail::grid_for(args.cells), detail::kThreads, 0, stream>>>(a, b, w, args, stats);
  DMLRT_CHECK_CTX(cudaGetLastError(), "ctable scan cells=" << args.cells);
}

template <typename T>
void launch_ctable_scatter(CtableInput<T> a, CtableInput<T> b, CtableInput<T> w,
                           const CtableArgs& args, int64_t rows, int64_t cols, T* out,
                           cudaStream_t stream) {
  if (args.cells == 0 || rows == 0 || cols == 0) return;
  ctable_scatter_kernel<T>
      <<<detail::grid_for(args.cells), detail::kThreads, 0, stream>>>(a, b, w, args, cols, out);
  DMLRT_CHECK_CTX(cudaGetLastError(),
                  "ctable scatter cells=" << args.cells << " into " << rows << "x" << cols);
}

#define DMLRT_CTABLE_INSTANTIATE(T)                                                           \
  template void launch_ctable_scan<T>(CtableInput<T>, CtableInput<T>, CtableInput<T>,         \
                                      const CtableArgs&, unsigned long long*, cudaStream_t);  \
  template void launch_ctable_scatter<T>(CtableInput<T>, CtableInput<T>, CtableInput<T>,      \
                                         const CtableArgs&, int64_t, int64_t, T*, cudaStream_t);
DMLRT_CTABLE_INSTANTIATE(double)
DMLRT_CTABLE_INSTANTIATE(float)
#undef DMLRT_CTABLE_INSTANTIATE

}  // namespace dmlrt::kernels::cuda
