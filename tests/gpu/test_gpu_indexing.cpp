// rightIndex and leftIndex on the GPU against the same instruction on the CPU backend: dense /
// sparse / ultra-sparse / empty inputs, full, row, column, interior and single-cell ranges, 1x1,
// vectors, odd and larger-than-block shapes, FP64 and FP32 (inputs rounded to float); scalar
// outputs; CSR slices that stay CSR; targets left unchanged; errors identical to the CPU's.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

std::string bounds(int64_t rl, int64_t ru, int64_t cl, int64_t cu) {
  return lit(rl) + "°" + lit(ru) + "°" + lit(cl) + "°" + lit(cu);
}

struct Range {
  const char* name;
  int64_t rl, ru, cl, cu;  // 1-based inclusive
};

// Ranges of an (r, c) matrix, r, c >= 1.
std::vector<Range> ranges_of(int64_t r, int64_t c) {
  return {{"all", 1, r, 1, c},
          {"first row", 1, 1, 1, c},
          {"last row", r, r, 1, c},
          {"row range", (r + 2) / 3, r, 1, c},
          {"one column", 1, r, c, c},
          {"column range", 1, r, (c + 3) / 4, (c + 1) / 2},
          {"interior", (r + 2) / 3, (2 * r + 2) / 3, (c + 3) / 4, (c + 1) / 2},
          {"one cell", (r + 1) / 2, (r + 1) / 2, (c + 1) / 2, (c + 1) / 2},
          {"corner cell", r, r, c, c}};
}

std::string label_of(const char* op, int64_t r, int64_t c, const Format& f, const Range& g) {
  std::ostringstream os;
  os << op << " X(" << r << "x" << c << " " << f.name << ")[" << g.rl << ":" << g.ru << ", " << g.cl
     << ":" << g.cu << "] (" << g.name << ")";
  return os.str();
}

const std::vector<std::pair<int64_t, int64_t>>& shapes() {
  static const std::vector<std::pair<int64_t, int64_t>> s = {
      {1, 1}, {7, 1}, {1, 7}, {33, 65}, {1000, 1003}};
  return s;
}

}  // namespace

TEST_CASE("gpu rightIndex matches the CPU on every range and format", "[gpu][indexing]") {
  const uint64_t seed = test::seed_from("gpu rightIndex");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats()) {
        env.bind("X", input(r, c, f, seed + r * 7 + c, dt));
        for (const Range& g : ranges_of(r, c))
          check_vs_cpu(env, dt, "rightIndex",
                       "X·MATRIX·FP64°" + bounds(g.rl, g.ru, g.cl, g.cu) + "°OUT",
                       label_of("rightIndex", r, c, f, g));
      }
  }
}

TEST_CASE("gpu rightIndex into a scalar reads one cell of dense and CSR inputs",
          "[gpu][indexing]") {
  const uint64_t seed = test::seed_from("gpu rightIndex scalar");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats()) {
        env.bind("X", input(r, c, f, seed + r * 7 + c, dt));
        for (const Range& g : ranges_of(r, c)) {
          if (g.rl != g.ru || g.cl != g.cu) continue;
          INFO(label_of("rightIndex->scalar", r, c, f, g) << " " << prec_name(dt));
          try {
            const std::string fields = "X·MATRIX·FP64°" + bounds(g.rl, g.ru, g.cl, g.cu);
            env.run("CP°rightIndex°" + fields + "°r·SCALAR·FP64");
            CHECK(env.run("GPU°rightIndex°" + fields + "°s·SCALAR·FP64"));
            CHECK(env.ec->scalar("s").to_double() == env.ec->scalar("r").to_double());
          } catch (const std::exception& e) {
            FAIL_CHECK("threw: " << e.what());
          }
        }
      }
  }
}

