// mem::ScopedScratch: the memory manager's implementation of the device-op layer's scratch
// interface (kernels/cuda/scratch.h, Note [Device scratch]). One per operation: the blocks it
// handed out go back to the manager when it ends.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gpu_context/cuda_types.h"
#include "kernels/cuda/scratch.h"
#include "memory/memory_manager.h"

namespace dmlrt::mem {

class ScopedScratch final : public kernels::cuda::Scratch {
 public:
  // `owner` prefixes every block's label ("gpu_ba+*": "gpu_ba+* SpGEMM buffer"); work is ordered
  // on `stream`.
  ScopedScratch(MemoryManager& mm, cudaStream_t stream, std::string owner)
      : mm_(&mm), stream_(stream), owner_(std::move(owner)) {}
  ScopedScratch(const ScopedScratch&) = delete;
  ScopedScratch& operator=(const ScopedScratch&) = delete;

  void* allocate(size_t bytes, const char* what) override {
    if (bytes == 0) return nullptr;
    blocks_.push_back(mm_->allocate(bytes, AllocLabel("", owner_ + " ", what), stream_));
    return blocks_.back().data();
  }
  // Bytes handed out so far (tests).
  size_t bytes() const {
    size_t n = 0;
    for (const DeviceAllocation& b : blocks_) n += b.bytes();
    return n;
  }

 private:
  MemoryManager* mm_;
  cudaStream_t stream_;
  std::string owner_;
  std::vector<DeviceAllocation> blocks_;
};

}  // namespace dmlrt::mem
