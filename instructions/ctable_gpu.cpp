// table(): the GPU runs of ctable and ctableexpand (ctable_instructions.h). ctable scans the cells
// once on the device (the first invalid cell, the largest indices: one small read back for the
// output's size) and scatters the weights with atomicAdd into a dense table (Note [GPU ctable
// summation order] in kernels/cuda/ctable.h). ctableexpand builds its CSR with one entry per row
// (Note [One entry per row] in kernels/cuda/parameterized.h). Errors are the CPU kernel's.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>

#include "gpu_context/cuda_check.h"
#include "instructions/ctable_instructions.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/csr_ops.h"
#include "kernels/cuda/ctable.h"
#include "kernels/cuda/parameterized.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {
namespace {

// A dense table larger than this many cells, and than 16 cells per input cell, is left to the
// CPU, which builds it sparse (e.g. table(A, B) of two long index vectors: a permutation).
constexpr int64_t kDenseTableCells = int64_t{1} << 24;

mem::DeviceMatrix empty_csr(mem::GpuSession& gpu, int64_t rows, int64_t cols) {
  return mem::DeviceMatrix::csr(gpu.memory(), rows, cols, 0, gpu.dtype(), mem::IndexWidth::k32,
                                gpu.stream(), "gpu_ctable output");
}

// kernels/cpu/ctable's message for a result wider than CSR column indices.
void require_columns(int64_t rows, int64_t cols) {
  DMLRT_REQUIRE(cols <= INT32_MAX, ShapeError,
                "ctable: a " << kernels::dims_string(rows, cols)
                             << " result exceeds the supported 2^31-1 columns");
}

// Cell `i` (linear, row-major) of a dense device matrix, for an error message.
double cell_at(mem::GpuSession& gpu, const mem::DeviceMatrix& d, int64_t i) {
  return gpu.read_element(d, i / d.cols(), i % d.cols());
}

}  // namespace

void CtableInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  if (!(expand_ ? expand_gpu(ec, gpu) : table_gpu(ec, gpu))) run_cpu(ec);
}

// table(seq(1, m), v, w) (seq_left) or table(v, seq(1, m), w): the (m, other) CSR of the one
// entry per row, transposed for the second form.
bool CtableInstruction::expand_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const int64_t dim_other = dim(ec, seq_left_ ? 1 : 0);
  DeviceRead v = gpu_read(ec, gpu, seq_left_ ? in_[1] : in_[0]);
  const int64_t m = v->rows();
  // The kernel's shape errors are the CPU's (it raises them on its run).
  if ((v->cols() != 1 && m != 0) || m >= INT32_MAX) return false;
  DeviceRead w;
  double w_scalar = 1.0;
  if (in_[2].is_matrix()) {
    w = gpu_read(ec, gpu, in_[2]);
    if (w->rows() != m || w->cols() != 1) return false;
  } else {
    w_scalar = ec.scalar(in_[2]).to_double();
  }
  int64_t other = std::max<int64_t>(dim_other, 0);
  if (m == 0) {
    if (seq_left_) require_columns(m, other);
    set_gpu_output(ec, gpu, out_.name,
                   seq_left_ ? empty_csr(gpu, m, other) : empty_csr(gpu, other, m));
    return true;
  }
  const mem::DeviceMatrix& vd = v.dense(gpu);  // (m, 1)
  const mem::DeviceMatrix* wd = in_[2].is_matrix() ? &w.dense(gpu) : nullptr;  // (m, 1)
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_ctableexpand");
  auto* stats = scratch.allocate_n<unsigned long long>(2, "stats");
  DMLRT_CHECK(cudaMemsetAsync(stats, 0xFF, sizeof(unsigned long long), gpu.stream()));
  DMLRT_CHECK(cudaMemsetAsync(stats + 1, 0, sizeof(unsigned long long), gpu.stream()));
  mem::DeviceAllocation out_rp = gpu.scratch(static_cast<size_t>(m + 1) * sizeof(int32_t),
                                             "gpu_ctableexpand output (csr row offsets)");
  auto* orp = static_cast<int32_t*>(out_rp.data());
  kernels::cuda::OneHotArgs args;
  args.mode = kernels::cuda::OneHotMode::kCtableExpand;
  args.m = m;
  args.limit = dim_other;
  args.w_scalar = w_scalar;
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    kernels::cuda::launch_onehot_flags<T>(vd.values_as<T>(), wd ? wd->values_as<T>() : nullptr,
                                          args, orp, stats, gpu.stream());
  });
  const size_t ws = kernels::cuda::csr_scan_workspace_bytes(m);
  void* work = scratch.allocate(ws, "scan workspace");
  kernels::cuda::launch_csr_scan(orp + 1, m, work, ws, gpu.stream());
  // The entries, the first invalid row and the largest index: one synchronisation.
  int32_t nnz = 0;
  unsigned long long st[2] = {0, 0};
  DMLRT_CHECK(cudaMemcpyAsync(&nnz, orp + m, sizeof(nnz), cudaMemcpyDeviceToHost, gpu.stream()));
  DMLRT_CHECK(cudaMemcpyAsync(st, stats, sizeof(st), cudaMemcpyDeviceToHost, gpu.stream()));
  gpu.synchronize("ctableexpand nnz");
  if (st[0] < static_cast<unsigned long long>(m))
    DMLRT_FAIL(RuntimeError, "ctableexpand: erroneous input while computing the contingency table "
                             "(value <= zero): "
                                 << cell_at(gpu, vd, static_cast<int64_t>(st[0])));
  other = dim_other >= 0 ? dim_other : static_cast<int64_t>(st[1]);
  if (seq_left_) require_columns(m, other);
  else if (other > INT32_MAX) return false;  // its CSR columns; the CPU decides
  if (nnz == 0) {
    set_gpu_output(ec, gpu, out_.name,
                   seq_left_ ? empty_csr(gpu, m, other) : empty_csr(gpu, other, m));
    return true;
  }
  mem::DeviceAllocation out_ci = gpu.scratch(static_cast<size_t>(nnz) * sizeof(int32_t),
                                             "gpu_ctableexpand output (csr column indices)");
  mem::DeviceAllocation out_v =
      gpu.scratch(static_cast<size_t>(nnz) * mem::dtype_size(gpu.dtype()),
                  "gpu_ctableexpand output (csr values)");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    kernels::cuda::launch_onehot_fill<T>(vd.values_as<T>(), wd ? wd->values_as<T>() : nullptr,
                                         args, orp, static_cast<int32_t*>(out_ci.data()),
                                         static_cast<T*>(out_v.data()), gpu.stream());
  });
  mem::DeviceMatrix o =
      mem::DeviceMatrix::adopt_csr(m, other, nnz, gpu.dtype(), mem::IndexWidth::k32,
                                   std::move(out_rp), std::move(out_ci), std::move(out_v));
  if (!seq_left_) o = gpu.transpose(o, "gpu_ctableexpand output");  // (other, m)
  set_gpu_output(ec, gpu, out_.name, std::move(o));
  return true;
}

