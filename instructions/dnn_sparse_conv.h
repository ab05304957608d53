// The sparse-filter path of conv2d on the GPU (DESIGN.md §5, "DNN ops and memory budgets"): when
// the filter's device copy is CSR and the path is cheaper than densifying it, conv2d runs as
// im2col (dense or CSR images, CRS x NPQ) -> cuSPARSE SpMM with the K x CRS filter -> reorg_knpq
// (K x NPQ -> N x KPQ, plus the bias), batch chunk by batch chunk. The cost model and the chunk
// size are device-free (unit-tested); see Note [Sparse-filter conv2d cost model].
#pragma once

#include <cstdint>

#include "kernels/cpu/dnn_conv.h"

#ifdef DMLRT_WITH_CUDA
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {

// --- device-free parts (unit-tested) ---

// Estimated cost of conv2d with a K x CRS filter of filter_nnz nonzeros on the sparse-filter path,
// and on the dense path (filter densified, dense convolution), in the same unit (dense
// multiply-add equivalents), with the constants calibrated for FP64 or FP32; see Note
// [Sparse-filter conv2d cost model].
double sparse_filter_conv2d_sparse_cost(int64_t filter_nnz, const kernels::cpu::ConvShape& sh,
                                        bool fp64);
double sparse_filter_conv2d_dense_cost(const kernels::cpu::ConvShape& sh, bool fp64);
// Whether the sparse-filter path is estimated cheaper (always for an empty filter).
bool sparse_filter_conv2d_cheaper(int64_t filter_nnz, const kernels::cpu::ConvShape& sh, bool fp64);

// Images per batch chunk on the sparse-filter path: the largest c (1..N) whose CRS x cPQ im2col
// buffer and K x cPQ product (elem_bytes per element) fit budget_bytes and hold fewer than
// kMaxCudnnTensorElements elements each; 0 when not even one image fits.
int64_t sparse_filter_conv2d_chunk_rows(const kernels::cpu::ConvShape& sh, int64_t elem_bytes,
                                        int64_t budget_bytes);

#ifdef DMLRT_WITH_CUDA

// Whether conv2d with this filter should take the sparse-filter path: the filter's device copy is
// CSR, a chunk of at least one image fits budget_bytes, and the estimated cost is
// lower than densifying the filter.
bool sparse_filter_conv2d_applies(mem::GpuSession& gpu, const mem::DeviceMatrix& filter,
                                  const kernels::cpu::ConvShape& sh, int64_t budget_bytes);

// out (N x KPQ dense, session dtype, allocated by the caller) = conv2d(images, filter)
// [+ bias (K x 1 dense device, may be null)]. images dense or CSR (N x CHW), filter CSR (K x CRS;
// an empty CSR gives the bias alone). Splits the batch into chunks that fit
// budget_bytes (sparse_filter_conv2d_chunk_rows); CSR images are read chunk by chunk straight from
// their CSR rows. Throws ShapeError on mismatched operands and OutOfMemory when not even one image
// fits the budget. Stream-ordered; never synchronises.
void sparse_filter_conv2d(mem::GpuSession& gpu, const mem::DeviceMatrix& images,
                          const mem::DeviceMatrix& filter, const mem::DeviceMatrix* bias,
                          const kernels::cpu::ConvShape& sh, int64_t budget_bytes,
                          mem::DeviceMatrix& out);

#endif  // DMLRT_WITH_CUDA

}  // namespace dmlrt::inst
