// Launch-cost anchors of dmlrt_bench's overhead section (launch_floor.cu).
#pragma once

#include <cuda_runtime_api.h>

namespace dmlrt_bench {

// An empty kernel <<<1, 256>>> on `stream`; the launch status.
cudaError_t launch_empty(cudaStream_t stream);
// A kernel with a 96-byte parameter block <<<1, 256>>>: out[0] = in[0] + 1.
cudaError_t launch_params96(const double* in, double* out, cudaStream_t stream);

}  // namespace dmlrt_bench
