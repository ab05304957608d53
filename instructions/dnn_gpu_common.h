// Shared pieces of the DNN GPU paths (DESIGN.md §5, "DNN ops and memory budgets"): the
// intermediate budget of one instruction, the batch-chunk size that fits it, and the row fetcher
// that hands out dense row chunks of a dense or CSR device matrix.
//
// Note [DNN batch splitting]
// A DNN op whose densified operands, outputs and workspace do not fit the intermediate budget runs
// on chunks of the mini-batch: dnn_chunk_rows picks the largest chunk c with
// fixed_bytes + c * bytes_per_row <= budget (and c * elements_per_row < 2^31, which cuDNN cannot
// index beyond), at least 1. Dense inputs are sliced by pointer offset; CSR inputs go through a
// RowFetcher, which densifies one chunk at a time into a reused buffer, so a sparse image is
// never densified whole. Results written per chunk equal the unsplit run's (tests force this with
// GpuSessionOptions::dnn_budget_bytes).
#pragma once

#include <cstdint>
#include <string>

#ifdef DMLRT_WITH_CUDA
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {

// Largest element count cuDNN indexes in one tensor (SystemDS uses the same 2e9 bound).
constexpr int64_t kMaxCudnnTensorElements = 2000000000LL;

// The chunk of rows (1..n) for a batch of n rows; see Note [DNN batch splitting]. Device-free
// (unit-tested). elements_per_row is the largest per-row element count among the tensors.
int64_t dnn_chunk_rows(int64_t n, int64_t bytes_per_row, int64_t fixed_bytes, int64_t budget_bytes,
                       int64_t elements_per_row);

#ifdef DMLRT_WITH_CUDA

// The intermediate budget of one DNN instruction in bytes: GpuSessionOptions::dnn_budget_bytes
// when set, else the memory manager's budget minus its live bytes.
int64_t dnn_intermediate_budget(mem::GpuSession& gpu);

// Dense row chunks of a device matrix in the session's element type. Dense input: a pointer into
// the matrix itself. CSR input: rows densified into a buffer of max_rows rows allocated once.
class RowFetcher {
 public:
  RowFetcher(mem::GpuSession& gpu, const mem::DeviceMatrix& m, int64_t max_rows,
             const std::string& what);
  // Rows [r0, r1) as a dense row-major (r1 - r0) x cols block; r1 - r0 <= max_rows. The pointer
  // stays valid until the next call (stream-ordered: the next densify is queued after the work
  // that reads this chunk).
  const void* rows(int64_t r0, int64_t r1);
  bool copies() const { return m_.is_sparse(); }

 private:
  mem::GpuSession& gpu_;
  const mem::DeviceMatrix& m_;
  int64_t max_rows_;
  mem::DeviceAllocation buffer_;
};

#endif  // DMLRT_WITH_CUDA

}  // namespace dmlrt::inst
