// Device scratch memory for the device-op layer (kernels/cuda/*_op.cpp): library algorithms that
// need workspace (cuSPARSE SpMM/SpGEMM buffers, cuDNN workspaces, staging tensors) take it from a
// Scratch the caller hands in, so kernels/ never allocates device memory itself.
//
// Note [Device scratch]
// The memory manager (memory/, mem::ScopedScratch) implements Scratch: every block comes from its
// allocate (budget, eviction, the memory table, out-of-memory errors naming the label) and all of
// them go back to it when the ScopedScratch object ends, at the end of the instruction's scope —
// the pool-per-operation model of ggml's gallocr. Blocks are ordered on the stream the op runs
// on, so returning them at scope end needs no synchronisation (the manager's cache reuses them
// only for work on that stream).
#pragma once

#include <cstddef>

namespace dmlrt::kernels::cuda {

class Scratch {
 public:
  virtual ~Scratch() = default;
  // At least `bytes` of device memory, valid until the Scratch ends; null only for zero bytes.
  // `what` names the block in the memory table and in out-of-memory errors (a string literal).
  // Throws dmlrt::OutOfMemory when the budget cannot be met even after eviction.
  virtual void* allocate(size_t bytes, const char* what) = 0;
  // The same as `n` elements of T.
  template <typename T>
  T* allocate_n(size_t n, const char* what) {
    return static_cast<T*>(allocate(n * sizeof(T), what));
  }
};

}  // namespace dmlrt::kernels::cuda
