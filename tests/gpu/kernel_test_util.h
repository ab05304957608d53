// Helpers of the kernel-family device tests: host <-> device copies through mem::DeviceBuffer in
// either precision, inputs with special values, the shape list every family is tested on, and a
// label naming op, shape and precision for failure messages.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/compare.h"
#include "gpu_context/cuda_check.h"
#include "kernels/matrix_block.h"
#include "memory/device_buffer.h"

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

template <typename T>
mem::DeviceBuffer to_device(const std::vector<double>& values) {
  std::vector<T> t(values.begin(), values.end());
  mem::DeviceBuffer buf(t.size() * sizeof(T));
  if (!t.empty()) buf.copy_from_host(t.data(), t.size() * sizeof(T));
  return buf;
}
template <typename T>
mem::DeviceBuffer to_device(const MatrixBlock& m) {
  return to_device<T>(values_of(m));
}

// An uninitialised-looking device buffer of n elements (filled with a NaN pattern so unwritten
// cells show up).
template <typename T>
mem::DeviceBuffer device_out(int64_t n) {
  return to_device<T>(std::vector<double>(static_cast<size_t>(n), -12345.678));
}

// The typed device pointer (a free function, so test templates need no `.template as<T>()`).
template <typename T>
T* ptr(const mem::DeviceBuffer& b) {
  return b.as<T>();
}

inline void sync_device() { DMLRT_CUDA_CHECK(cudaDeviceSynchronize()); }

template <typename T>
std::vector<double> from_device(const mem::DeviceBuffer& buf, int64_t n) {
  sync_device();
  std::vector<T> t(static_cast<size_t>(n));
  if (n > 0) buf.copy_to_host(t.data(), t.size() * sizeof(T));
  return std::vector<double>(t.begin(), t.end());
}
template <typename T>
MatrixBlock block_from_device(const mem::DeviceBuffer& buf, int64_t rows, int64_t cols) {
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

}  // namespace dmlrt::test::gpu

// Compares a device result with a CPU reference, naming the case on failure; CHECK, so one run
// reports every failing case.
#define DMLRT_REQUIRE_KERNEL_CLOSE(what, got, ref, tolerance)                        \
  do {                                                                               \
    const auto dmlrt_kcmp_ = ::dmlrt::test::compare(got, ref, tolerance, tolerance); \
    INFO((what) << ": " << dmlrt_kcmp_.report);                                      \
    CHECK(dmlrt_kcmp_.ok);                                                           \
  } while (0)
