// union_distinct on the GPU against the CPU backend: the same distinct rows of rbind(A, B) in the
// same first-occurrence order, cell bits equal (NaN equals NaN, -0.0 kept apart from 0.0); rows
// repeated within and across A and B, rows that differ only in a -0.0 or a NaN, every format,
// empty / 1x1 / odd / wide / tall shapes, FP64 and FP32.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

// Rows drawn from a pool of `pool` template rows (the same pool for A and B, so rows repeat within
// and across them), one row in 8 fresh; cells nonzero with probability f.sparsity, integers in
// [-levels/2, levels/2), one in 10 of them NaN, +Inf, -0.0 or 0.0 (so twins differ in the sign
// of a zero). f's format, float-rounded for FP32.
MatrixBlock union_block(int64_t r, int64_t c, const Format& f, int levels, int pool,
                        uint64_t pool_seed, uint64_t seed, mem::DType dt) {
  const double specials[] = {std::nan(""), HUGE_VAL, -0.0, 0.0};
  auto cell = [&](std::mt19937_64& g) {
    std::uniform_real_distribution<double> u(0, 1);
    if (u(g) >= f.sparsity) return 0.0;
    if (u(g) < 0.1) return specials[static_cast<size_t>(u(g) * 4) % 4];
    return std::floor(u(g) * levels) - levels / 2;
  };
  std::mt19937_64 pg(pool_seed);
  std::vector<std::vector<double>> rows(static_cast<size_t>(pool), std::vector<double>(c));
  for (auto& row : rows)
    for (double& x : row) x = cell(pg);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> v(static_cast<size_t>(r * c));
  for (int64_t i = 0; i < r; ++i) {
    const bool fresh = u(rng) < 0.125;
    const auto& t = rows[static_cast<size_t>(u(rng) * pool) % rows.size()];
    for (int64_t j = 0; j < c; ++j) v[i * c + j] = fresh ? cell(rng) : t[j];
  }
  MatrixBlock m = MatrixBlock::dense(r, c, std::move(v));
  if (f.sparse) m = m.to_sparse();
  return dt == mem::DType::kFloat32 ? rounded_f32(m) : m;
}

uint64_t java_bits(double v) {
  if (std::isnan(v)) return 0x7ff8000000000000ULL;
  uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// Cells compared by their Java bits (so -0.0 != 0.0, NaN == NaN); the first mismatch reported.
void check_bits(const MatrixBlock& got, const MatrixBlock& want) {
  REQUIRE(got.rows() == want.rows());
  REQUIRE(got.cols() == want.cols());
  for (int64_t i = 0; i < got.rows(); ++i)
    for (int64_t j = 0; j < got.cols(); ++j)
      if (java_bits(got.get(i, j)) != java_bits(want.get(i, j))) {
        FAIL_CHECK("cell (" << i << ", " << j << "): got " << got.get(i, j) << ", want "
                            << want.get(i, j));
        return;
      }
}

struct Shape {
  int64_t ma, mb, n;
};

}  // namespace

TEST_CASE("gpu union_distinct matches the CPU's rows and order", "[gpu][union]") {
  const uint64_t seed = test::seed_from("gpu union_distinct");
  const Shape shapes[] = {{1, 1, 1}, {0, 0, 4},   {0, 5, 4},     {6, 0, 4},   {3, 2, 0},
                          {7, 5, 1}, {37, 23, 5}, {300, 211, 3}, {5, 4, 300}, {2000, 1500, 2}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const Shape& s : shapes)
      for (const Format& f : formats())
        for (int levels : {2, 1000})
          for (int pool : {3, 40}) {
            const uint64_t k = seed + static_cast<uint64_t>(s.ma * 131 + s.mb * 7 + s.n) +
                               static_cast<uint64_t>(levels * 3 + pool);
            env.bind("A", union_block(s.ma, s.n, f, levels, pool, k, k + 1, dt));
            env.bind("B", union_block(s.mb, s.n, f, levels, pool, k, k + 2, dt));
            std::ostringstream what;
            what << "union_distinct A(" << s.ma << "x" << s.n << ") B(" << s.mb << "x" << s.n
                 << ") " << f.name << ", " << levels << " levels, pool " << pool << " "
                 << prec_name(dt);
            INFO(what.str());
            try {
              env.run("CP°union_distinct°A·MATRIX·FP64°B·MATRIX·FP64°R·MATRIX·FP64°8");
              CHECK(env.run("GPU°union_distinct°A·MATRIX·FP64°B·MATRIX·FP64°G·MATRIX·FP64°8"));
              check_bits(env.host("G"), env.host("R"));
            } catch (const std::exception& e) {
              FAIL_CHECK("threw: " << e.what());
            }
          }
  }
}

TEST_CASE("gpu union_distinct keeps -0.0 and 0.0 apart and NaN payloads together", "[gpu][union]") {
  const double nan1 = std::nan("1"), nan2 = std::nan("2");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    env.bind("A", MatrixBlock::dense(4, 2, {0.0, 1.0, -0.0, 1.0, nan1, 2.0, 0.0, 1.0}));
    env.bind("B", MatrixBlock::dense(3, 2, {nan2, 2.0, -0.0, 1.0, 3.0, -0.0}));
    INFO(prec_name(dt));
    env.run("CP°union_distinct°A·MATRIX·FP64°B·MATRIX·FP64°R·MATRIX·FP64°8");
    CHECK(env.run("GPU°union_distinct°A·MATRIX·FP64°B·MATRIX·FP64°G·MATRIX·FP64°8"));
    const MatrixBlock got = env.host("G");
    CHECK(got.rows() == 4);  // (0, 1), (-0, 1), (NaN, 2), (3, -0)
    check_bits(got, env.host("R"));
  }
}

TEST_CASE("gpu union_distinct of a device result", "[gpu][union]") {
  const uint64_t seed = test::seed_from("gpu union_distinct device result");
  GpuEnv env;
  env.bind("A", union_block(50, 3, formats()[0], 3, 5, seed, seed + 1, mem::DType::kFloat64));
  env.bind("B", union_block(40, 3, formats()[1], 3, 5, seed, seed + 2, mem::DType::kFloat64));
  CHECK(env.run("GPU°*°A·MATRIX·FP64°1·SCALAR·FP64·true°X·MATRIX·FP64"));
  CHECK(env.run("GPU°union_distinct°X·MATRIX·FP64°B·MATRIX·FP64°G·MATRIX·FP64"));
  env.run("CP°union_distinct°X·MATRIX·FP64°B·MATRIX·FP64°R·MATRIX·FP64°8");
  check_bits(env.host("G"), env.host("R"));
}
