// CudaAllocator: the DeviceAllocator over cudaMalloc/cudaFree/cudaMemsetAsync — the only
// cudaMalloc and cudaFree calls of dmlrt (STYLE.md 7) — and PinnedBuffer, the owner of page-locked
// host memory used as the staging area of transfers. CUDA builds only.
#pragma once

#ifdef DMLRT_WITH_CUDA
#include <cstddef>

#include "gpu_context/cuda_types.h"
#include "memory/memory_manager.h"

namespace dmlrt::mem {

class CudaAllocator final : public DeviceAllocator {
 public:
  void* allocate(size_t bytes) override;
  void release(void* ptr) override;
  void zero(void* ptr, size_t bytes, cudaStream_t stream) override;
};

// Free and total memory of the current device (cudaMemGetInfo).
void device_memory_info(size_t* free_bytes, size_t* total_bytes);

// Page-locked host memory (cudaMallocHost), move-only.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& o) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* data() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace dmlrt::mem
#endif  // DMLRT_WITH_CUDA
