// uacd, uacdr, uacdc and the approximate uacdap, uacdapr, uacdapc: the GPU run
// (count_distinct_instructions.h). The values (Java keys, Note [GPU sort keys]) are sorted by (row or column, key) on the device and each group's first entry
// counted with integer atomics, so the counts are exact. SystemDS's rules are the CPU's (Note
// [countDistinct as SystemDS counts] in kernels/cpu/count_distinct.cpp): a CSR operand counts its
// stored values only (plus one 0 for the whole matrix when it has fewer entries than cells), a
// dense one every cell, and an input of one cell or without nonzeros gives a (1, 1) block of 1.
// The format that decides is the one the CPU run would see: the host block's when the host holds
// the data, else the format a download would give it (MatrixBlock::prefers_sparse, as
// examine_format); the device copy is viewed in that format (a temporary when it differs).
#include <cuda_runtime_api.h>

#include <cmath>
#include <string>

#include "gpu_context/cuda_check.h"
#include "instructions/count_distinct_instructions.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/sort.h"
#include "kernels/kmv.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {

namespace kc = kernels::cuda;
using kernels::cpu::CountDistinctDir;
namespace kmv = kernels::kmv;

namespace {

// countDistinctApprox above SystemDS's exact threshold (Note [countDistinct as SystemDS counts]):
// the KMV sketch of kernels/kmv.h over the same values the CPU offers it — the hash buckets of the
// stored values for the whole matrix (x_stored: CSR or dense, as the exact count picks), every
// cell of the dense view for rows and columns — as sorted keys; the k-th smallest distinct key of
// each segment gives the estimate.
void kmv_gpu(ExecutionContext& ec, mem::GpuSession& gpu, DeviceRead& x, bool sparse, int64_t nnz,
             CountDistinctDir dir, const Operand& out_op, const std::string& what) {
  const int64_t m = x->rows(), n = x->cols();
  const bool all = dir == CountDistinctDir::kAll, by_row = dir == CountDistinctDir::kRow;
  const int64_t lines = all ? 1 : (by_row ? m : n);
  const int64_t D =
      all ? nnz + 1
          : static_cast<int64_t>(std::floor(nnz / static_cast<double>(lines))) + 1;
  const int32_t M = kmv::sketch_m(D);
  const int64_t k = kmv::sketch_k(D);
  const mem::DeviceMatrix& xm = all && sparse ? x.csr(gpu) : x.dense(gpu);
  const int64_t count = all && sparse ? xm.nnz() : m * n;
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), what);
  uint64_t* keys = scratch.allocate_n<uint64_t>(static_cast<size_t>(count), "keys");
  int64_t* seg =
      all ? nullptr : scratch.allocate_n<int64_t>(static_cast<size_t>(count), "segments");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (all)
      kc::launch_kmv_bucket_keys<T>(xm.values_as<T>(), count, M, keys, gpu.stream());
    else
      kc::launch_java_keys<T>(xm.values_as<T>(), count, keys, gpu.stream());
  });
  if (!all) kc::launch_index_segments(count, n, by_row, seg, gpu.stream());
  int64_t* perm = scratch.allocate_n<int64_t>(static_cast<size_t>(count), "permutation");
  kc::sort_by_segment_and_key(keys, seg, count, lines, perm, scratch, gpu.stream());
  double* est = scratch.allocate_n<double>(static_cast<size_t>(lines), "estimates");
  kc::kmv_estimates(keys, seg, perm, lines, count / lines, k, D, M, est, scratch, gpu.stream());
  if (all) {
    double e = 0;
    DMLRT_CHECK(cudaMemcpyAsync(&e, est, sizeof(e), cudaMemcpyDeviceToHost, gpu.stream()));
    gpu.synchronize("uacdap estimate");
    ec.set_scalar(out_op, ScalarValue::int64(static_cast<int64_t>(e)));
    return;
  }
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), by_row ? m : 1, by_row ? 1 : n,
                                                   gpu.dtype(), gpu.stream(), what + " output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kc::launch_estimates_to_values<T>(est, lines, out.values_as<T>(), gpu.stream());
  });
  set_gpu_output(ec, gpu, out_op.name, std::move(out));
}

}  // namespace

void CountDistinctInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, in_);
  const int64_t m = x->rows(), n = x->cols(), size = m * n;
  const int64_t nnz = x->is_sparse() ? x->nnz() : gpu.count_nnz(*x);
  const std::shared_ptr<MatrixObject> mo = ec.matrix_object(in_.name);
  const bool sparse =
      mo->host_valid() ? mo->block()->is_sparse() : kernels::MatrixBlock::prefers_sparse(m, n, nnz);
  const bool all = dir_ == CountDistinctDir::kAll, by_row = dir_ == CountDistinctDir::kRow;
  if (size == 1 || nnz == 0) {
    if (all)
      ec.set_scalar(out_, ScalarValue::int64(1));
    else
      set_gpu_output(ec, gpu, out_.name,
                     gpu.upload(kernels::MatrixBlock::dense(1, 1, 1.0), "gpu_" + opcode()));
    return;
  }
  if (approx_) {
    constexpr int64_t kMinimumSize = 1024;  // the CPU's exact threshold
    const int64_t units = all ? 1 : (by_row ? m : n);
    if (static_cast<int64_t>(std::floor(nnz / static_cast<double>(units))) >= kMinimumSize)
      return kmv_gpu(ec, gpu, x, sparse, nnz, dir_, out_, "gpu_" + opcode());
  }
  const mem::DeviceMatrix& xm = sparse ? x.csr(gpu) : x.dense(gpu);
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_" + opcode());
  const int64_t stored = sparse ? xm.nnz() : size;
  // The whole matrix adds the value 0 when some cell is zero: one more key.
  const int64_t count = all && (!sparse || nnz < size) ? stored + 1 : stored;
  const int64_t num_segs = all ? 1 : (by_row ? m : n);
  uint64_t* keys = scratch.allocate_n<uint64_t>(static_cast<size_t>(count), "keys");
  int64_t* seg =
      all ? nullptr : scratch.allocate_n<int64_t>(static_cast<size_t>(count), "segments");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kc::launch_java_keys<T>(xm.values_as<T>(), stored, keys, gpu.stream());
    if (all && count > stored) {
      if (sparse) {
        kc::launch_set_key(keys + stored, nullptr, gpu.stream());  // 0.0
      } else {
        // A duplicate of the first key unless some cell is zero (then +0.0, as the CPU adds).
        kc::launch_set_key(keys + stored, keys, gpu.stream());
        kc::launch_mark_zero<T>(xm.values_as<T>(), stored, keys + stored, gpu.stream());
      }
    }
  });
  if (!all) {
    if (!sparse) {
      kc::launch_index_segments(size, n, by_row, seg, gpu.stream());
    } else if (xm.index_width() == mem::IndexWidth::k32) {
      kc::launch_csr_segments(static_cast<const int32_t*>(xm.row_ptr()),
                              static_cast<const int32_t*>(xm.col_idx()), m, stored, by_row, seg,
                              gpu.stream());
    } else {
      kc::launch_csr_segments(static_cast<const int64_t*>(xm.row_ptr()),
                              static_cast<const int64_t*>(xm.col_idx()), m, stored, by_row, seg,
                              gpu.stream());
    }
  }
  int64_t* perm = scratch.allocate_n<int64_t>(static_cast<size_t>(count), "permutation");
  kc::sort_by_segment_and_key(keys, seg, count, num_segs, perm, scratch, gpu.stream());
  auto* counts = scratch.allocate_n<unsigned long long>(static_cast<size_t>(num_segs), "counts");
  kc::launch_count_distinct(keys, seg, perm, count, counts, num_segs, gpu.stream());
  if (all) {
    unsigned long long c = 0;
    DMLRT_CHECK(cudaMemcpyAsync(&c, counts, sizeof(c), cudaMemcpyDeviceToHost, gpu.stream()));
    gpu.synchronize("uacd count");
    ec.set_scalar(out_, ScalarValue::int64(static_cast<int64_t>(c)));
    return;
  }
  mem::DeviceMatrix out =
      mem::DeviceMatrix::dense(gpu.memory(), by_row ? m : 1, by_row ? 1 : n, gpu.dtype(),
                               gpu.stream(), "gpu_" + opcode() + " output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kc::launch_counts_to_values<T>(counts, num_segs, out.values_as<T>(), gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
