// Device tests of the indexing kernel family against the CPU kernels: right-index slices, left
// indexing with a block or a scalar, and cbind / rbind built from block copies, exact, in FP64
// and FP32.
#include <catch2/catch.hpp>
#include <sstream>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/cpu/append.h"
#include "kernels/cpu/indexing.h"
#include "kernels/cuda/indexing.h"

namespace {

using dmlrt::kernels::MatrixBlock;
namespace cuda = dmlrt::kernels::cuda;
namespace cpu = dmlrt::kernels::cpu;
namespace tg = dmlrt::test::gpu;

struct Range {
  int64_t r0, r1, c0, c1;
};

// Full, interior, first/last row and column, one cell, and empty ranges of a (rows, cols) matrix.
std::vector<Range> ranges_of(int64_t rows, int64_t cols) {
  std::vector<Range> out = {{0, rows, 0, cols}};
  if (rows > 0 && cols > 0) {
    out.push_back({rows / 3, rows - rows / 4, cols / 5, cols - cols / 3});
    out.push_back({0, 1, 0, cols});
    out.push_back({rows - 1, rows, 0, cols});
    out.push_back({0, rows, cols - 1, cols});
    out.push_back({rows / 2, rows / 2 + 1, cols / 2, cols / 2 + 1});
    out.push_back({rows / 2, rows / 2, 0, cols});
  }
  return out;
}

std::string range_text(const char* op, const Range& g) {
  std::ostringstream os;
  os << op << " [" << g.r0 << ":" << g.r1 << ", " << g.c0 << ":" << g.c1 << ")";
  return os.str();
}

}  // namespace

TEMPLATE_TEST_CASE("indexing kernels: right-index slices match the CPU", "[gpu][kernel][indexing]",
                   double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("indexing-slice");
  for (const auto& [rows, cols] : tg::kernel_shapes()) {
    const MatrixBlock in = tg::rounded<T>(tg::random_dense(rows, cols, seed + rows, -9, 9, true));
    auto din = tg::to_device<T>(in);
    for (const Range& g : ranges_of(rows, cols)) {
      const int64_t h = g.r1 - g.r0, w = g.c1 - g.c0;
      auto dout = tg::device_out<T>(h * w);
      cuda::launch_slice(tg::ptr<T>(din), cols, g.r0, g.r1, g.c0, g.c1, tg::ptr<T>(dout), nullptr);
      DMLRT_REQUIRE_KERNEL_CLOSE(
          tg::label(range_text("rightIndex", g), rows, cols, tg::precision_name<T>()),
          tg::block_from_device<T>(dout, h, w), cpu::slice(in, g.r0, g.r1, g.c0, g.c1), 0.0);
    }
  }
}

TEMPLATE_TEST_CASE("indexing kernels: left indexing with a block or a scalar matches the CPU",
                   "[gpu][kernel][indexing]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("indexing-left");
  for (const auto& [rows, cols] : tg::kernel_shapes()) {
    const MatrixBlock target =
        tg::rounded<T>(tg::random_dense(rows, cols, seed + cols, -9, 9, true));
    for (const Range& g : ranges_of(rows, cols)) {
      const int64_t h = g.r1 - g.r0, w = g.c1 - g.c0;
      const MatrixBlock rhs = tg::rounded<T>(tg::random_dense(h, w, seed + h, 10, 20));
      {
        auto dt = tg::to_device<T>(target);
        auto dr = tg::to_device<T>(rhs);
        cuda::launch_copy_block(tg::ptr<T>(dr), h, w, tg::ptr<T>(dt), cols, g.r0, g.c0, nullptr);
        DMLRT_REQUIRE_KERNEL_CLOSE(
            tg::label(range_text("leftIndex block", g), rows, cols, tg::precision_name<T>()),
            tg::block_from_device<T>(dt, rows, cols), cpu::assign_range(target, rhs, g.r0, g.c0),
            0.0);
      }
      {
        auto dt = tg::to_device<T>(target);
        cuda::launch_fill_block(tg::ptr<T>(dt), cols, g.r0, g.r1, g.c0, g.c1, T(-2.5), nullptr);
        DMLRT_REQUIRE_KERNEL_CLOSE(
            tg::label(range_text("leftIndex scalar", g), rows, cols, tg::precision_name<T>()),
            tg::block_from_device<T>(dt, rows, cols),
            cpu::assign_scalar(target, -2.5, g.r0, g.r1, g.c0, g.c1), 0.0);
      }
    }
  }
}

TEMPLATE_TEST_CASE("indexing kernels: cbind and rbind from block copies match the CPU",
                   "[gpu][kernel][indexing]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("indexing-append");
  for (const auto& [rows, cols] : tg::kernel_shapes()) {
    // Three operands of different widths (cbind) / heights (rbind), one of them possibly empty.
    const int64_t widths[3] = {cols, 1, cols / 2};
    const int64_t heights[3] = {rows, 3, rows / 2};
    std::vector<MatrixBlock> cb, rb;
    for (int k = 0; k < 3; ++k) {
      cb.push_back(tg::rounded<T>(tg::random_dense(rows, widths[k], seed + k, -9, 9, true)));
      rb.push_back(tg::rounded<T>(tg::random_dense(heights[k], cols, seed + 10 + k, -9, 9, true)));
    }
    const int64_t total_w = widths[0] + widths[1] + widths[2];
    const int64_t total_h = heights[0] + heights[1] + heights[2];
    auto dc = tg::device_out<T>(rows * total_w);
    auto dr = tg::device_out<T>(total_h * cols);
    int64_t c0 = 0, r0 = 0;
    std::vector<tg::DeviceBlock> keep;
    for (int k = 0; k < 3; ++k) {
      keep.push_back(tg::to_device<T>(cb[k]));
      cuda::launch_copy_block(tg::ptr<T>(keep.back()), rows, widths[k], tg::ptr<T>(dc), total_w, 0,
                              c0, nullptr);
      c0 += widths[k];
      keep.push_back(tg::to_device<T>(rb[k]));
      cuda::launch_copy_block(tg::ptr<T>(keep.back()), heights[k], cols, tg::ptr<T>(dr), cols, r0,
                              0, nullptr);
      r0 += heights[k];
    }
    DMLRT_REQUIRE_KERNEL_CLOSE(tg::label("cbind of 3", rows, cols, tg::precision_name<T>()),
                               tg::block_from_device<T>(dc, rows, total_w),
                               cpu::cbind({&cb[0], &cb[1], &cb[2]}), 0.0);
    DMLRT_REQUIRE_KERNEL_CLOSE(tg::label("rbind of 3", rows, cols, tg::precision_name<T>()),
                               tg::block_from_device<T>(dr, total_h, cols),
                               cpu::rbind({&rb[0], &rb[1], &rb[2]}), 0.0);
  }
}
