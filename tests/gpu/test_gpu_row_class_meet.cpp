// rcm (rowClassMeet) on the GPU against the CPU backend, exactly: class numbers in the CPU's
// (SystemDS's HashMap) order and class sizes; labels with zeros, fractions, negatives, NaN and
// values past int range (Java's int cast), few and many classes per row (the map's resizes), B
// with one row, as many rows as A or more, A wider or narrower than B, every format, FP64 and FP32.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

// (r, c) labels: about f.sparsity nonzero, on a grid of `levels` values of step 0.5 around 0 (so
// fractions in (-1, 1) cast to 0), one in 20 NaN or +-3e9. f's format, float-rounded for FP32.
MatrixBlock label_block(int64_t r, int64_t c, const Format& f, int levels, uint64_t seed,
                        mem::DType dt) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const double specials[] = {std::nan(""), 3e9, -3e9};
  std::vector<double> v(static_cast<size_t>(r * c), 0.0);
  for (double& x : v) {
    if (u(rng) >= f.sparsity) continue;
    x = 0.5 * (std::floor(u(rng) * levels) - levels / 2);
    if (u(rng) < 0.05) x = specials[static_cast<size_t>(u(rng) * 3) % 3];
  }
  MatrixBlock m = MatrixBlock::dense(r, c, std::move(v));
  if (f.sparse) m = m.to_sparse();
  return dt == mem::DType::kFloat32 ? rounded_f32(m) : m;
}

struct Shape {
  int64_t ma, na, mb, nb;
};

}  // namespace

TEST_CASE("gpu rcm matches the CPU's classes, order and sizes", "[gpu][rcm]") {
  const uint64_t seed = test::seed_from("gpu rcm");
  const Shape shapes[] = {{1, 1, 1, 1},     {0, 4, 0, 4},       {0, 4, 1, 4},     {3, 0, 3, 0},
                          {7, 5, 1, 5},     {37, 23, 37, 23},   {37, 23, 40, 19}, {20, 9, 1, 12},
                          {5, 300, 5, 300}, {1, 4000, 1, 4000}, {300, 5, 301, 5}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const Shape& s : shapes)
      for (const Format& f : formats())
        for (int levels : {6, 400}) {
          const uint64_t k =
              seed + static_cast<uint64_t>(s.ma * 131 + s.na * 17 + s.mb * 7 + s.nb + levels);
          env.bind("A", label_block(s.ma, s.na, f, levels, k, dt));
          env.bind("B", label_block(s.mb, s.nb, f, levels, k + 1, dt));
          std::ostringstream what;
          what << "rcm A(" << s.ma << "x" << s.na << ") B(" << s.mb << "x" << s.nb << ") " << f.name
               << ", " << levels << " levels " << prec_name(dt);
          INFO(what.str());
          try {
            env.run("CP°rcm°A·MATRIX·FP64°B·MATRIX·FP64°RC°RN°8");
            CHECK(env.run("GPU°rcm°A·MATRIX·FP64°B·MATRIX·FP64°GC°GN°8"));
            for (const char* o : {"C", "N"}) {
              INFO("output " << o);
              const MatrixBlock got = env.host(std::string("G") + o);
              const MatrixBlock want = env.host(std::string("R") + o);
              REQUIRE(got.rows() == want.rows());
              REQUIRE(got.cols() == want.cols());
              const auto cmp = test::compare(got, want, 0, 0);
              INFO(cmp.report);
              CHECK(cmp.ok);
            }
          } catch (const std::exception& e) {
            FAIL_CHECK("threw: " << e.what());
          }
        }
  }
}

TEST_CASE("gpu rcm keeps the shape rule's message", "[gpu][rcm]") {
  GpuEnv env;
  env.bind("A", MatrixBlock::dense(3, 2, {1, 2, 3, 4, 5, 6}));
  env.bind("B", MatrixBlock::dense(2, 2, {1, 1, 1, 1}));
  const std::string msg = error_of(env, "GPU°rcm°A·MATRIX·FP64°B·MATRIX·FP64°GC°GN°8");
  CHECK_THAT(msg, Catch::Contains("B must have one row or at least as many rows as A"));
}
