// The gate of Note [Small GEMM plans] (kernels/cuda/gemm_planner.h): which product of a shape is
// timed, and that timing stops once the session's budget for it is spent. Host-only: the timing
// itself runs in the GPU tests ([cublas] in tests/gpu/test_gpu_matmult.cpp).
#include <catch2/catch.hpp>

#include "kernels/cuda/gemm_planner.h"

using dmlrt::kernels::cuda::GemmPlanner;

TEST_CASE("gemm planner: a shape is timed at its third product, within the session's budget",
          "[gemm_planner]") {
  STATIC_REQUIRE(GemmPlanner::kPlanAtCall == 3);
  CHECK_FALSE(GemmPlanner::plan_due(1, 0.0));
  CHECK_FALSE(GemmPlanner::plan_due(2, 0.0));
  CHECK(GemmPlanner::plan_due(3, 0.0));
  CHECK(GemmPlanner::plan_due(3, GemmPlanner::kMaxPlanningSeconds - 0.01));
  // The budget spent: shapes not yet timed stay on cuBLAS's routine for the rest of the session.
  CHECK_FALSE(GemmPlanner::plan_due(3, GemmPlanner::kMaxPlanningSeconds));
  CHECK_FALSE(GemmPlanner::plan_due(3, 5.0));
}

TEST_CASE("gemm planner: only products under 1 GFLOP with two matrix operands are planned",
          "[gemm_planner]") {
  CHECK(GemmPlanner::applies(64, 10, 512));    // LeNet's second affine layer
  CHECK(GemmPlanner::applies(64, 512, 3136));  // its first: 0.2 GFLOP
  CHECK(GemmPlanner::applies(2, 2, 1));
  CHECK_FALSE(GemmPlanner::applies(1, 512, 64));       // a row vector result: gemv
  CHECK_FALSE(GemmPlanner::applies(512, 1, 64));       // a column vector result: gemv
  CHECK_FALSE(GemmPlanner::applies(8, 8, 0));          // no inner dimension: zeros, no product
  CHECK_FALSE(GemmPlanner::applies(1024, 1024, 512));  // 1.07 GFLOP: device-bound
  CHECK(GemmPlanner::applies(1024, 1024, 476));        // 0.998 GFLOP
}
