// Device tests of the reorganisation kernel family against the CPU kernels: transpose, rev, diag
// (both directions) and reshape (byrow and column-major), exact, in FP64 and FP32.
#include <catch2/catch.hpp>
#include <sstream>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/cpu/reorg.h"
#include "kernels/cuda/reorg.h"

namespace {

using dmlrt::kernels::MatrixBlock;
namespace cuda = dmlrt::kernels::cuda;
namespace cpu = dmlrt::kernels::cpu;
namespace tg = dmlrt::test::gpu;

std::vector<std::pair<int64_t, int64_t>> reorg_shapes() {
  std::vector<std::pair<int64_t, int64_t>> s = tg::kernel_shapes();
  s.push_back({31, 33});
  s.push_back({64, 32});
  s.push_back({2, 70001});
  return s;
}

}  // namespace

TEMPLATE_TEST_CASE("reorg kernels: transpose and rev match the CPU", "[gpu][kernel][reorg]", double,
                   float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("reorg-transpose");
  for (const auto& [rows, cols] : reorg_shapes()) {
    const MatrixBlock in = tg::rounded<T>(tg::random_dense(rows, cols, seed + rows, -9, 9, true));
    auto din = tg::to_device<T>(in);
    auto dt = tg::device_out<T>(rows * cols);
    cuda::launch_transpose(tg::ptr<T>(din), tg::ptr<T>(dt), rows, cols, nullptr);
    DMLRT_REQUIRE_KERNEL_CLOSE(tg::label("r'", rows, cols, tg::precision_name<T>()),
                               tg::block_from_device<T>(dt, cols, rows), cpu::transpose(in), 0.0);
    auto dr = tg::device_out<T>(rows * cols);
    cuda::launch_reverse_rows(tg::ptr<T>(din), tg::ptr<T>(dr), rows, cols, nullptr);
    DMLRT_REQUIRE_KERNEL_CLOSE(tg::label("rev", rows, cols, tg::precision_name<T>()),
                               tg::block_from_device<T>(dr, rows, cols), cpu::reverse_rows(in),
                               0.0);
  }
}

TEMPLATE_TEST_CASE("reorg kernels: diag both ways matches the CPU", "[gpu][kernel][reorg]", double,
                   float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("reorg-diag");
  for (int64_t n : {0, 1, 7, 33, 257, 1003}) {
    const MatrixBlock v = tg::rounded<T>(tg::random_dense(n, 1, seed + n, -5, 5, true));
    auto dv = tg::to_device<T>(v);
    auto dm = tg::device_out<T>(n * n);
    cuda::launch_diag_from_vector(tg::ptr<T>(dv), tg::ptr<T>(dm), n, nullptr);
    DMLRT_REQUIRE_KERNEL_CLOSE(tg::label("rdiag vector->matrix", n, 1, tg::precision_name<T>()),
                               tg::block_from_device<T>(dm, n, n), cpu::diag(v), 0.0);
    const MatrixBlock m = tg::rounded<T>(tg::random_dense(n, n, seed + 2 * n, -5, 5, true));
    auto dsq = tg::to_device<T>(m);
    auto dd = tg::device_out<T>(n);
    cuda::launch_diag_to_vector(tg::ptr<T>(dsq), tg::ptr<T>(dd), n, nullptr);
    if (n != 1)  // a 1x1 input is a vector to the CPU: diag(1x1) is itself either way
      DMLRT_REQUIRE_KERNEL_CLOSE(tg::label("rdiag matrix->vector", n, n, tg::precision_name<T>()),
                                 tg::block_from_device<T>(dd, n, 1), cpu::diag(m), 0.0);
  }
}

TEMPLATE_TEST_CASE("reorg kernels: reshape byrow and column-major matches the CPU",
                   "[gpu][kernel][reorg]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("reorg-reshape");
  for (const auto& [rows, cols] : reorg_shapes()) {
    const MatrixBlock in = tg::rounded<T>(tg::random_dense(rows, cols, seed + cols, -9, 9, true));
    auto din = tg::to_device<T>(in);
    const int64_t n = rows * cols;
    std::vector<std::pair<int64_t, int64_t>> targets = {{cols, rows}, {n, 1}, {1, n}};
    if (n % 3 == 0 && n > 0) targets.push_back({3, n / 3});
    if (n % 5 == 0 && n > 0) targets.push_back({n / 5, 5});
    for (const auto& [r2, c2] : targets) {
      for (bool byrow : {true, false}) {
        auto dout = tg::device_out<T>(n);
        cuda::launch_reshape(tg::ptr<T>(din), tg::ptr<T>(dout), rows, cols, r2, c2, byrow, nullptr);
        std::ostringstream os;
        os << "rshape to " << r2 << "x" << c2 << (byrow ? " byrow" : " bycol");
        DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(os.str(), rows, cols, tg::precision_name<T>()),
                                   tg::block_from_device<T>(dout, r2, c2),
                                   cpu::reshape(in, r2, c2, byrow), 0.0);
      }
    }
  }
}
