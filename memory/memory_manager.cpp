// MemoryManager: the allocation ladder, block cache and eviction; see memory_manager.h.
#include "memory/memory_manager.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <iomanip>
#include <iterator>
#include <sstream>
#include <utility>

#include "gpu_context/error.h"
#include "memory/graph_hook.h"

namespace dmlrt::mem {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

std::string format_bytes(size_t bytes) {
  std::ostringstream os;
  const double b = static_cast<double>(bytes);
  if (bytes < 1024)
    os << bytes << " B";
  else if (bytes < (size_t{1} << 20))
    os << std::fixed << std::setprecision(1) << b / 1024 << " KiB";
  else if (bytes < (size_t{1} << 30))
    os << std::fixed << std::setprecision(1) << b / (1 << 20) << " MiB";
  else
    os << std::fixed << std::setprecision(2) << b / (1 << 30) << " GiB";
  return os.str();
}

// ---------------------------------------------------------------- AllocLabel

AllocLabel AllocLabel::with_note(const char* static_note) const {
  if (*note_ == '\0') {
    AllocLabel l = *this;
    l.note_ = static_note;
    return l;
  }
  return AllocLabel("", str(), static_note);
}

std::string AllocLabel::str() const {
  std::string s = prefix_;
  s += detail_;
  s += suffix_;
  s += note_;
  return s;
}

// ---------------------------------------------------------------- DeviceAllocation

DeviceAllocation::DeviceAllocation(DeviceAllocation&& o) noexcept
    : mm_(std::exchange(o.mm_, nullptr)),
      ptr_(std::exchange(o.ptr_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)),
      slot_(std::exchange(o.slot_, 0)) {}

DeviceAllocation& DeviceAllocation::operator=(DeviceAllocation&& o) noexcept {
  if (this != &o) {
    reset();
    mm_ = std::exchange(o.mm_, nullptr);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    slot_ = std::exchange(o.slot_, 0);
  }
  return *this;
}

void DeviceAllocation::reset() {
  if (ptr_ != nullptr && mm_ != nullptr) mm_->give_back(ptr_, slot_);
  mm_ = nullptr;
  ptr_ = nullptr;
  bytes_ = 0;
  slot_ = 0;
}

// ---------------------------------------------------------------- policy

Evictable* pick_victim(const std::vector<Evictable*>& candidates, size_t needed,
                       EvictionPolicy policy) {
  Evictable* lru = nullptr;
  Evictable* smallest_fit = nullptr;
  for (Evictable* e : candidates) {
    if (e->device_pinned() || e->device_bytes() == 0) continue;
    if (lru == nullptr || e->last_use() < lru->last_use()) lru = e;
    if (e->device_bytes() >= needed &&
        (smallest_fit == nullptr || e->device_bytes() < smallest_fit->device_bytes() ||
         (e->device_bytes() == smallest_fit->device_bytes() &&
          e->last_use() < smallest_fit->last_use())))
      smallest_fit = e;
  }
  if (policy == EvictionPolicy::kMinEvict && smallest_fit != nullptr) return smallest_fit;
  return lru;
}

// ---------------------------------------------------------------- MemoryManager

MemoryManager::MemoryManager(std::unique_ptr<DeviceAllocator> allocator, size_t budget_bytes,
                             EvictionPolicy policy, GpuStats* stats, bool eager_free)
    : allocator_(std::move(allocator)),
      budget_(budget_bytes),
      policy_(policy),
      stats_(stats != nullptr ? stats : &own_stats_),
      eager_free_(eager_free) {}

MemoryManager::~MemoryManager() {
  release_cached();
  // Live blocks at this point belong to owners that outlive the manager (a bug elsewhere); freeing
  // them here keeps the device clean, and their owners' later give_back would be fatal, so the
  // session drops every device copy before destroying the manager (GpuSession::~GpuSession).
  for (const Block& b : slots_)
    if (b.ptr != nullptr) allocator_->release(b.ptr);
}

size_t MemoryManager::size_class(size_t bytes) {
  constexpr size_t kSmall = size_t{1} << 20;
  if (bytes == 0) return 0;
  if (bytes <= kSmall) return (bytes + 511) / 512 * 512;
  size_t pow2 = kSmall;
  while (pow2 < bytes) pow2 <<= 1;  // bytes in (pow2/2, pow2]
  const size_t quarter = pow2 / 8;  // a quarter of the octave (pow2/2, pow2]
  return (bytes + quarter - 1) / quarter * quarter;
}

void MemoryManager::register_evictable(Evictable* e) {
  if (std::find(evictables_.begin(), evictables_.end(), e) == evictables_.end())
    evictables_.push_back(e);
}

void MemoryManager::unregister_evictable(Evictable* e) {
  // register_evictable keeps entries unique. Search from the back: the objects that come and go
  // per instruction (temporaries) are the recently registered ones.
  auto it = std::find(evictables_.rbegin(), evictables_.rend(), e);
  if (it != evictables_.rend()) evictables_.erase(std::next(it).base());
}

std::vector<Evictable*> MemoryManager::unpinned_candidates() const {
  std::vector<Evictable*> out;
  for (Evictable* e : evictables_)
    if (!e->device_pinned() && e->device_bytes() > 0) out.push_back(e);
  return out;
}

bool MemoryManager::take_cached(size_t cls, cudaStream_t stream, void** out,
                                const uintptr_t* prefer, size_t n_prefer) {
  if (cache_count_ == 0) return false;
  auto it = cache_.find(cls);
  if (it == cache_.end()) return false;
  std::vector<CachedBlock>& list = it->second;
  const auto take = [&](size_t i) {
    *out = list[i].ptr;
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
    cached_bytes_ -= cls;
    --cache_count_;
    return true;
  };
  for (size_t k = 0; k < n_prefer; ++k)
    for (size_t i = list.size(); i-- > 0;)
      if (reinterpret_cast<uintptr_t>(list[i].ptr) == prefer[k] && list[i].stream == stream)
        return take(i);
  for (size_t i = list.size(); i-- > 0;)
    if (list[i].stream == stream) return take(i);
  return false;
}

void* MemoryManager::raw_allocate(size_t cls) {
  const auto t0 = Clock::now();
  void* p = allocator_->allocate(cls);
  if (p != nullptr) {
    stats_->alloc_success_s += since(t0);
    ++stats_->alloc_success_n;
  } else {
    stats_->alloc_fail_s += since(t0);
    ++stats_->alloc_fail_n;
  }
  return p;
}

void MemoryManager::raw_release(void* ptr) {
  gpu::before_host_sync("cudaFree");  // synchronises the device
  const auto t0 = Clock::now();
  allocator_->release(ptr);
  stats_->dealloc_s += since(t0);
  ++stats_->dealloc_n;
}

void MemoryManager::release_cache_until(size_t target_total) {
  // Largest size classes first; within a class, the least recently freed first.
  std::vector<size_t> classes;
  for (const auto& kv : cache_)
    if (!kv.second.empty()) classes.push_back(kv.first);
  std::sort(classes.begin(), classes.end(), std::greater<size_t>());
  for (size_t cls : classes) {
    std::vector<CachedBlock>& list = cache_[cls];
    size_t n = 0;
    while (n < list.size() && live_bytes_ + cached_bytes_ > target_total) {
      raw_release(list[n].ptr);
      cached_bytes_ -= cls;
      --cache_count_;
      ++stats_->cache_release_n;
      ++n;
    }
    list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(n));
    if (live_bytes_ + cached_bytes_ <= target_total) break;
  }
}

