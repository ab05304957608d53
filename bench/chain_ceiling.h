// The ceiling of the fused SGD chain row (dmlrt_bench.cpp, bench_fused_chain): the same three
// lines written by hand as one kernel (chain_ceiling.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dmlrt_bench {

// t2 = z - 0.01 * (x + 5e-4 * y), out = w + 1.9 * t2 over n cells (T1 = x + 5e-4 * y stays in a
// register): 4 reads and 2 writes, each product and sum rounded on its own as dmlrt's kernels
// round them, so the outputs equal dmlrt's bit for bit. 16-byte vectors when every pointer is
// 16-byte aligned, one vector per thread; the launch status.
template <typename T>
cudaError_t launch_sgd_chain_by_hand(const T* x, const T* y, const T* z, const T* w, T* t2, T* out,
                                     int64_t n, cudaStream_t stream);

}  // namespace dmlrt_bench