// table(A, B, W): scan (errors, sizes), then the atomic scatter into a dense table.
bool CtableInstruction::table_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const int64_t d1 = dim(ec, 0), d2 = dim(ec, 1);
  DeviceRead reads[3];
  const mem::DeviceMatrix* dense[3] = {nullptr, nullptr, nullptr};  // in the shape's cell order
  double scalars[3] = {0, 0, 0};
  const mem::DeviceMatrix* shape = nullptr;  // the first matrix input (check())
  for (int i = 0; i < 3; ++i) {
    if (!in_[i].is_matrix()) {
      scalars[i] = ec.scalar(in_[i]).to_double();
      continue;
    }
    reads[i] = gpu_read(ec, gpu, in_[i]);
    dense[i] = &reads[i].dense(gpu);
    if (shape == nullptr) shape = dense[i];
  }
  if (shape == nullptr) return false;  // no matrix: the CPU's error
  kernels::cuda::CtableArgs args;
  args.cells = shape->size();
  args.dim1 = d1;
  args.dim2 = d2;
  args.ignore_zeros = ignore_zeros_;
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_ctable");
  auto* stats = scratch.allocate_n<unsigned long long>(3, "stats");
  DMLRT_CHECK(cudaMemsetAsync(stats, 0, 3 * sizeof(unsigned long long), gpu.stream()));
  DMLRT_CHECK(cudaMemsetAsync(stats, 0xFF, sizeof(unsigned long long), gpu.stream()));
  auto scatter_or_scan = [&](bool scan, int64_t rows, int64_t cols, mem::DeviceMatrix* out) {
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      kernels::cuda::CtableInput<T> in[3];
      for (int i = 0; i < 3; ++i) {
        in[i].p = dense[i] != nullptr ? dense[i]->values_as<T>() : nullptr;
        in[i].scalar = scalars[i];
      }
      if (scan)
        kernels::cuda::launch_ctable_scan<T>(in[0], in[1], in[2], args, stats, gpu.stream());
      else
        kernels::cuda::launch_ctable_scatter<T>(in[0], in[1], in[2], args, rows, cols,
                                                out->values_as<T>(), gpu.stream());
    });
  };
  scatter_or_scan(true, 0, 0, nullptr);
  unsigned long long st[3] = {~0ull, 0, 0};  // the one read back: first invalid cell, maxima
  DMLRT_CHECK(cudaMemcpyAsync(st, stats, sizeof(st), cudaMemcpyDeviceToHost, gpu.stream()));
  gpu.synchronize("ctable sizes");
  if (st[0] < static_cast<unsigned long long>(args.cells)) {
    const int64_t i = static_cast<int64_t>(st[0]);
    const double v1 = dense[0] ? cell_at(gpu, *dense[0], i) : scalars[0];
    const double v2 = dense[1] ? cell_at(gpu, *dense[1], i) : scalars[1];
    DMLRT_FAIL(RuntimeError, "ctable: erroneous input while computing the contingency table (one "
                             "of the value <= zero): "
                                 << v1 << " " << v2);
  }
  const int64_t rows = d1 >= 0 ? d1 : static_cast<int64_t>(st[1]);
  const int64_t cols = d2 >= 0 ? d2 : static_cast<int64_t>(st[2]);
  require_columns(rows, cols);
  if (rows == 0 || cols == 0) {
    set_gpu_output(ec, gpu, out_.name, empty_csr(gpu, rows, cols));
    return true;
  }
  const int64_t limit = std::max(kDenseTableCells, 16 * args.cells);
  if (rows > limit / cols) return false;  // a large sparse table: the CPU builds it as CSR
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_ctable output", true);
  scatter_or_scan(false, rows, cols, &out);
  out.set_nnz(-1);  // zeroed, then filled
  set_gpu_output(ec, gpu, out_.name, std::move(out));
  return true;
}

}  // namespace dmlrt::inst
