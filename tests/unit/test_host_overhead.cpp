// The host-side shortcuts that keep per-instruction overhead low (issue #6) behave as the code they
// replaced: lazily formatted allocation labels, the slot table and per-class block cache of the
// memory manager, evictable bookkeeping, the hashed symbol table, and binary instructions that
// parse their literal operands once. Host only: the memory manager runs on a fake allocator.
#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/fake_allocator.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"
#include "instructions/opcode_table.h"
#include "memory/device_matrix.h"
#include "memory/gpu_stats.h"
#include "memory/memory_manager.h"

namespace {

using dmlrt::OutOfMemory;
using dmlrt::inst::ScalarValue;
using dmlrt::inst::ValueType;
using dmlrt::kernels::MatrixBlock;
using dmlrt::mem::AllocLabel;
using dmlrt::mem::DeviceAllocation;
using dmlrt::mem::DeviceAllocator;
using dmlrt::mem::DeviceMatrix;
using dmlrt::mem::DType;
using dmlrt::mem::Evictable;
using dmlrt::mem::EvictionPolicy;
using dmlrt::mem::GpuStats;
using dmlrt::mem::IndexWidth;
using dmlrt::mem::MemoryManager;
using dmlrt::test::TestContext;

constexpr size_t kKiB = 1024;
const cudaStream_t kStream = reinterpret_cast<cudaStream_t>(0x10);

using dmlrt::test::FakeAllocator;

struct Fixture {
  std::map<void*, size_t> device;
  GpuStats stats;
  std::unique_ptr<MemoryManager> mm;
  explicit Fixture(size_t budget, size_t capacity = size_t{1} << 30) {
    mm = std::make_unique<MemoryManager>(std::make_unique<FakeAllocator>(capacity, &device), budget,
                                         EvictionPolicy::kLru, &stats);
  }
};

// An evictable that only has a name (for the memory table's order).
class NamedEvictable final : public Evictable {
 public:
  explicit NamedEvictable(std::string name) : name_(std::move(name)) {}
  size_t device_bytes() const override { return 0; }
  bool device_pinned() const override { return false; }
  bool device_dirty() const override { return false; }
  uint64_t last_use() const override { return 0; }
  std::string describe() const override { return "matrix " + name_; }
  void evict_device_copy() override {}

 private:
  std::string name_;
};

}  // namespace

TEST_CASE("allocation labels read as the strings they replace", "[memory][overhead]") {
  CHECK(AllocLabel().str().empty());
  CHECK(AllocLabel("cuBLAS workspace").str() == "cuBLAS workspace");
  const std::string opcode = "conv2d_bias_add";
  CHECK(AllocLabel(std::string("matrix ") + "X").str() == "matrix X");
  CHECK(AllocLabel("gpu_", opcode, " output").str() == "gpu_conv2d_bias_add output");
  CHECK(AllocLabel("gpu_", opcode, " output").with_note(" (csr values)").str() ==
        "gpu_conv2d_bias_add output (csr values)");
  CHECK(AllocLabel("x").with_note(" (a)").with_note(" (b)").str() == "x (a) (b)");
  // A C string that is not a literal is copied: changing the buffer later leaves the label.
  char buf[16];
  std::strcpy(buf, "temp");
  const char* p = buf;
  const AllocLabel from_pointer(p);
  std::strcpy(buf, "changed");
  CHECK(from_pointer.str() == "temp");
}

