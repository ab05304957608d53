// Helpers of the kernel-family device tests: device blocks from a test memory manager, host <->
// device copies in either precision, inputs with special values, the shape list every family is
// tested on, and a label naming op, shape and precision for failure messages.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/compare.h"
#include "gpu_context/cuda_check.h"
#include "kernels/matrix_block.h"
#include "memory/cuda_allocator.h"
#include "memory/memory_manager.h"

namespace dmlrt::test::gpu {

using kernels::MatrixBlock;

// Empty, 1x1, vectors, odd sizes around the 32/256 thread-block sizes, and one large shape.
inline const std::vector<std::pair<int64_t, int64_t>>& kernel_shapes() {
  static const std::vector<std::pair<int64_t, int64_t>> shapes = {
      {0, 0}, {0, 5}, {5, 0}, {1, 1}, {1, 7}, {7, 1}, {33, 65}, {257, 3}, {1000, 1003}};
  return shapes;
}

template <typename T>
const char* precision_name() {
  return sizeof(T) == 8 ? "FP64" : "FP32";
}
// DESIGN.md §6: FP64 1e-9 absolute + relative; FP32 1e-4.
template <typename T>
double tol() {
  return sizeof(T) == 8 ? 1e-9 : 1e-4;
}

inline std::string label(const std::string& op, int64_t rows, int64_t cols, const char* prec) {
  std::ostringstream os;
  os << op << " " << rows << "x" << cols << " " << prec;
  return os.str();
}

// Row-major values of any block.
inline std::vector<double> values_of(const MatrixBlock& m) {
  return m.is_sparse() ? m.to_dense().dense_values() : m.dense_values();
}

// The block with every value rounded through T, so a CPU reference sees the inputs the device
// holds in single precision.
template <typename T>
MatrixBlock rounded(const MatrixBlock& m) {
  std::vector<double> v = values_of(m);
  for (double& x : v) x = static_cast<double>(static_cast<T>(x));
  return MatrixBlock::dense(m.rows(), m.cols(), std::move(v));
}

// The kernel tests' device memory: one process-wide manager over the real allocator, so that only
// memory/ calls cudaMalloc (STYLE.md 7). eager_free hands every block back with cudaFree, which
// waits for the device: the tests launch on streams the manager is not told of (the legacy one, a
// context's), and a cached block could be handed out again while a kernel still writes it; nor
// does a cache shrink the budgets of the tests' GPU sessions. Never destroyed: the CUDA runtime may
// be gone by the time static destructors run.
inline mem::MemoryManager& test_memory() {
  static mem::MemoryManager* const mm = [] {
    size_t free_bytes = 0, total_bytes = 0;
    mem::device_memory_info(&free_bytes, &total_bytes);
    return new mem::MemoryManager(std::make_unique<mem::CudaAllocator>(), total_bytes,
                                  mem::EvictionPolicy::kLru, nullptr, /*eager_free=*/true);
  }();
  return *mm;
}

// A move-only device block of `bytes` from test_memory(), with synchronous copies. Zero bytes hold
// no memory (data() == nullptr).
class DeviceBlock {
 public:
  DeviceBlock() = default;
  explicit DeviceBlock(size_t bytes)
      : alloc_(test_memory().allocate(bytes, "kernel test block", nullptr)) {}

  void* data() const { return alloc_.data(); }
  size_t bytes() const { return alloc_.bytes(); }
  template <typename T>
  T* as() const {
    return alloc_.as<T>();
  }

  void copy_from_host(const void* src, size_t bytes) {
    DMLRT_CHECK_CTX(cudaMemcpy(data(), src, bytes, cudaMemcpyHostToDevice), bytes << " bytes");
  }
  void copy_to_host(void* dst, size_t bytes) const {
    DMLRT_CHECK_CTX(cudaMemcpy(dst, data(), bytes, cudaMemcpyDeviceToHost), bytes << " bytes");
  }

