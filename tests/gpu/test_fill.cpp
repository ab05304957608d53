// Device smoke test: the fill kernel writes every element, for sizes around block boundaries.
#include <catch2/catch.hpp>

#include <vector>

#include "kernel_test_util.h"
#include "kernels/cuda/fill.h"

TEST_CASE("fill kernel writes every element", "[gpu][kernel]") {
  for (int64_t n : {0, 1, 255, 256, 257, 100003}) {
    dmlrt::test::gpu::DeviceBlock buf(static_cast<size_t>(n) * sizeof(double));
    dmlrt::kernels::cuda::launch_fill(buf.as<double>(), n, 2.5, nullptr);
    std::vector<double> host(static_cast<size_t>(n), 0.0);
    buf.copy_to_host(host.data(), host.size() * sizeof(double));
    for (double v : host) REQUIRE(v == 2.5);
  }
}
