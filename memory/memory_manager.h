// MemoryManager: every device allocation of dmlrt — matrices, temporaries, library scratch — goes
// through here, and only the DeviceAllocator behind it calls cudaMalloc/cudaFree (STYLE.md 7).
// Host-clean and device-free in itself: the unit tests drive it with a fake allocator.
//
// Note [Allocation ladder]
// allocate(bytes) tries, in order:
//   1. reuse a cached free block of the same size class that was last used on the same stream
//      (stream-ordered reuse: work queued on one stream runs in order, so the block is free by the
//      time the new owner's work runs; a block of another stream would need an event);
//   2. allocate fresh when live + cached + block <= budget;
//   3. while the live bytes alone leave no room, evict one unpinned Evictable chosen by the policy
//      (LRU: least recently used; MIN_EVICT: the smallest single object whose eviction frees
//      enough, else LRU) — dirty ones are written back by their owner — and retry the cache;
//   4. release cached free blocks (cudaFree), largest first, until the request fits, and allocate;
//   5. when the device itself refuses (fragmentation, other processes), evict every unpinned
//      object, release the whole cache and try once more;
//   6. throw OutOfMemory with the memory table.
// Releasing cached blocks (step 4) moves no data, but it comes after eviction so that the blocks
// an eviction frees can be reused without a cudaFree/cudaMalloc pair (cudaFree synchronises the
// device). Freed blocks are cached unless eager_free (sysds.gpu.eager.cudaFree) is set.
//
// Note [Size classes]
// Blocks are rounded up to 512 bytes below 1 MiB and to a quarter of the enclosing power of two
// above, so a cached block serves every request of its class with at most 25% waste, and reuse
// hits do not need exact byte sizes (SystemDS's lazy free list needs them exact).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "memory/evictable.h"
#include "memory/gpu_stats.h"
#include "memory/memory_config.h"

namespace dmlrt::mem {

// The raw device allocator: the one place cudaMalloc/cudaFree are called (CudaAllocator), or a fake
// in the unit tests.
class DeviceAllocator {
 public:
  virtual ~DeviceAllocator() = default;
  // nullptr when the device cannot satisfy the request.
  virtual void* allocate(size_t bytes) = 0;
  virtual void release(void* ptr) = 0;
  // Zero-fills bytes at ptr, ordered on `stream`.
  virtual void zero(void* ptr, size_t bytes, void* stream) = 0;
};

class MemoryManager;

// A move-only owner of one block; returns it to the manager when destroyed. A zero-byte allocation
// holds no memory (data() == nullptr).
class DeviceAllocation {
 public:
  DeviceAllocation() = default;
  ~DeviceAllocation() { reset(); }
  DeviceAllocation(DeviceAllocation&& o) noexcept;
  DeviceAllocation& operator=(DeviceAllocation&& o) noexcept;
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;

  void* data() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }  // as requested
  explicit operator bool() const { return ptr_ != nullptr; }
  void reset();

 private:
  friend class MemoryManager;
  DeviceAllocation(MemoryManager* mm, void* ptr, size_t bytes) : mm_(mm), ptr_(ptr), bytes_(bytes) {}
  MemoryManager* mm_ = nullptr;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// Chooses the next object to evict among `candidates` (all unpinned, with device memory) when
// `needed` more bytes must be freed. nullptr when there is none. See Note [Allocation ladder].
Evictable* pick_victim(const std::vector<Evictable*>& candidates, size_t needed,
                       EvictionPolicy policy);

class MemoryManager {
 public:
  MemoryManager(std::unique_ptr<DeviceAllocator> allocator, size_t budget_bytes,
                EvictionPolicy policy, GpuStats* stats, bool eager_free = false);
  MemoryManager(const MemoryManager&) = delete;
  MemoryManager& operator=(const MemoryManager&) = delete;
  // Releases the cache. Live allocations must be gone (their destructors call back here).
  ~MemoryManager();

  // A block of at least `bytes` for work on `stream`; `what` names it in the memory table and in
  // errors. Zero-filled (ordered on `stream`) when `zero`. Throws OutOfMemory (Note [Allocation
  // ladder]).
  DeviceAllocation allocate(size_t bytes, const std::string& what, void* stream, bool zero = false);

  // Objects whose device memory may be taken back. An object unregisters itself before it dies.
  void register_evictable(Evictable* e);
  void unregister_evictable(Evictable* e);
  // The LRU clock: every use of an evictable stores the next tick.
  uint64_t tick() { return ++clock_; }

  // Evicts every unpinned registered object (dirty data goes to the host).
  void evict_all_unpinned();
  // cudaFrees every cached block.
  void release_cached();

  size_t budget() const { return budget_; }
  size_t live_bytes() const { return live_bytes_; }
  size_t cached_bytes() const { return cached_bytes_; }
  size_t live_count() const { return live_.size(); }
  EvictionPolicy policy() const { return policy_; }
  GpuStats& stats() { return *stats_; }

  // One line per live allocation and per registered object (name, size, pinned, dirty, last use).
  std::string memory_table() const;

  static size_t size_class(size_t bytes);

 private:
  friend class DeviceAllocation;
  struct Block {
    size_t block_bytes;  // size class
    size_t requested;
    std::string what;
    void* stream;
  };
  struct CachedBlock {
    void* ptr;
    size_t block_bytes;
    void* stream;
  };
  void give_back(void* ptr);
  bool take_cached(size_t cls, void* stream, void** out);
  void* raw_allocate(size_t cls);
  void raw_release(void* ptr);
  void release_cache_until(size_t target_total);
  std::vector<Evictable*> unpinned_candidates() const;
  DeviceAllocation finish(void* ptr, size_t bytes, size_t cls, const std::string& what,
                          void* stream, bool zero);

  std::unique_ptr<DeviceAllocator> allocator_;
  size_t budget_;
  EvictionPolicy policy_;
  GpuStats own_stats_;
  GpuStats* stats_;
  bool eager_free_;
  uint64_t clock_ = 0;
  size_t live_bytes_ = 0;    // sum of block sizes of live allocations
  size_t cached_bytes_ = 0;  // sum of block sizes in the cache
  std::map<void*, Block> live_;
  std::vector<CachedBlock> cache_;
  std::vector<Evictable*> evictables_;
};

// "1.5 MiB" style sizes for messages.
std::string format_bytes(size_t bytes);

}  // namespace dmlrt::mem
