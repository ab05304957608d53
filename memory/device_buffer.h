// A typed, move-only owner of one device allocation. This is the seed of the memory manager
// (issue #4): every device allocation goes through memory/, and only memory/ calls cudaMalloc.
#pragma once

#ifdef DMLRT_WITH_CUDA
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dmlrt::mem {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  template <typename T>
  T* as() const { return static_cast<T*>(ptr_); }

  void copy_from_host(const void* src, size_t bytes);  // synchronous
  void copy_to_host(void* dst, size_t bytes) const;    // synchronous

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace dmlrt::mem
#endif  // DMLRT_WITH_CUDA
