// A DeviceAllocator for host tests of the memory manager: distinct fake addresses (never
// dereferenced), refusing beyond `capacity` bytes (the "device"); `live` records what is held.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

#include "memory/memory_manager.h"

namespace dmlrt::test {

class FakeAllocator final : public mem::DeviceAllocator {
 public:
  FakeAllocator(size_t capacity, std::map<void*, size_t>* live)
      : capacity_(capacity), live_(live) {}
  void* allocate(size_t bytes) override {
    if (used_ + bytes > capacity_) return nullptr;
    used_ += bytes;
    void* p = reinterpret_cast<void*>(next_);
    next_ += bytes + 4096;
    (*live_)[p] = bytes;
    return p;
  }
  void release(void* p) override {
    used_ -= (*live_)[p];
    live_->erase(p);
  }
  void zero(void*, size_t, cudaStream_t) override {}

 private:
  size_t capacity_;
  size_t used_ = 0;
  uintptr_t next_ = 0x100000;
  std::map<void*, size_t>* live_;
};

}  // namespace dmlrt::test
