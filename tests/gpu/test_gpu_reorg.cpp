// Reorg instructions (r' rev rdiag rshape) on the GPU against the same instruction on the CPU
// backend: dense / sparse / ultra-sparse / empty inputs, 1x1, vectors, odd and larger-than-block
// shapes, FP64 (1e-9) and FP32 (inputs rounded to float; data movement is exact). Also the
// device format of results that stay CSR, and errors identical to the CPU's.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

std::string shape_label(const char* op, int64_t r, int64_t c, const Format& f) {
  std::ostringstream os;
  os << op << " A(" << r << "x" << c << " " << f.name << ")";
  return os.str();
}

const std::vector<std::pair<int64_t, int64_t>>& shapes() {
  static const std::vector<std::pair<int64_t, int64_t>> s = {{1, 1}, {0, 4},   {4, 0},      {7, 1},
                                                             {1, 7}, {33, 65}, {1000, 1003}};
  return s;
}

}  // namespace

TEST_CASE("gpu r' matches the CPU; CSR inputs stay CSR", "[gpu][reorg][cusparse]") {
  const uint64_t seed = test::seed_from("gpu r'");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats()) {
        env.bind("A", input(r, c, f, seed + r * 7 + c, dt));
        const bool csr_in = env.host("A").is_sparse();
        check_vs_cpu(env, dt, "r'", "A·MATRIX·FP64°OUT", shape_label("r'", r, c, f),
                     csr_in ? 1 : 0);
      }
  }
}

TEST_CASE("gpu rev matches the CPU; CSR inputs stay CSR", "[gpu][reorg]") {
  const uint64_t seed = test::seed_from("gpu rev");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats()) {
        env.bind("A", input(r, c, f, seed + r * 7 + c, dt));
        const bool csr_in = env.host("A").is_sparse();
        check_vs_cpu(env, dt, "rev", "A·MATRIX·FP64°OUT", shape_label("rev", r, c, f),
                     csr_in ? 1 : 0);
      }
  }
}

TEST_CASE("gpu rdiag matches the CPU: vector -> diagonal (CSR) and square -> diagonal",
          "[gpu][reorg]") {
  const uint64_t seed = test::seed_from("gpu rdiag");
  const std::vector<std::pair<int64_t, int64_t>> in_shapes = {
      {1, 1}, {0, 1}, {7, 1}, {1000, 1}, {0, 0}, {2, 2}, {33, 33}, {1000, 1000}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : in_shapes)
      for (const Format& f : formats()) {
        env.bind("A", input(r, c, f, seed + r * 7 + c, dt));
        // A vector gives a CSR diagonal on the GPU; a square matrix a dense vector.
        const int expect = c == 1 ? 1 : (r == 0 ? -1 : 0);
        check_vs_cpu(env, dt, "rdiag", "A·MATRIX·FP64°OUT", shape_label("rdiag", r, c, f), expect);
      }
  }
}

TEST_CASE("gpu rshape matches the CPU, byrow both ways", "[gpu][reorg]") {
  const uint64_t seed = test::seed_from("gpu rshape");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats()) {
        env.bind("A", input(r, c, f, seed + r * 7 + c, dt));
        const std::vector<std::pair<int64_t, int64_t>> targets = {
            {c, r}, {1, r * c}, {r * c, 1}, {r, c}};
        for (const auto& [tr, tc] : targets)
          for (const char* byrow : {"true", "false"}) {
            std::ostringstream label;
            label << shape_label("rshape", r, c, f) << " -> " << tr << "x" << tc
                  << " byrow=" << byrow;
            check_vs_cpu(env, dt, "rshape",
                         "A·MATRIX·FP64°" + lit(tr) + "°" + lit(tc) + "°-1·SCALAR·STRING·true°" +
                             byrow + "·SCALAR·BOOLEAN·true°OUT",
                         label.str());
          }
      }
    // An odd split of a larger matrix (not a transpose shape).
    for (const Format& f : formats()) {
      env.bind("A", input(1000, 1002, f, seed, dt));
      for (const char* byrow : {"true", "false"})
        check_vs_cpu(env, dt, "rshape",
                     "A·MATRIX·FP64°" + lit(3000) + "°" + lit(334) + "°-1·SCALAR·STRING·true°" +
                         byrow + "·SCALAR·BOOLEAN·true°OUT",
                     shape_label("rshape", 1000, 1002, f) + " -> 3000x334 byrow=" + byrow);
    }
  }
}

TEST_CASE("gpu reorg errors are the CPU's", "[gpu][reorg]") {
  GpuEnv env;
  for (bool sparse : {false, true}) {
    env.bind("A", test::random_block(3, 4, 0.5, 11, -1, 1, sparse));
    check_same_error(env, "rdiag", "A·MATRIX·FP64°OUT");
    check_same_error(env, "rshape",
                     "A·MATRIX·FP64°" + lit(5) + "°" + lit(2) +
                         "°-1·SCALAR·STRING·true°true·SCALAR·BOOLEAN·true°OUT");
    check_same_error(env, "rshape",
                     "A·MATRIX·FP64°" + lit(-3) + "°" + lit(-4) +
                         "°-1·SCALAR·STRING·true°true·SCALAR·BOOLEAN·true°OUT");
  }
  REQUIRE_THROWS_WITH(env.run("GPU°rdiag°A·MATRIX·FP64°G·MATRIX·FP64"),
                      "rdiag: expects a column vector (n x 1) or a square matrix, got 3x4");
}

TEST_CASE("gpu reorg chains stay on the device and leave inputs unchanged", "[gpu][reorg]") {
  GpuEnv env;
  const MatrixBlock a = test::random_block(50, 70, 0.05, 3, -1, 1, true);
  env.bind("A", a);
  REQUIRE(env.run("GPU°r'°A·MATRIX·FP64°B·MATRIX·FP64"));
  REQUIRE(env.run("GPU°rev°B·MATRIX·FP64°C·MATRIX·FP64"));
  REQUIRE(env.run("GPU°r'°C·MATRIX·FP64°D·MATRIX·FP64"));
  CHECK(env.gpu->stats().from_dev_n == 0);
  env.run("CP°r'°A·MATRIX·FP64°B2·MATRIX·FP64");
  env.run("CP°rev°B2·MATRIX·FP64°C2·MATRIX·FP64");
  env.run("CP°r'°C2·MATRIX·FP64°D2·MATRIX·FP64");
  const auto cmp = test::compare(env.host("D"), env.host("D2"));
  INFO(cmp.report);
  CHECK(cmp.ok);
  const auto same = test::compare(env.host("A"), a, 0, 0);
  CHECK(same.ok);
  CHECK(env.object("A")->device_copy()->is_sparse());
}
