// CudaAllocator and PinnedBuffer; see cuda_allocator.h.
#ifdef DMLRT_WITH_CUDA
#include "memory/cuda_allocator.h"

#include <cuda_runtime_api.h>

#include <utility>

#include "gpu_context/cuda_check.h"

namespace dmlrt::mem {

void* CudaAllocator::allocate(size_t bytes) {
  void* p = nullptr;
  const cudaError_t st = cudaMalloc(&p, bytes);
  if (st == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it, the manager climbs its ladder
    return nullptr;
  }
  DMLRT_CHECK_CTX(st, "cudaMalloc " << bytes << " bytes");
  return p;
}

void CudaAllocator::release(void* ptr) {
  // Called from destructors: a failure here (a sticky earlier error) cannot be reported.
  cudaFree(ptr);
}

void CudaAllocator::zero(void* ptr, size_t bytes, cudaStream_t stream) {
  DMLRT_CHECK_CTX(cudaMemsetAsync(ptr, 0, bytes, stream), bytes << " bytes");
}

void device_memory_info(size_t* free_bytes, size_t* total_bytes) {
  DMLRT_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
}

PinnedBuffer::PinnedBuffer(size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  const cudaError_t st = cudaMallocHost(&ptr_, bytes);
  if (st == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    ptr_ = nullptr;
    throw OutOfMemory("pinned host allocation of " + std::to_string(bytes) + " bytes failed");
  }
  DMLRT_CHECK_CTX(st, "cudaMallocHost " << bytes << " bytes");
}

PinnedBuffer::~PinnedBuffer() {
  if (ptr_ != nullptr) cudaFreeHost(ptr_);
}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& o) noexcept
    : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_ != nullptr) cudaFreeHost(ptr_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

}  // namespace dmlrt::mem
#endif  // DMLRT_WITH_CUDA
