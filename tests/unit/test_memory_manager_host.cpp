// Host-only tests of the GPU memory manager's ladder (reuse, budget, eviction by policy, cache
// release, out-of-memory table), driven by a fake device allocator and fake evictable matrices,
// plus the -stats GPU block labels. No device needed: these run in every build.
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>

#include "common/fake_allocator.h"
#include "gpu_context/error.h"
#include "memory/gpu_stats.h"
#include "memory/memory_manager.h"

namespace {

using dmlrt::OutOfMemory;
using dmlrt::mem::DeviceAllocation;
using dmlrt::mem::DeviceAllocator;
using dmlrt::mem::Evictable;
using dmlrt::mem::EvictionPolicy;
using dmlrt::mem::GpuStats;
using dmlrt::mem::MemoryManager;

constexpr size_t kKiB = 1024;
const cudaStream_t kStreamA = reinterpret_cast<cudaStream_t>(0x10);
const cudaStream_t kStreamB = reinterpret_cast<cudaStream_t>(0x20);

using dmlrt::test::FakeAllocator;

// A matrix-like owner of one allocation.
class FakeMatrix final : public Evictable {
 public:
  FakeMatrix(MemoryManager& mm, std::string name, size_t bytes, uint64_t last, bool dirty)
      : mm_(mm), name_(std::move(name)), last_(last), dirty_(dirty) {
    alloc_ = mm.allocate(bytes, name_, kStreamA);
    mm.register_evictable(this);
  }
  ~FakeMatrix() override { mm_.unregister_evictable(this); }
  size_t device_bytes() const override { return alloc_.bytes(); }
  bool device_pinned() const override { return pinned; }
  bool device_dirty() const override { return dirty_ && alloc_; }
  uint64_t last_use() const override { return last_; }
  std::string describe() const override { return "matrix " + name_; }
  void evict_device_copy() override {
    if (dirty_) written_back = true;  // the owner copies dirty data to the host first
    dirty_ = false;
    alloc_.reset();
    mm_.unregister_evictable(this);
  }
  bool on_device() const { return static_cast<bool>(alloc_); }
  bool pinned = false;
  bool written_back = false;

 private:
  MemoryManager& mm_;
  std::string name_;
  uint64_t last_;
  bool dirty_;
  DeviceAllocation alloc_;
};

struct Fixture {
  std::map<void*, size_t> device;
  GpuStats stats;
  std::unique_ptr<MemoryManager> mm;
  Fixture(size_t budget, EvictionPolicy policy = EvictionPolicy::kLru, size_t capacity = 1 << 30,
          bool eager = false) {
    mm = std::make_unique<MemoryManager>(std::make_unique<FakeAllocator>(capacity, &device), budget,
                                         policy, &stats, eager);
  }
};

}  // namespace

TEST_CASE("size classes round up with bounded waste", "[memory]") {
  CHECK(MemoryManager::size_class(0) == 0);
  CHECK(MemoryManager::size_class(1) == 512);
  CHECK(MemoryManager::size_class(512) == 512);
  CHECK(MemoryManager::size_class(513) == 1024);
  CHECK(MemoryManager::size_class(1 << 20) == (1 << 20));
  for (size_t b : {size_t{1048577}, size_t{3} << 20, size_t{5000000}, size_t{1} << 33}) {
    const size_t c = MemoryManager::size_class(b);
    CHECK(c >= b);
    CHECK(static_cast<double>(c - b) <= 0.25 * static_cast<double>(b));
  }
}

TEST_CASE("freed blocks are reused for the same size class on the same stream", "[memory]") {
  Fixture f(64 * kKiB);
  void* p = nullptr;
  {
    DeviceAllocation a = f.mm->allocate(1000, "tmp", kStreamA);
    p = a.data();
    CHECK(f.mm->live_bytes() == 1024);
  }
  CHECK(f.mm->live_bytes() == 0);
  CHECK(f.mm->cached_bytes() == 1024);
  DeviceAllocation b = f.mm->allocate(900, "tmp2", kStreamA);
  CHECK(b.data() == p);
  CHECK(f.stats.alloc_reuse_n == 1);
  CHECK(f.stats.alloc_success_n == 1);
  // Another stream does not take a block of stream A (stream-ordered reuse).
  b.reset();
  DeviceAllocation c = f.mm->allocate(900, "tmp3", kStreamB);
  CHECK(c.data() != p);
  CHECK(f.stats.alloc_reuse_n == 1);
}

