// Evictable: what the memory manager needs to know about, and do to, an object that holds device
// memory it may take back (a matrix object's device copy). The manager never frees such memory
// itself: it asks the owner to evict, and the owner writes dirty data back to the host first, so
// nothing is lost (DESIGN.md §5).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dmlrt::mem {

class Evictable {
 public:
  virtual ~Evictable() = default;
  // Device bytes that eviction would return (0 when there is no device copy).
  virtual size_t device_bytes() const = 0;
  // Pinned copies (read or write pins held by a running instruction) are never evicted.
  virtual bool device_pinned() const = 0;
  // Dirty = the device copy is newer than the host copy; eviction copies it back first.
  virtual bool device_dirty() const = 0;
  // The manager's clock value at the last use (MemoryManager::tick), for LRU.
  virtual uint64_t last_use() const = 0;
  // A name for the memory table ("matrix 3x4 dense fp64 of _mVar12").
  virtual std::string describe() const = 0;
  // Copies dirty data to the host, then drops the device copy (its allocations go back to the
  // manager). Must not allocate device memory.
  virtual void evict_device_copy() = 0;
};

}  // namespace dmlrt::mem