TEST_CASE("lazy labels appear in the memory table and the out-of-memory message",
          "[memory][overhead]") {
  Fixture f(8 * kKiB);
  const std::string opcode = "ba+*";
  DeviceAllocation a = f.mm->allocate(kKiB, AllocLabel("gpu_", opcode, " output"), kStream);
  DeviceMatrix c = DeviceMatrix::csr(*f.mm, 4, 4, 3, DType::kFloat64, IndexWidth::k32, kStream,
                                     AllocLabel("gpu_", opcode, " output"));
  DeviceAllocation big = f.mm->allocate(4 * kKiB, "cusparseSpMM buffer", kStream);
  const std::string table = f.mm->memory_table();
  CHECK_THAT(table, Catch::Contains("gpu_ba+* output  size=1.0 KiB"));
  CHECK_THAT(table, Catch::Contains("gpu_ba+* output (csr values)  size=24 B"));
  CHECK_THAT(table, Catch::Contains("gpu_ba+* output (csr row offsets)  size=20 B"));
  CHECK_THAT(table, Catch::Contains("gpu_ba+* output (csr column indices)  size=12 B"));
  // Largest block first.
  CHECK(table.find("cusparseSpMM buffer") < table.find("gpu_ba+* output  size"));
  CHECK_THAT(table, Catch::Contains("in 5 allocation(s)"));
  try {
    (void)f.mm->allocate(6 * kKiB, AllocLabel("gpu_", opcode, " output"), kStream);
    FAIL("expected OutOfMemory");
  } catch (const OutOfMemory& e) {
    CHECK_THAT(e.what(), Catch::Contains("cannot allocate 6.0 KiB for gpu_ba+* output ("));
    CHECK_THAT(e.what(), Catch::Contains("cusparseSpMM buffer  size=4.0 KiB"));
  }
  // A bad shape names the label too.
  CHECK_THROWS_WITH(DeviceMatrix::dense(*f.mm, -1, 2, DType::kFloat64, kStream,
                                        AllocLabel("gpu_", opcode, " output")),
                    Catch::Contains("device matrix for gpu_ba+* output: bad shape -1x2"));
}

TEST_CASE("live slots are reused and the cache serves the most recently freed block",
          "[memory][overhead]") {
  Fixture f(64 * kKiB);
  std::vector<DeviceAllocation> v;
  for (int i = 0; i < 4; ++i) v.push_back(f.mm->allocate(1000, "a", kStream));
  CHECK(f.mm->live_count() == 4);
  void* second = v[1].data();
  void* third = v[2].data();
  v[1].reset();
  v[2].reset();  // freed last
  CHECK(f.mm->live_count() == 2);
  CHECK(f.mm->cached_bytes() == 2048);
  DeviceAllocation x = f.mm->allocate(900, "b", kStream);
  CHECK(x.data() == third);
  DeviceAllocation y = f.mm->allocate(900, "c", kStream);
  CHECK(y.data() == second);
  CHECK(f.mm->live_count() == 4);
  CHECK(f.stats.alloc_reuse_n == 2);
  // Moved allocations still return their block exactly once.
  DeviceAllocation moved = std::move(x);
  CHECK_FALSE(x);
  moved.reset();
  x.reset();
  CHECK(f.mm->live_count() == 3);
  CHECK(f.mm->cached_bytes() == 1024);
  // Other size classes are not taken.
  DeviceAllocation z = f.mm->allocate(4000, "d", kStream);
  CHECK(z.data() != third);
  CHECK(f.mm->cached_bytes() == 1024);
  const std::string table = f.mm->memory_table();
  CHECK_THAT(table, Catch::Contains("in 4 allocation(s), cached 1.0 KiB in 1 block(s)"));
  CHECK(table.find("    b  size") == std::string::npos);  // freed: gone from the table
}

TEST_CASE("cached blocks are released largest class first, only as far as needed",
          "[memory][overhead]") {
  Fixture f(16 * kKiB);
  {
    DeviceAllocation a = f.mm->allocate(2 * kKiB, "a", kStream);
    DeviceAllocation b = f.mm->allocate(6 * kKiB, "b", kStream);
    DeviceAllocation c = f.mm->allocate(3 * kKiB, "c", kStream);
    DeviceAllocation d = f.mm->allocate(kKiB, "d", kStream);
  }
  CHECK(f.mm->cached_bytes() == 12 * kKiB);
  // 10 KiB fits once the 6 KiB block is gone; the others stay cached.
  DeviceAllocation e = f.mm->allocate(10 * kKiB, "e", kStream);
  CHECK(e);
  CHECK(f.stats.cache_release_n == 1);
  CHECK(f.mm->cached_bytes() == 6 * kKiB);
  CHECK(f.device.size() == 4);
  f.mm->release_cached();
  CHECK(f.mm->cached_bytes() == 0);
  CHECK(f.device.size() == 1);
  CHECK_THAT(f.mm->memory_table(), Catch::Contains("cached 0 B in 0 block(s)"));
}

