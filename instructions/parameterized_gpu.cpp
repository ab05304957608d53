// Parameterized builtins: the GPU run of lowertri / uppertri (parameterized_instructions.h). A
// sparse input is densified into a temporary; its CSR row offsets still mark the empty rows that
// SystemDS's values=FALSE mask skips (Note [Triangle masks of empty rows]). The result is dense.
// rmempty: flag + scan + gather (Note [GPU rmempty] in kernels/cuda/rmempty.h); a CSR target
// stays CSR.
#include <cuda_runtime_api.h>

#include <algorithm>

#include "gpu_context/cuda_check.h"
#include "instructions/gpu_placement.h"
#include "instructions/parameterized_instructions.h"
#include "kernels/cuda/rmempty.h"
#include "kernels/cuda/triangle.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {
namespace {

Operand matrix_operand(const std::string& name) {
  Operand o;
  o.name = name;
  o.data_type = DataType::kMatrix;
  return o;
}

// removeEmpty(target, margin, select, empty.return) as kernels/cpu remove_empty computes it;
// `select` is null without one. A CSR target (int32 indices) gives a CSR result, a dense one (or
// an int64-index CSR, densified into a temporary) a dense result; a CSR select is densified (it
// is a vector).
void remove_empty_gpu(ExecutionContext& ec, mem::GpuSession& gpu, const std::string& target,
                      const std::string* select, bool rows, bool empty_return,
                      const std::string& out) {
  DeviceRead x = gpu_read(ec, gpu, matrix_operand(target));
  const mem::DeviceMatrix& src = *x;
  const bool csr =
      src.is_sparse() && (src.is_empty_sparse() || src.index_width() == mem::IndexWidth::k32);
  const mem::DeviceMatrix& xd = csr ? src : x.dense(gpu);  // (m, n)
  const int64_t m = xd.rows(), n = xd.cols(), len = rows ? m : n;
  DeviceRead s;
  if (select != nullptr) s = gpu_read(ec, gpu, matrix_operand(*select));  // len cells: check()
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_rmempty");
  int64_t* keep = scratch.allocate_n<int64_t>(static_cast<size_t>(len + 1), "flags");
  const auto* rp = static_cast<const int32_t*>(xd.row_ptr());
  const auto* ci = static_cast<const int32_t*>(xd.col_idx());
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    if (select != nullptr)
      kernels::cuda::launch_rmempty_select_flags(s.dense(gpu).values_as<T>(), len, keep,
                                                 gpu.stream());
    else if (!csr)
      kernels::cuda::launch_rmempty_flags(xd.values_as<T>(), m, n, rows, keep, gpu.stream());
    else if (xd.is_empty_sparse())
      DMLRT_CHECK(cudaMemsetAsync(keep, 0, static_cast<size_t>(len + 1) * sizeof(int64_t),
                                  gpu.stream()));
    else
      kernels::cuda::launch_rmempty_csr_flags(rp, ci, xd.values_as<T>(), m, n, rows, keep,
                                              gpu.stream());
  });
  const size_t ws = kernels::cuda::rmempty_scan_workspace_bytes(len);
  void* work = scratch.allocate(ws, "scan workspace");
  kernels::cuda::launch_rmempty_scan(keep, len, work, ws, gpu.stream());
  // The output's shape depends on the data: a synchronisation.
  int64_t k = 0;
  DMLRT_CHECK(cudaMemcpyAsync(&k, keep + len, sizeof(k), cudaMemcpyDeviceToHost, gpu.stream()));
  gpu.synchronize("rmempty count");
  const int64_t out_len = std::max<int64_t>(k, empty_return ? 1 : 0);
  const int64_t om = rows ? out_len : m, on = rows ? n : out_len;
  if (csr) {
    // Nothing kept or nothing stored: an empty CSR, which holds no device memory.
    if (k == 0 || xd.is_empty_sparse()) {
      set_gpu_output(ec, gpu, out,
                     mem::DeviceMatrix::csr(gpu.memory(), om, on, 0, gpu.dtype(),
                                            mem::IndexWidth::k32, gpu.stream(),
                                            "gpu_rmempty output"));
      return;
    }
    mem::DeviceAllocation out_rp = gpu.scratch(static_cast<size_t>(om + 1) * sizeof(int32_t),
                                               "gpu_rmempty output (csr row offsets)", true);
    auto* orp = static_cast<int32_t*>(out_rp.data());
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      kernels::cuda::launch_rmempty_csr_counts(rp, ci, xd.values_as<T>(), m, rows, keep, orp,
                                               gpu.stream());
    });
    const size_t ows = kernels::cuda::rmempty_offsets_workspace_bytes(om);
    void* owork = scratch.allocate(ows, "offsets scan workspace");
    kernels::cuda::launch_rmempty_offsets_scan(orp, om, owork, ows, gpu.stream());
    int32_t nnz = 0;  // the output's entries: a second synchronisation
    DMLRT_CHECK(cudaMemcpyAsync(&nnz, orp + om, sizeof(nnz), cudaMemcpyDeviceToHost,
                                gpu.stream()));
    gpu.synchronize("rmempty nnz");
    if (nnz == 0) {
      set_gpu_output(ec, gpu, out,
                     mem::DeviceMatrix::csr(gpu.memory(), om, on, 0, gpu.dtype(),
                                            mem::IndexWidth::k32, gpu.stream(),
                                            "gpu_rmempty output"));
      return;
    }
    mem::DeviceAllocation out_ci = gpu.scratch(static_cast<size_t>(nnz) * sizeof(int32_t),
                                               "gpu_rmempty output (csr column indices)");
    mem::DeviceAllocation out_v = gpu.scratch(
        static_cast<size_t>(nnz) * mem::dtype_size(gpu.dtype()), "gpu_rmempty output (csr values)");
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      kernels::cuda::launch_rmempty_csr_gather(rp, ci, xd.values_as<T>(), m, rows, keep, orp,
                                               static_cast<int32_t*>(out_ci.data()),
                                               static_cast<T*>(out_v.data()), gpu.stream());
    });
    set_gpu_output(ec, gpu, out,
                   mem::DeviceMatrix::adopt_csr(om, on, nnz, gpu.dtype(), mem::IndexWidth::k32,
                                                std::move(out_rp), std::move(out_ci),
                                                std::move(out_v)));
    return;
  }
  // An all-zero row (column) when nothing is kept and empty.return asks for one.
  mem::DeviceMatrix o = mem::DeviceMatrix::dense(gpu.memory(), om, on, gpu.dtype(), gpu.stream(),
                                                 "gpu_rmempty output", k == 0);
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    kernels::cuda::launch_rmempty_gather(xd.values_as<T>(), m, n, rows, keep, k,
                                         o.values_as<T>(), gpu.stream());
  });
  set_gpu_output(ec, gpu, out, std::move(o));
}

}  // namespace

void ParameterizedInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  if (kind_ == Kind::kRmEmpty) {
    const std::string* select = params_.count("select") ? &params_.at("select") : nullptr;
    remove_empty_gpu(ec, gpu, params_.at("target"), select, params_.at("margin") == "rows",
                     flag(ec, "empty.return", true), out_.name);
    return;
  }
  DeviceRead x = gpu_read(ec, gpu, matrix_operand(params_.at("target")));
  kernels::cuda::TriangleSpec spec;
  spec.lower = opcode() == "lowertri";
  spec.diag = flag(ec, "diag", false);
  spec.values = flag(ec, "values", false);
  const mem::DeviceMatrix& src = *x;
  if (!spec.values) {
    // Only the ones need the count: values of an all-zero input are zeros anyway.
    const int64_t nnz = src.nnz() >= 0 ? src.nnz() : gpu.count_nnz(src);
    spec.any_nonzero = nnz > 0;
    if (src.is_sparse() && nnz > 0) {
      spec.row_ptr = src.row_ptr();
      spec.row_ptr64 = src.index_width() == mem::IndexWidth::k64;
    }
  }
  const mem::DeviceMatrix& xd = x.dense(gpu);
  const int64_t rows = xd.rows(), cols = xd.cols();
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_" + opcode() + " output");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    // (rows, cols) row-major in and out
    kernels::cuda::launch_extract_triangular(xd.values_as<T>(), out.values_as<T>(), rows, cols,
                                             spec, gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