 private:
  mem::DeviceAllocation alloc_;
};

template <typename T>
DeviceBlock to_device(const std::vector<double>& values) {
  std::vector<T> t(values.begin(), values.end());
  DeviceBlock buf(t.size() * sizeof(T));
  if (!t.empty()) buf.copy_from_host(t.data(), t.size() * sizeof(T));
  return buf;
}
template <typename T>
DeviceBlock to_device(const MatrixBlock& m) {
  return to_device<T>(values_of(m));
}

// An uninitialised-looking device buffer of n elements (filled with a NaN pattern so unwritten
// cells show up).
template <typename T>
DeviceBlock device_out(int64_t n) {
  return to_device<T>(std::vector<double>(static_cast<size_t>(n), -12345.678));
}

// The typed device pointer (a free function, so test templates need no `.template as<T>()`).
template <typename T>
T* ptr(const DeviceBlock& b) {
  return b.as<T>();
}

inline void sync_device() { DMLRT_CHECK(cudaDeviceSynchronize()); }

template <typename T>
std::vector<double> from_device(const DeviceBlock& buf, int64_t n) {
  sync_device();
  std::vector<T> t(static_cast<size_t>(n));
  if (n > 0) buf.copy_to_host(t.data(), t.size() * sizeof(T));
  return std::vector<double>(t.begin(), t.end());
}
template <typename T>
MatrixBlock block_from_device(const DeviceBlock& buf, int64_t rows, int64_t cols) {
  return MatrixBlock::dense(rows, cols, from_device<T>(buf, rows * cols));
}

// Uniform values in [lo, hi) (seeded), with a few special values (NaN, +-Inf, 0, -0) written over
// cells when `specials`; `integers` rounds every value.
inline MatrixBlock random_dense(int64_t rows, int64_t cols, uint64_t seed, double lo, double hi,
                                bool specials = false, bool integers = false) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> val(lo, hi);
  std::vector<double> v(static_cast<size_t>(rows * cols));
  for (double& x : v) x = integers ? std::round(val(gen)) : val(gen);
  if (specials && !v.empty()) {
    const double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity(), 0.0, -0.0};
    std::uniform_int_distribution<size_t> pos(0, v.size() - 1);
    const size_t count = v.size() < 20 ? 1 : v.size() / 50;
    for (size_t k = 0; k < count; ++k) v[pos(gen)] = kSpecial[k % 5];
  }
  return MatrixBlock::dense(rows, cols, std::move(v));
}

// n values stored `offset` elements into a device buffer between guard cells: a kernel sees a
// pointer that is only element-aligned when offset is not a multiple of 16 / sizeof(T) (the
// vectorised kernels' head/tail and fallback paths), and a write outside the n cells shows up.
template <typename T>
struct OffsetBuffer {
  static constexpr int64_t kGuard = 5;
  static constexpr double kGuardValue = -777.25;
  DeviceBlock buf;
  int64_t offset = 0;
  int64_t n = 0;
  T* ptr() const { return buf.as<T>() + offset; }
};

template <typename T>
OffsetBuffer<T> to_device_at(const std::vector<double>& values, int64_t offset) {
  std::vector<double> all(static_cast<size_t>(offset), OffsetBuffer<T>::kGuardValue);
  all.insert(all.end(), values.begin(), values.end());
  all.insert(all.end(), OffsetBuffer<T>::kGuard, OffsetBuffer<T>::kGuardValue);
  OffsetBuffer<T> b;
  b.buf = to_device<T>(all);
  b.offset = offset;
  b.n = static_cast<int64_t>(values.size());
  return b;
}

// The n cells of `b`; *guards_ok is false when a cell before or after them changed.
template <typename T>
std::vector<double> from_device_at(const OffsetBuffer<T>& b, bool* guards_ok) {
  const std::vector<double> all = from_device<T>(b.buf, b.offset + b.n + OffsetBuffer<T>::kGuard);
  *guards_ok = true;
  for (size_t i = 0; i < all.size(); ++i) {
    const bool inside =
        static_cast<int64_t>(i) >= b.offset && static_cast<int64_t>(i) < b.offset + b.n;
    if (!inside && all[i] != OffsetBuffer<T>::kGuardValue) *guards_ok = false;
  }
  return std::vector<double>(all.begin() + b.offset, all.begin() + b.offset + b.n);
}

}  // namespace dmlrt::test::gpu

// Compares a device result with a CPU reference, naming the case on failure; CHECK, so one run
// reports every failing case.
#define DMLRT_REQUIRE_KERNEL_CLOSE(what, got, ref, tolerance)                        \
  do {                                                                               \
    const auto dmlrt_kcmp_ = ::dmlrt::test::compare(got, ref, tolerance, tolerance); \
    INFO((what) << ": " << dmlrt_kcmp_.report);                                      \
    CHECK(dmlrt_kcmp_.ok);                                                           \
  } while (0)
