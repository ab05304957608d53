// union_distinct: the GPU run (union_instructions.h). The distinct rows are found and gathered on
// the device (kernels/cuda/union_distinct.h, Note [GPU union_distinct]); only their count comes
// back to size the output, which stays on the device, dense.
#include <cuda_runtime_api.h>

#include <vector>

#include "gpu_context/cuda_check.h"
#include "instructions/gpu_placement.h"
#include "instructions/union_instructions.h"
#include "kernels/cuda/union_distinct.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {

namespace kc = kernels::cuda;

void UnionDistinctInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead a = gpu_read(ec, gpu, a_);
  DeviceRead b = gpu_read(ec, gpu, b_);
  const int64_t ma = a->rows(), mb = b->rows(), n = a->cols(), m = ma + mb;
  if (m == 0 || n == 0) {  // no rows: (0, n); rows of no cells are all equal: (1, 0)
    const int64_t rows = m > 0 ? 1 : 0;
    set_gpu_output(ec, gpu, out_.name,
                   gpu.upload(kernels::MatrixBlock::dense(rows, n, std::vector<double>()),
                              "gpu_union_distinct output"));
    return;
  }
  // Dense views, (ma, n) and (mb, n) row-major; none of an input without rows.
  const mem::DeviceMatrix* ad = ma > 0 ? &a.dense(gpu) : nullptr;
  const mem::DeviceMatrix* bd = mb > 0 ? &b.dense(gpu) : nullptr;
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_" + opcode());
  int64_t* slot = scratch.allocate_n<int64_t>(static_cast<size_t>(m), "row slots");
  auto values = [](const mem::DeviceMatrix* d, auto tag) {
    using T = decltype(tag);
    return d != nullptr ? d->values_as<T>() : static_cast<T*>(nullptr);
  };
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kc::union_distinct_slots<T>(values(ad, tag), ma, values(bd, tag), mb, n, slot, scratch,
                                gpu.stream());
  });
  int64_t d = 0;
  DMLRT_CHECK(cudaMemcpyAsync(&d, slot + (m - 1), sizeof(d), cudaMemcpyDeviceToHost, gpu.stream()));
  gpu.synchronize("union_distinct row count");
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), d, n, gpu.dtype(), gpu.stream(),
                                                   "gpu_union_distinct output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kc::launch_union_gather<T>(values(ad, tag), ma, values(bd, tag), mb, n, slot,
                               out.values_as<T>(), gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