TEST_CASE("gpu rightIndex of a sparse input keeps a sparse slice in CSR", "[gpu][indexing]") {
  GpuEnv env;
  env.bind("X", test::random_block(1000, 1003, 0.01, 5, -1, 1, true));
  // Row slices (offsets rebased) and column-filtered slices (counted, scanned, compacted).
  for (const Range& g : {Range{"rows", 101, 464, 1, 1003}, Range{"cols", 1, 1000, 17, 800},
                         Range{"block", 300, 999, 2, 1002}})
    check_vs_cpu(env, mem::DType::kFloat64, "rightIndex",
                 "X·MATRIX·FP64°" + bounds(g.rl, g.ru, g.cl, g.cu) + "°OUT",
                 std::string("rightIndex CSR slice ") + g.name, 1);
  // A small slice (at most 64K cells) comes back dense, whatever its density: a CSR result would
  // need a host read of its nnz.
  for (const Range& g : {Range{"one row", 1000, 1000, 1, 1003}, Range{"batch", 1, 64, 1, 1003}})
    check_vs_cpu(env, mem::DType::kFloat64, "rightIndex",
                 "X·MATRIX·FP64°" + bounds(g.rl, g.ru, g.cl, g.cu) + "°OUT",
                 std::string("rightIndex small slice of CSR ") + g.name, 0);
  // Dense slices of a sparse input read only the selected rows: a small dense-enough block.
  env.bind("Y", test::random_block(200, 300, 0.5, 6, -1, 1, true));
  if (env.host("Y").is_sparse())
    check_vs_cpu(env, mem::DType::kFloat64, "rightIndex",
                 "Y·MATRIX·FP64°" + bounds(10, 20, 5, 9) + "°OUT", "rightIndex dense slice of CSR",
                 0);
}

TEST_CASE("gpu leftIndex matches the CPU with matrix and scalar right-hand sides",
          "[gpu][indexing]") {
  const uint64_t seed = test::seed_from("gpu leftIndex");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats()) {
        const MatrixBlock x = input(r, c, f, seed + r * 7 + c, dt);
        env.bind("X", x);
        for (const Range& g : ranges_of(r, c)) {
          for (const Format& fy : formats()) {
            env.bind("Y", input(g.ru - g.rl + 1, g.cu - g.cl + 1, fy, seed + g.rl, dt));
            check_vs_cpu(env, dt, "leftIndex",
                         "X·MATRIX·FP64°Y·MATRIX·FP64°" + bounds(g.rl, g.ru, g.cl, g.cu) + "°OUT",
                         label_of("leftIndex", r, c, f, g) + " = Y(" + fy.name + ")");
          }
          for (const char* s : {"0", "2.5", "-1"})
            check_vs_cpu(env, dt, "leftIndex",
                         "X·MATRIX·FP64°" + std::string(s) + "·SCALAR·FP64·true°" +
                             bounds(g.rl, g.ru, g.cl, g.cu) + "°OUT",
                         label_of("leftIndex", r, c, f, g) + " = " + s);
        }
        // The target is copied, never written: X still holds its data, in its format.
        const auto same = test::compare(env.host("X"), x, 0, 0);
        INFO("leftIndex target X(" << r << "x" << c << " " << f.name << ") unchanged "
                                   << same.report);
        CHECK(same.ok);
        const mem::DeviceMatrix* d = env.object("X")->device_copy();
        CHECK((d == nullptr || d->is_sparse() == x.is_sparse()));
      }
  }
}

TEST_CASE("gpu indexing errors are the CPU's", "[gpu][indexing]") {
  GpuEnv env;
  for (bool sparse : {false, true}) {
    env.bind("X", test::random_block(3, 4, 0.5, 11, -1, 1, sparse));
    env.bind("Y", test::random_block(2, 2, 1.0, 12));
    for (const auto& b : {bounds(0, 2, 1, 1), bounds(1, 4, 1, 1), bounds(1, 1, 0, 1),
                          bounds(1, 1, 1, 5), bounds(2, 1, 1, 1), bounds(1, 1, 3, 2)}) {
      check_same_error(env, "rightIndex", "X·MATRIX·FP64°" + b + "°OUT");
      check_same_error(env, "leftIndex", "X·MATRIX·FP64°Y·MATRIX·FP64°" + b + "°OUT");
      check_same_error(env, "leftIndex", "X·MATRIX·FP64°1·SCALAR·FP64·true°" + b + "°OUT");
    }
    check_same_error(env, "rightIndex", "X·MATRIX·FP64°" + bounds(1, 2, 1, 1) + "°OUT", "SCALAR");
    check_same_error(env, "leftIndex",
                     "X·MATRIX·FP64°Y·MATRIX·FP64°" + bounds(1, 2, 1, 3) + "°OUT");
  }
  REQUIRE_THROWS_WITH(
      env.run("GPU°rightIndex°X·MATRIX·FP64°" + bounds(1, 4, 1, 1) + "°G·MATRIX·FP64"),
      "rightIndex: rows 1:4 out of bounds for a 3x4 matrix");
}