TEST_CASE("a preferred free block is taken before the most recently freed", "[memory]") {
  // What a CUDA graph replay asks for: the block its allocation got last time, when it is free.
  Fixture f(64 * kKiB);
  void* first = nullptr;
  void* second = nullptr;
  {
    DeviceAllocation a = f.mm->allocate(1000, "a", kStreamA);
    DeviceAllocation b = f.mm->allocate(1000, "b", kStreamA);
    first = a.data();
    second = b.data();
  }  // b freed first, then a: a is the most recently freed
  const uintptr_t prefer[2] = {0x1234, reinterpret_cast<uintptr_t>(second)};
  DeviceAllocation c = f.mm->allocate_preferring(900, "c", kStreamA, prefer, 2);
  CHECK(c.data() == second);
  CHECK(f.stats.alloc_reuse_n == 1);
  // None of the preferred blocks is free: the usual ladder (here the other cached block).
  DeviceAllocation d = f.mm->allocate_preferring(900, "d", kStreamA, prefer, 2);
  CHECK(d.data() == first);
  // A preferred block freed on another stream is not taken; a fresh block is.
  d.reset();
  const uintptr_t on_a[1] = {reinterpret_cast<uintptr_t>(first)};
  DeviceAllocation e = f.mm->allocate_preferring(900, "e", kStreamB, on_a, 1);
  CHECK(e.data() != first);
  CHECK(e.data() != second);
  CHECK(f.mm->live_bytes() == 2 * 1024);
}

TEST_CASE("zero-byte allocations hold no memory", "[memory]") {
  Fixture f(kKiB);
  DeviceAllocation a = f.mm->allocate(0, "empty", kStreamA);
  CHECK(a.data() == nullptr);
  CHECK(f.mm->live_count() == 0);
}

TEST_CASE("eager free releases blocks at once", "[memory]") {
  Fixture f(64 * kKiB, EvictionPolicy::kLru, 1 << 30, /*eager=*/true);
  { DeviceAllocation a = f.mm->allocate(1000, "tmp", kStreamA); }
  CHECK(f.mm->cached_bytes() == 0);
  CHECK(f.device.empty());
  CHECK(f.stats.dealloc_n == 1);
}

TEST_CASE("LRU eviction writes dirty matrices back and frees the least recently used", "[memory]") {
  Fixture f(10 * kKiB);
  FakeMatrix m1(*f.mm, "m1", 3 * kKiB, 1, /*dirty=*/true);
  FakeMatrix m2(*f.mm, "m2", 3 * kKiB, 2, true);
  FakeMatrix m3(*f.mm, "m3", 3 * kKiB, 3, false);
  DeviceAllocation a = f.mm->allocate(3 * kKiB, "new", kStreamA);
  CHECK(a);
  CHECK_FALSE(m1.on_device());
  CHECK(m1.written_back);  // nothing lost
  CHECK(m2.on_device());
  CHECK(m3.on_device());
  CHECK(f.stats.evict_n == 1);
  CHECK(f.stats.alloc_reuse_n == 1);  // the evicted block had the right size class
  CHECK(f.mm->live_bytes() <= f.mm->budget());
}

