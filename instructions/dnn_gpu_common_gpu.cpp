// Shared pieces of the DNN GPU paths that read the session; see dnn_gpu_common.h.
#include "instructions/dnn_gpu_common.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

int64_t dnn_intermediate_budget(mem::GpuSession& gpu) {
  if (gpu.options().dnn_budget_bytes >= 0) return gpu.options().dnn_budget_bytes;
  const mem::MemoryManager& mm = gpu.memory();
  return mm.budget() > mm.live_bytes() ? static_cast<int64_t>(mm.budget() - mm.live_bytes()) : 0;
}

}  // namespace dmlrt::inst
