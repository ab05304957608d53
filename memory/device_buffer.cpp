// DeviceBuffer: RAII over cudaMalloc/cudaFree; see device_buffer.h.
#ifdef DMLRT_WITH_CUDA
#include "memory/device_buffer.h"

#include <utility>

#include "gpu_context/cuda_check.h"

namespace dmlrt::mem {

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  const cudaError_t st = cudaMalloc(&ptr_, bytes);
  if (st == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    ptr_ = nullptr;
    throw OutOfMemory("device allocation of " + std::to_string(bytes) + " bytes failed");
  }
  DMLRT_CUDA_CHECK_CTX(st, "cudaMalloc " << bytes << " bytes");
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) cudaFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::copy_from_host(const void* src, size_t bytes) {
  DMLRT_CUDA_CHECK_CTX(cudaMemcpy(ptr_, src, bytes, cudaMemcpyHostToDevice), bytes << " bytes");
}

void DeviceBuffer::copy_to_host(void* dst, size_t bytes) const {
  DMLRT_CUDA_CHECK_CTX(cudaMemcpy(dst, ptr_, bytes, cudaMemcpyDeviceToHost), bytes << " bytes");
}

}  // namespace dmlrt::mem
#endif  // DMLRT_WITH_CUDA