TEST_CASE("MIN_EVICT evicts the smallest single matrix that frees enough", "[memory]") {
  Fixture f(8 * kKiB, EvictionPolicy::kMinEvict);
  FakeMatrix small(*f.mm, "small", 1 * kKiB, 1, true);
  FakeMatrix big(*f.mm, "big", 4 * kKiB, 3, true);
  FakeMatrix mid(*f.mm, "mid", 2 * kKiB, 2, true);
  DeviceAllocation a = f.mm->allocate(3 * kKiB, "new", kStreamA);  // needs 2 KiB freed
  CHECK(a);
  CHECK_FALSE(mid.on_device());
  CHECK(mid.written_back);
  CHECK(small.on_device());
  CHECK(big.on_device());
  CHECK(f.stats.evict_size_n == 1);

  SECTION("LRU on the same state evicts the oldest first, until enough is free") {
    Fixture g(8 * kKiB, EvictionPolicy::kLru);
    FakeMatrix s2(*g.mm, "small", 1 * kKiB, 1, true);
    FakeMatrix b2(*g.mm, "big", 4 * kKiB, 3, true);
    FakeMatrix m2(*g.mm, "mid", 2 * kKiB, 2, true);
    DeviceAllocation b = g.mm->allocate(3 * kKiB, "new", kStreamA);
    CHECK(b);
    CHECK_FALSE(s2.on_device());  // oldest, too small alone
    CHECK_FALSE(m2.on_device());  // next oldest
    CHECK(b2.on_device());
    CHECK(g.stats.evict_n == 2);
  }
}

TEST_CASE("MIN_EVICT falls back to LRU when no single matrix frees enough", "[memory]") {
  std::vector<Evictable*> none;
  CHECK(dmlrt::mem::pick_victim(none, 10, EvictionPolicy::kMinEvict) == nullptr);
  Fixture f(64 * kKiB);
  FakeMatrix a(*f.mm, "a", 2 * kKiB, 5, false);
  FakeMatrix b(*f.mm, "b", 1 * kKiB, 4, false);
  std::vector<Evictable*> c{&a, &b};
  CHECK(dmlrt::mem::pick_victim(c, 8 * kKiB, EvictionPolicy::kMinEvict) == &b);  // LRU
  CHECK(dmlrt::mem::pick_victim(c, 2 * kKiB, EvictionPolicy::kMinEvict) == &a);
  CHECK(dmlrt::mem::pick_victim(c, 2 * kKiB, EvictionPolicy::kLru) == &b);
  b.pinned = true;
  CHECK(dmlrt::mem::pick_victim(c, 512, EvictionPolicy::kLru) == &a);
}

TEST_CASE("cached blocks are released when they stand in the way", "[memory]") {
  Fixture f(8 * kKiB);
  { DeviceAllocation a = f.mm->allocate(6 * kKiB, "old", kStreamA); }
  CHECK(f.mm->cached_bytes() == 6 * kKiB);
  DeviceAllocation b = f.mm->allocate(4 * kKiB, "new", kStreamA);
  CHECK(b);
  CHECK(f.mm->cached_bytes() == 0);
  CHECK(f.stats.cache_release_n == 1);
  CHECK(f.device.size() == 1);
}

TEST_CASE("pinned matrices are never evicted; out of memory prints the memory table", "[memory]") {
  Fixture f(8 * kKiB);
  FakeMatrix m(*f.mm, "_mVar7", 6 * kKiB, 1, true);
  m.pinned = true;
  DeviceAllocation scratch = f.mm->allocate(kKiB, "cusparseSpMM buffer", kStreamA);
  REQUIRE_THROWS_AS(f.mm->allocate(4 * kKiB, "gpu_ba+* output", kStreamA), OutOfMemory);
  try {
    (void)f.mm->allocate(4 * kKiB, "gpu_ba+* output", kStreamA);
  } catch (const OutOfMemory& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg,
               Catch::Contains("GPU out of memory: cannot allocate 4.0 KiB for gpu_ba+* output"));
    CHECK_THAT(msg, Catch::Contains("budget 8.0 KiB"));
    CHECK_THAT(msg, Catch::Contains("matrix _mVar7  size=6.0 KiB  pinned=yes  dirty=yes"));
    CHECK_THAT(msg, Catch::Contains("cusparseSpMM buffer  size=1.0 KiB"));
  }
  CHECK(m.on_device());
  CHECK_FALSE(m.written_back);
}

