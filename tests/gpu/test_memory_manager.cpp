// The memory manager on the device under tiny budgets: eviction of dirty GPU results with write-back
// (nothing lost, for both policies), block reuse, scratch through the manager, and the
// out-of-memory message with the memory table.
#include <catch2/catch.hpp>

#include "gpu_env.h"
#include "kernels/cpu/binary.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;
using kernels::cpu::BinaryOp;

namespace {
constexpr long long kBudget = 4 << 20;  // 4 MiB (the cuBLAS workspace takes 256 KiB of it)
}

TEST_CASE("gpu memory: dirty results evicted under a tiny budget are written back",
          "[gpu][memory]") {
  for (mem::EvictionPolicy policy : {mem::EvictionPolicy::kLru, mem::EvictionPolicy::kMinEvict}) {
    INFO("policy " << mem::eviction_policy_name(policy));
    GpuEnv env(mem::DType::kFloat64, kBudget, policy);
    // Twelve 400x400 FP64 results (1.22 MiB each): about four fit at a time.
    std::vector<MatrixBlock> inputs, refs;
    for (int i = 0; i < 12; ++i) {
      MatrixBlock x = test::random_block(400, 400, 1.0, 100 + i);
      const std::string in = "X" + std::to_string(i), out = "Y" + std::to_string(i);
      env.bind(in, x);
      REQUIRE(env.run("GPU°*°" + in + "·MATRIX·FP64°3·SCALAR·FP64·true°" + out + "·MATRIX·FP64"));
      refs.push_back(kernels::cpu::binary_matrix_scalar(BinaryOp::kMult, x, 3.0, false));
      CHECK(env.gpu->memory().live_bytes() <= env.gpu->memory().budget());
    }
    CHECK(env.gpu->stats().evict_n > 0);
    for (int i = 0; i < 12; ++i) {
      INFO("Y" << i);
      DMLRT_REQUIRE_CLOSE(env.host("Y" + std::to_string(i)), refs[static_cast<size_t>(i)]);
    }
    INFO(env.gpu->memory().memory_table());
    CHECK(env.gpu->stats().evict_bytes > 0);
  }
}

TEST_CASE("gpu memory: evicted inputs come back on their next GPU use", "[gpu][memory]") {
  GpuEnv env(mem::DType::kFloat64, kBudget);
  MatrixBlock a = test::random_block(350, 350, 1.0, 7);  // 957 KiB: three fit at a time
  env.bind("A", a);
  REQUIRE(env.run("GPU°+°A·MATRIX·FP64°1·SCALAR·FP64·true°B·MATRIX·FP64"));
  // B (dirty) and A (clean) are on the device; two more results push them out.
  REQUIRE(env.run("GPU°+°B·MATRIX·FP64°1·SCALAR·FP64·true°C·MATRIX·FP64"));
  REQUIRE(env.run("GPU°+°C·MATRIX·FP64°1·SCALAR·FP64·true°D·MATRIX·FP64"));
  REQUIRE(env.run("GPU°-°D·MATRIX·FP64°B·MATRIX·FP64°E·MATRIX·FP64"));
  const MatrixBlock ref = kernels::cpu::binary_matrix_scalar(
      BinaryOp::kPlus, MatrixBlock::dense(350, 350, 0.0), 2.0, false);
  DMLRT_REQUIRE_CLOSE(env.host("E"), ref);
  CHECK(env.gpu->stats().evict_n > 0);
}

TEST_CASE("gpu memory: repeated ops reuse cached blocks", "[gpu][memory]") {
  GpuEnv env(mem::DType::kFloat64, kBudget);
  env.bind("A", test::random_block(100, 100, 1.0, 9));
  for (int i = 0; i < 10; ++i)
    REQUIRE(env.run("GPU°+°A·MATRIX·FP64°1·SCALAR·FP64·true°B·MATRIX·FP64"));
  CHECK(env.gpu->stats().alloc_reuse_n >= 8);
}

TEST_CASE("gpu memory: a matrix larger than the budget fails with the memory table",
          "[gpu][memory]") {
  GpuEnv env(mem::DType::kFloat64, kBudget);
  env.bind("A", test::random_block(800, 800, 1.0, 1));  // 4.9 MiB > budget
  try {
    env.run("GPU°+°A·MATRIX·FP64°1·SCALAR·FP64·true°B·MATRIX·FP64");
    FAIL("expected OutOfMemory");
  } catch (const OutOfMemory& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK_THAT(msg, Catch::Contains("GPU out of memory: cannot allocate 4.9 MiB for matrix A"));
    CHECK_THAT(msg, Catch::Contains("GPU memory table (budget 4.0 MiB"));
    CHECK_THAT(msg, Catch::Contains("cuBLAS workspace"));
  }
  // Nothing was lost: the input is still readable on the host.
  CHECK(env.host("A").rows() == 800);
}

TEST_CASE("gpu memory: scratch and conversions go through the manager", "[gpu][memory]") {
  GpuEnv env(mem::DType::kFloat64, kBudget);
  const int64_t before = env.gpu->stats().alloc_success_n + env.gpu->stats().alloc_reuse_n;
  env.bind("A", test::random_block(300, 200, 0.05, 3, -1, 1, true));
  env.bind("B", test::random_block(200, 100, 1.0, 4));
  REQUIRE(env.run("GPU°ba+*°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°1°false°false"));
  CHECK(env.gpu->stats().alloc_success_n + env.gpu->stats().alloc_reuse_n > before + 4);
  CHECK(env.gpu->memory().live_bytes() <= env.gpu->memory().budget());
}