TEST_CASE("unregistering an evictable keeps the others in registration order",
          "[memory][overhead]") {
  Fixture f(8 * kKiB);
  NamedEvictable a("A"), b("B"), c("C");
  for (Evictable* e :
       {static_cast<Evictable*>(&a), static_cast<Evictable*>(&b), static_cast<Evictable*>(&c)})
    f.mm->register_evictable(e);
  f.mm->register_evictable(&b);  // twice: still one entry
  f.mm->unregister_evictable(&b);
  f.mm->unregister_evictable(&b);  // not registered: no-op
  const std::string table = f.mm->memory_table();
  CHECK_THAT(table, Catch::Contains("matrices (2):"));
  CHECK(table.find("matrix B") == std::string::npos);
  CHECK(table.find("matrix A") < table.find("matrix C"));
  f.mm->unregister_evictable(&a);
  f.mm->unregister_evictable(&c);
  CHECK_THAT(f.mm->memory_table(), Catch::Contains("matrices (0):"));
}

TEST_CASE("the symbol table lists its names sorted", "[interpreter][overhead]") {
  TestContext t;
  for (const char* n : {"z", "_mVar10", "B", "a", "_mVar2"}) t.set_scalar(n, ScalarValue::int64(1));
  CHECK(t.ec.names() == std::vector<std::string>{"B", "_mVar10", "_mVar2", "a", "z"});
  t.set_matrix("M", MatrixBlock::dense(1, 1, 2.0));
  CHECK(t.ec.matrix_object_ref("M")->meta().rows == 1);
  CHECK_THROWS_WITH(t.ec.matrix_object_ref("z"),
                    Catch::Contains("variable 'z' is a scalar where a matrix is expected"));
  CHECK_THROWS_WITH(t.ec.matrix_object_ref("nope"),
                    Catch::Contains("variable 'nope' is not defined"));
}

TEST_CASE("binary instructions parse literal operands once and keep run-time errors",
          "[binary][overhead]") {
  TestContext t;
  t.set_matrix("A", MatrixBlock::dense(1, 1, 0.5));
  t.ec.set("i", ScalarValue::int64(3));
  auto inst = dmlrt::inst::make_instruction(
      dmlrt::inst::InstructionText::parse("CP°+°A·MATRIX·FP64°1·SCALAR·FP64·true°A·MATRIX·FP64"));
  for (int k = 0; k < 5; ++k) inst->execute(t.ec);
  CHECK(t.matrix("A").get(0, 0) == 5.5);
  // Literal on the left, INT64.
  t.run("CP°-°10·SCALAR·INT64·true°A·MATRIX·FP64°B·MATRIX·FP64");
  CHECK(t.matrix("B").get(0, 0) == 4.5);
  // Scalar-scalar keeps SystemDS's value types with cached literals.
  auto ss = dmlrt::inst::make_instruction(dmlrt::inst::InstructionText::parse(
      "CP°*°i·SCALAR·INT64°2·SCALAR·INT64·true°j·SCALAR·INT64"));
  ss->execute(t.ec);
  CHECK(t.scalar("j").type() == ValueType::kINT64);
  CHECK(t.scalar("j").to_int() == 6);
  t.run("CP°+°x·SCALAR·STRING·true°2·SCALAR·INT64·true°s·SCALAR·STRING");
  CHECK(t.scalar("s").to_string() == "x2");
  // A literal that does not parse builds, and fails when run, as before.
  auto bad = dmlrt::inst::make_instruction(dmlrt::inst::InstructionText::parse(
      "CP°+°A·MATRIX·FP64°1.2.3·SCALAR·FP64·true°C·MATRIX·FP64"));
  CHECK_THROWS_WITH(bad->execute(t.ec), Catch::Contains("'1.2.3' is not an FP64 literal"));
  auto str = dmlrt::inst::make_instruction(dmlrt::inst::InstructionText::parse(
      "CP°*°A·MATRIX·FP64°abc·SCALAR·STRING·true°C·MATRIX·FP64"));
  CHECK_THROWS_WITH(str->execute(t.ec),
                    Catch::Contains("*: string scalar 'abc' cannot be combined with a matrix"));
}