TEST_CASE("a device that refuses within the budget triggers evict-all and a retry", "[memory]") {
  // Budget 16 KiB but the "device" holds only 8 KiB (other processes, fragmentation).
  Fixture f(16 * kKiB, EvictionPolicy::kLru, 8 * kKiB);
  FakeMatrix m(*f.mm, "m", 6 * kKiB, 1, true);
  DeviceAllocation a = f.mm->allocate(4 * kKiB, "new", kStreamA);
  CHECK(a);
  CHECK_FALSE(m.on_device());
  CHECK(m.written_back);
  CHECK(f.stats.alloc_fail_n == 1);
}

TEST_CASE("the -stats GPU block uses SystemDS's labels", "[memory][stats]") {
  GpuStats s;
  s.executed_instructions = 7;
  s.alloc_success_n = 3;
  s.alloc_reuse_n = 2;
  const std::string out = dmlrt::mem::format_gpu_stats(s);
  CHECK_THAT(out, Catch::Contains("CUDA/CuLibraries init time:\t0.000/0.000 sec.\n"));
  CHECK_THAT(out, Catch::Contains("Number of executed GPU inst:\t7.\n"));
  CHECK_THAT(out, Catch::Contains(
                      "GPU mem alloc time  (alloc(success/fail) / dealloc / set0):\t0.000(0.000/"
                      "0.000) / 0.000 / 0.000 sec.\n"));
  CHECK_THAT(out, Catch::Contains(
                      "GPU mem alloc count (alloc(success/fail/reuse) / dealloc / set0):\t5(3/0/2) "
                      "/ 0 / 0.\n"));
  CHECK_THAT(out, Catch::Contains(
                      "GPU mem tx time  (toDev(d2f/s2d) / fromDev(f2d/s2h) / evict(d2s/size)):\t"));
  CHECK_THAT(out, Catch::Contains(
                      "GPU mem tx count (toDev(d2f/s2d) / fromDev(f2d/s2h) / evict(d2s/size)):\t"
                      "0(0/0) / 0(0/0) / 0(0/0).\n"));
  CHECK_THAT(out, Catch::Contains("GPU conversion time  (sparseConv / sp2dense / dense2sp):\t"));
  CHECK_THAT(out, Catch::Contains(
                      "GPU conversion count (sparseConv / sp2dense / dense2sp):\t0 / 0 / 0.\n"));
}

TEST_CASE("the -stats GPU block says what autotuning cost and what the tuning cache saved",
          "[memory][stats][tuning]") {
  GpuStats s;
  s.tune_conv = {0.8125, 12, 3};
  s.tune_gemm = {0.0625, 4, 9};
  CHECK_THAT(dmlrt::mem::format_gpu_stats(s),
             Catch::Contains("GPU autotuning time (conv find / gemm plans):\t0.812 / 0.062 sec, "
                             "shapes timed 12 / 4, from the tuning cache 3 / 9.\n"));
}

TEST_CASE("the -stats GPU block lists the transfers by instruction, most bytes first",
          "[memory][stats]") {
  GpuStats s;
  CHECK_THAT(dmlrt::mem::format_gpu_stats(s),
             !Catch::Contains("GPU mem tx by instruction"));  // nothing moved, no lines
  s.by_op["contains"] = {0, 0, 800000000, 1, 800000000};
  s.by_op["ba+*"] = {4000, 2, 0, 0, 0};
  s.by_op[""] = {16, 1, 8, 1, 8};
  const std::string out = dmlrt::mem::format_gpu_stats(s, /*top_ops=*/2);
  CHECK_THAT(out, Catch::Contains("GPU mem tx by instruction (toDev bytes/count / fromDev "
                                  "bytes/count / largest fromDev):\n"
                                  "  contains:\t0/0 / 800000000/1 / 800000000.\n"
                                  "  ba+*:\t4000/2 / 0/0 / 0.\n"));
  CHECK_THAT(out, !Catch::Contains("outside instructions"));  // cut by top_ops
  CHECK_THAT(dmlrt::mem::format_gpu_stats(s),
             Catch::Contains("  (outside instructions):\t16/1 / 8/1 / 8.\n"));
}