void MemoryManager::release_cached() { release_cache_until(0); }

void MemoryManager::evict_all_unpinned() {
  for (;;) {
    std::vector<Evictable*> c = unpinned_candidates();
    if (c.empty()) return;
    const auto t0 = Clock::now();
    const size_t bytes = c.front()->device_bytes();
    c.front()->evict_device_copy();
    unregister_evictable(c.front());  // in case the owner did not
    stats_->evict_s += since(t0);
    ++stats_->evict_n;
    stats_->evict_bytes += static_cast<int64_t>(bytes);
  }
}

DeviceAllocation MemoryManager::finish(void* ptr, size_t bytes, size_t cls, AllocLabel&& what,
                                       cudaStream_t stream, bool zero) {
  uint32_t slot = 0;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Block& b = slots_[slot];
  b.ptr = ptr;
  b.block_bytes = cls;
  b.requested = bytes;
  b.stream = stream;
  b.what = std::move(what);
  ++live_count_;
  live_bytes_ += cls;
  DeviceAllocation a(this, ptr, bytes, slot);
  if (t_graph_hook != nullptr) t_graph_hook->allocated(ptr, bytes, b.what, zero);
  if (zero) {
    const auto t0 = Clock::now();
    allocator_->zero(ptr, bytes, stream);
    stats_->set0_s += since(t0);
    ++stats_->set0_n;
  }
  return a;
}

DeviceAllocation MemoryManager::allocate_preferring(size_t bytes, AllocLabel what,
                                                    cudaStream_t stream, const uintptr_t* prefer,
                                                    size_t n_prefer) {
  if (bytes == 0) return DeviceAllocation();
  const size_t cls = size_class(bytes);
  void* p = nullptr;
  if (take_cached(cls, stream, &p, prefer, n_prefer)) {
    ++stats_->alloc_reuse_n;
    return finish(p, bytes, cls, std::move(what), stream, /*zero=*/false);
  }
  return allocate(bytes, std::move(what), stream);
}

