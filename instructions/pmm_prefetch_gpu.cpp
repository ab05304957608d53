// pmm: the GPU run (pmm_prefetch_instructions.h). P and X are read densely on the device, the
// output is gathered there (kernels/cuda/permute.h); an invalid entry of P raises the CPU run's
// error, its value read back from the device.
#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "instructions/pmm_prefetch_instructions.h"
#include "kernels/cuda/permute.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

void PmmInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const int64_t rlen = output_rows(ec);
  DeviceRead pr = gpu_read(ec, gpu, p_), xr = gpu_read(ec, gpu, x_);
  const mem::DeviceMatrix& p = pr.dense(gpu);
  const mem::DeviceMatrix& x = xr.dense(gpu);
  const int64_t n = x.rows(), c = x.cols();
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rlen, c, gpu.dtype(),
                                                   gpu.stream(), "gpu_pmm output");
  mem::DeviceAllocation ws = gpu.scratch(kernels::cuda::pmm_workspace_bytes(rlen), "gpu_pmm targets");
  int64_t bad = -1;
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    bad = kernels::cuda::launch_pmm(p.values_as<T>(), x.values_as<T>(), n, c, rlen,
                                    out.values_as<T>(), ws.data(), gpu.stream());
  });
  if (bad >= 0) bad_entry(bad, gpu.read_element(p, bad, 0), rlen);
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
