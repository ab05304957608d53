// Variables: the GPU run of the scalar casts of a 1x1 matrix (castdts castvtd castvti castvtb,
// variable_instructions.h). DESIGN.md §4: a scalar for control flow is one scalar read from the
// device, not the matrix: a 1x1 whose data lives only on the device has its one cell read there
// and stays device-resident (no host block is made; under the CUDA graph runner the read is
// deferred until the value is used: Note [Deferred scalars] in scalar_value.cpp); one with a
// current host block is read on the host, with no device work.
#include <cuda_runtime_api.h>

#include "gpu_context/cuda_check.h"
#include "instructions/gpu_placement.h"
#include "instructions/matrix_object.h"
#include "instructions/variable_instructions.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

void CastInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const std::shared_ptr<MatrixObject>& mo = ec.matrix_object_ref(in_.name);
  if (mo->host_valid() || !mo->has_device_copy()) {  // on the host (or still in its file)
    run_cpu(ec);
    return;
  }
  DeviceRead x = gpu_read(ec, gpu, in_);
  const mem::DeviceMatrix& d = *x;  // 1x1: check()
  if (!d.is_sparse()) {
    set_result(ec, gpu_scalar_result(gpu, d, out_.name));  // deferred under the graph runner
    return;
  }
  double v = 0.0;  // an empty CSR holds 0
  if (d.nnz() > 0) {
    // A 1x1 CSR's one entry is its first value.
    mem::with_dtype(d.dtype(), [&](auto t) {
      decltype(t) h = 0;
      DMLRT_CHECK(cudaMemcpyAsync(&h, d.values(), sizeof(h), cudaMemcpyDeviceToHost, gpu.stream()));
      gpu.synchronize("castdts of a 1x1 CSR");
      v = static_cast<double>(h);
    });
  }
  set_result(ec, ScalarValue::fp64(v));
}

}  // namespace dmlrt::inst
