// Append instructions: the GPU run (append_instructions.h).
#include <string>
#include <vector>

#include "instructions/append_instructions.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/csr_ops.h"
#include "kernels/cuda/indexing.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {
namespace {

// rbind of int32 CSRs: offsets shifted by the preceding nnz, columns and values concatenated.
mem::DeviceMatrix rbind_csr(mem::GpuSession& gpu, const std::vector<DeviceRead>& xs, int64_t rows,
                            int64_t cols, int64_t nnz, const std::string& what) {
  mem::DeviceMatrix out = mem::DeviceMatrix::csr(gpu.memory(), rows, cols, nnz, gpu.dtype(),
                                                 mem::IndexWidth::k32, gpu.stream(), what);
  if (nnz == 0) return out;
  int64_t row_off = 0, nnz_off = 0;
  for (const DeviceRead& x : xs) {
    // Empty inputs (an empty CSR, or a dense one without cells) contribute offsets only.
    const bool empty = x->is_empty_sparse() || x->size() == 0;
    const int64_t x_nnz = empty ? 0 : x->nnz();
    mem::with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_csr_rbind_part(
          empty ? nullptr : static_cast<const int32_t*>(x->row_ptr()),
          empty ? nullptr : static_cast<const int32_t*>(x->col_idx()),
          empty ? nullptr : x->values_as<T>(), x->rows(), x_nnz, row_off, nnz_off,
          static_cast<int32_t*>(out.row_ptr()), static_cast<int32_t*>(out.col_idx()),
          out.values_as<T>(), gpu.stream());
    });
    row_off += x->rows();
    nnz_off += x_nnz;
  }
  return out;
}

}  // namespace

void AppendInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  std::vector<DeviceRead> xs;
  xs.reserve(inputs_.size());
  for (const auto& op : inputs_) xs.push_back(gpu_read(ec, gpu, op));
  int64_t rows = cbind_ ? xs[0]->rows() : 0, cols = cbind_ ? 0 : xs[0]->cols();
  int64_t nnz = 0;
  bool all_empty = true, all_csr32 = true;
  for (const DeviceRead& x : xs) {
    if (cbind_)
      cols += x->cols();
    else
      rows += x->rows();
    const bool empty = x->is_empty_sparse() || x->size() == 0;
    all_empty = all_empty && empty;
    all_csr32 =
        all_csr32 && (empty || (x->is_sparse() && x->index_width() == mem::IndexWidth::k32));
    if (!empty) nnz += x->nnz();
  }
  const std::string what = "gpu_" + opcode() + " output";
  if (all_empty) {
    set_gpu_output(ec, gpu, out_.name,
                   mem::DeviceMatrix::csr(gpu.memory(), rows, cols, 0, gpu.dtype(),
                                          mem::IndexWidth::k32, gpu.stream(), what));
    return;
  }
  if (!cbind_ && all_csr32 &&
      mem::DeviceMatrix::width_for(rows, cols, nnz) == mem::IndexWidth::k32) {
    set_gpu_output(ec, gpu, out_.name, rbind_csr(gpu, xs, rows, cols, nnz, what));
    return;
  }
  // Dense: every input's block is copied to its place (the blocks tile the result); CSR inputs are
  // densified into temporaries, empty ones are zero fills.
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                   gpu.stream(), what);  // (rows, cols)
  int64_t off = 0;
  for (DeviceRead& x : xs) {
    const int64_t r0 = cbind_ ? 0 : off, c0 = cbind_ ? off : 0;
    const int64_t xr = x->rows(), xc = x->cols();
    off += cbind_ ? xc : xr;
    if (xr == 0 || xc == 0) continue;
    const mem::DeviceMatrix* xd = x->is_empty_sparse() ? nullptr : &x.dense(gpu);
    mem::with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (xd == nullptr)
        kernels::cuda::launch_fill_block(out.values_as<T>(), cols, r0, r0 + xr, c0, c0 + xc, T(0),
                                         gpu.stream());
      else
        kernels::cuda::launch_copy_block(xd->values_as<T>(), xr, xc, out.values_as<T>(), cols, r0,
                                         c0, gpu.stream());
    });
  }
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
