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
//
// Note [Allocation bookkeeping cost]
// A tiny GPU instruction costs a few microseconds, most of it the kernel launch, so the manager's
// share per allocation is kept to a few tens of nanoseconds: live blocks sit in a slot table whose
// index the DeviceAllocation carries (no map insert or lookup, no node allocation), cached blocks
// in per-size-class free lists (no scan over the whole cache), and labels are formatted only when
// printed (Note [Allocation labels]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "gpu_context/cuda_types.h"
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
  virtual void zero(void* ptr, size_t bytes, cudaStream_t stream) = 0;
};

// Note [Allocation labels]
// Every allocation carries a label for the memory table and the out-of-memory message. Building
// it as a std::string per allocation ("gpu_" + opcode + " output") would cost string work and heap
// allocations on every instruction, so an AllocLabel keeps the pieces and str() formats them only
// when printed: a static prefix, an owned detail, a static suffix and a static note (the CSR
// parts), concatenated in that order. String literals are kept by pointer (they live forever); any
// other text is copied or moved into the detail.
class AllocLabel {
 public:
  AllocLabel() = default;
  // A string literal, kept by pointer.
  template <size_t N>
  AllocLabel(const char (&literal)[N]) : prefix_(literal) {}  // NOLINT(runtime/explicit)
  // A C string that may not outlive the allocation: copied.
  template <typename T,
            std::enable_if_t<std::is_same_v<T, const char*> || std::is_same_v<T, char*>, int> = 0>
  AllocLabel(T text) : detail_(text != nullptr ? text : "") {}  // NOLINT(runtime/explicit)
  AllocLabel(std::string text) : detail_(std::move(text)) {}    // NOLINT(runtime/explicit)
  // static_prefix + detail + static_suffix, e.g. ("gpu_", opcode, " output").
  AllocLabel(const char* static_prefix, std::string detail, const char* static_suffix)
      : prefix_(static_prefix), detail_(std::move(detail)), suffix_(static_suffix) {}

  // This label followed by `static_note` (" (csr values)"); a label with a note already gets the
  // formatted text as its detail.
  AllocLabel with_note(const char* static_note) const;
  std::string str() const;

 private:
  const char* prefix_ = "";
  std::string detail_;
  const char* suffix_ = "";
  const char* note_ = "";
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
  DeviceAllocation(MemoryManager* mm, void* ptr, size_t bytes, uint32_t slot)
      : mm_(mm), ptr_(ptr), bytes_(bytes), slot_(slot) {}
  MemoryManager* mm_ = nullptr;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  uint32_t slot_ = 0;  // the manager's live-block slot (Note [Allocation bookkeeping cost])
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
  // errors (Note [Allocation labels]). Zero-filled (ordered on `stream`) when `zero`. Throws
  // OutOfMemory (Note [Allocation ladder]).
  DeviceAllocation allocate(size_t bytes, AllocLabel what, cudaStream_t stream, bool zero = false);
  // allocate(), taking one of the cached free blocks `prefer` names where one of them (in that
  // order) is free on `stream`: a CUDA graph replay asks for the buffers its previous replays
  // used, so its nodes keep their pointers (Note [CUDA graphs], runtime/cuda_graphs.cpp).
  DeviceAllocation allocate_preferring(size_t bytes, AllocLabel what, cudaStream_t stream,
                                       const uintptr_t* prefer, size_t n_prefer);

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
  size_t live_count() const { return live_count_; }
  EvictionPolicy policy() const { return policy_; }
  GpuStats& stats() { return *stats_; }

  // One line per live allocation and per registered object (name, size, pinned, dirty, last use).
  std::string memory_table() const;

  static size_t size_class(size_t bytes);
  // True when `p` lies in a live allocation (a scan of the live blocks: for CUDA graph capture,
  // runtime/cuda_graphs.cpp, not for hot paths).
  bool in_live_block(const void* p) const;

 private:
  friend class DeviceAllocation;
  struct Block {  // one live allocation; ptr == nullptr marks a free slot
    void* ptr = nullptr;
    size_t block_bytes = 0;  // size class
    size_t requested = 0;
    cudaStream_t stream = nullptr;
    AllocLabel what;
  };
  struct CachedBlock {
    void* ptr;
    cudaStream_t stream;
  };
  void give_back(void* ptr, uint32_t slot);
  bool take_cached(size_t cls, cudaStream_t stream, void** out, const uintptr_t* prefer = nullptr,
                   size_t n_prefer = 0);
  void* raw_allocate(size_t cls);
  void raw_release(void* ptr);
  void release_cache_until(size_t target_total);
  std::vector<Evictable*> unpinned_candidates() const;
  DeviceAllocation finish(void* ptr, size_t bytes, size_t cls, AllocLabel&& what,
                          cudaStream_t stream, bool zero);

  std::unique_ptr<DeviceAllocator> allocator_;
  size_t budget_;
  EvictionPolicy policy_;
  GpuStats own_stats_;
  GpuStats* stats_;
  bool eager_free_;
  uint64_t clock_ = 0;
  size_t live_bytes_ = 0;    // sum of block sizes of live allocations
  size_t cached_bytes_ = 0;  // sum of block sizes in the cache
  std::vector<Block> slots_;          // live blocks by slot
  std::vector<uint32_t> free_slots_;  // unused entries of slots_
  size_t live_count_ = 0;
  // Cached free blocks by size class, most recently freed last (reused first: likely still in L2).
  std::unordered_map<size_t, std::vector<CachedBlock>> cache_;
  size_t cache_count_ = 0;
  std::vector<Evictable*> evictables_;
};

// "1.5 MiB" style sizes for messages.
std::string format_bytes(size_t bytes);

}  // namespace dmlrt::mem
