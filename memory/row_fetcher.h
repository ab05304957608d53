// RowFetcher: dense row chunks of a dense or CSR device matrix, for ops that cannot take the whole
// matrix densified at once (DESIGN.md §5; see Note [DNN batch splitting] in
// instructions/dnn_gpu_common.h).
#pragma once

#include <cstdint>
#include <string>

#include "memory/gpu_session.h"

namespace dmlrt::mem {

#ifdef DMLRT_WITH_CUDA

// Dense row chunks of a device matrix in the session's element type. Dense input: a pointer into
// the matrix itself. CSR input: rows densified into a buffer of max_rows rows allocated once.
class RowFetcher {
 public:
  RowFetcher(GpuSession& gpu, const DeviceMatrix& m, int64_t max_rows, const std::string& what);
  // Rows [r0, r1) as a dense row-major (r1 - r0) x cols block; r1 - r0 <= max_rows. The pointer
  // stays valid until the next call (stream-ordered: the next densify is queued after the work
  // that reads this chunk).
  const void* rows(int64_t r0, int64_t r1);
  bool copies() const { return m_.is_sparse(); }

 private:
  GpuSession& gpu_;
  const DeviceMatrix& m_;
  int64_t max_rows_;
  DeviceAllocation buffer_;
};

#endif  // DMLRT_WITH_CUDA

}  // namespace dmlrt::mem