DeviceAllocation MemoryManager::allocate(size_t bytes, AllocLabel what, cudaStream_t stream,
                                         bool zero) {
  if (bytes == 0) return DeviceAllocation();
  const size_t cls = size_class(bytes);
  void* p = nullptr;
  // 1. cache
  if (take_cached(cls, stream, &p)) {
    ++stats_->alloc_reuse_n;
    return finish(p, bytes, cls, std::move(what), stream, zero);
  }
  // 2. fresh, within the budget
  bool device_refused = false;
  if (live_bytes_ + cached_bytes_ + cls <= budget_) {
    p = raw_allocate(cls);
    if (p != nullptr) return finish(p, bytes, cls, std::move(what), stream, zero);
    device_refused = true;
  }
  // 3. evict by policy while the live bytes leave no room
  while (!device_refused && live_bytes_ + cls > budget_) {
    const size_t needed = live_bytes_ + cls - budget_;
    Evictable* v = pick_victim(unpinned_candidates(), needed, policy_);
    if (v == nullptr) break;
    const bool by_size = policy_ == EvictionPolicy::kMinEvict && v->device_bytes() >= needed;
    const size_t vbytes = v->device_bytes();
    const auto t0 = Clock::now();
    v->evict_device_copy();
    unregister_evictable(v);
    const double dt = since(t0);
    stats_->evict_s += dt;
    ++stats_->evict_n;
    stats_->evict_bytes += static_cast<int64_t>(vbytes);
    if (by_size) {
      stats_->evict_size_s += dt;
      ++stats_->evict_size_n;
    }
    if (take_cached(cls, stream, &p)) {
      ++stats_->alloc_reuse_n;
      return finish(p, bytes, cls, std::move(what), stream, zero);
    }
  }
  // 4. release cached blocks until the request fits
  if (!device_refused && live_bytes_ + cls <= budget_) {
    release_cache_until(budget_ - cls);
    p = raw_allocate(cls);
    if (p != nullptr) return finish(p, bytes, cls, std::move(what), stream, zero);
    device_refused = true;
  }
  // 5. the device refused within the budget: free everything that can go, try once more
  if (device_refused) {
    evict_all_unpinned();
    release_cached();
    if (live_bytes_ + cls <= budget_) {
      p = raw_allocate(cls);
      if (p != nullptr) return finish(p, bytes, cls, std::move(what), stream, zero);
    }
  }
  // 6.
  DMLRT_FAIL(OutOfMemory, "GPU out of memory: cannot allocate "
                              << format_bytes(bytes) << " for " << what.str() << " (budget "
                              << format_bytes(budget_) << ", live " << format_bytes(live_bytes_)
                              << ", cached " << format_bytes(cached_bytes_)
                              << (device_refused ? ", the device refused the allocation" : "")
                              << ")\n"
                              << memory_table());
}

bool MemoryManager::in_live_block(const void* p) const {
  const auto a = reinterpret_cast<uintptr_t>(p);
  for (const Block& b : slots_) {
    const auto base = reinterpret_cast<uintptr_t>(b.ptr);
    if (b.ptr != nullptr && a >= base && a < base + b.block_bytes) return true;
  }
  return false;
}

void MemoryManager::give_back(void* ptr, uint32_t slot) {
  if (slot >= slots_.size() || slots_[slot].ptr != ptr) return;  // not ours (no throw: destructor)
  if (t_graph_hook != nullptr) t_graph_hook->released(ptr);
  Block& b = slots_[slot];
  const size_t cls = b.block_bytes;
  cudaStream_t const stream = b.stream;
  b.ptr = nullptr;
  b.what = AllocLabel();
  free_slots_.push_back(slot);
  --live_count_;
  live_bytes_ -= cls;
  if (eager_free_) {
    raw_release(ptr);
    return;
  }
  cache_[cls].push_back(CachedBlock{ptr, stream});
  cached_bytes_ += cls;
  ++cache_count_;
}

std::string MemoryManager::memory_table() const {
  std::ostringstream os;
  os << "GPU memory table (budget " << format_bytes(budget_) << ", live "
     << format_bytes(live_bytes_) << " in " << live_count_ << " allocation(s), cached "
     << format_bytes(cached_bytes_) << " in " << cache_count_ << " block(s), policy "
     << eviction_policy_name(policy_) << "):\n";
  os << "  matrices (" << evictables_.size() << "):\n";
  for (const Evictable* e : evictables_)
    os << "    " << e->describe() << "  size=" << format_bytes(e->device_bytes())
       << "  pinned=" << (e->device_pinned() ? "yes" : "no")
       << "  dirty=" << (e->device_dirty() ? "yes" : "no") << "  last_use=" << e->last_use()
       << "\n";
  os << "  allocations (" << live_count_ << "):\n";
  std::vector<const Block*> rows;
  rows.reserve(live_count_);
  for (const Block& b : slots_)
    if (b.ptr != nullptr) rows.push_back(&b);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Block* a, const Block* b) { return a->block_bytes > b->block_bytes; });
  for (const Block* r : rows)
    os << "    " << r->what.str() << "  size=" << format_bytes(r->requested)
       << "  block=" << format_bytes(r->block_bytes) << "\n";
  return os.str();
}

}  // namespace dmlrt::mem
