// Launchers of pmm, the permutation matrix multiply (host-clean): table(p, seq(1, n), rlen, n) %*% x
// without the table, as a gather. Pointers are device pointers; `stream` is a cudaStream_t.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// Workspace bytes of launch_pmm for `rlen` output rows.
size_t pmm_workspace_bytes(int64_t rlen);

// p (n, 1) of 1-based target rows (0 drops the row), x (n, c) -> out (rlen, c): row p[i] - 1 holds
// x's row i, the last such i where several rows target one (the CPU's sequential order), zeros
// elsewhere. Synchronises once to read the validity flag: returns -1 when every entry is a whole
// number in [0, rlen], else the 0-based index of the first row whose entry is not (out is then
// unspecified). n must fit in int32.
int64_t launch_pmm(const double* p, const double* x, int64_t n, int64_t c, int64_t rlen,
                   double* out, void* workspace, cudaStream_t stream);
int64_t launch_pmm(const float* p, const float* x, int64_t n, int64_t c, int64_t rlen, float* out,
                   void* workspace, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
