// unique / uniquer / uniquec and the exact countDistinct family (uacd, uacdr, uacdc) on the GPU
// against the CPU backend: the distinct values in exactly the CPU's (SystemDS's HashSet) order,
// exact counts; inputs with ties, NaN, +-Inf and -0.0 (distinct from 0.0 for Java), many distinct
// integers (the HashSet's tree bins), every format, empty / 1x1 / odd / wide / tall shapes, FP64
// and FP32; the approximate uacdap* (SystemDS's KMV estimate above 1024 nonzeros per counted unit,
// the exact count below) on inputs on both sides of that threshold.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

// (r, c) with about f.sparsity nonzeros: values on a grid of `levels` integers (many ties when
// levels is small), one in 16 of them NaN, +-Inf or -0.0; f's format, float-rounded for FP32.
MatrixBlock distinct_block(int64_t r, int64_t c, const Format& f, int levels, uint64_t seed,
                           mem::DType dt) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const double specials[] = {std::nan(""), HUGE_VAL, -HUGE_VAL, -0.0};
  std::vector<double> v(static_cast<size_t>(r * c), 0.0);
  for (double& x : v) {
    if (u(rng) >= f.sparsity) continue;
    x = std::floor(u(rng) * levels) - levels / 2;
    if (u(rng) < 1.0 / 16) x = specials[static_cast<size_t>(u(rng) * 4) % 4];
  }
  MatrixBlock m = MatrixBlock::dense(r, c, std::move(v));
  if (f.sparse) m = m.to_sparse();
  return dt == mem::DType::kFloat32 ? rounded_f32(m) : m;
}

std::string label(const char* op, int64_t r, int64_t c, const Format& f, int levels) {
  std::ostringstream os;
  os << op << " A(" << r << "x" << c << " " << f.name << ", " << levels << " levels)";
  return os.str();
}

// Order matters: compared cell by cell with no tolerance (NaN equal to NaN), except the rounding
// of a count to float in FP32 (`rtol_fp32`: the KMV estimates, which SystemDS's row/column
// sketch can drive past 2^24, even negative).
void check_exact(GpuEnv& env, mem::DType dt, const std::string& opcode, const std::string& what,
                 double rtol_fp32 = 0) {
  INFO(what << " " << prec_name(dt));
  try {
    env.run("CP°" + opcode + "°A·MATRIX·FP64°R·MATRIX·FP64°8");
    const bool on_gpu = env.run("GPU°" + opcode + "°A·MATRIX·FP64°G·MATRIX·FP64°8");
    CHECK(on_gpu);
    const MatrixBlock got = env.host("G"), want = env.host("R");
    CHECK(got.rows() == want.rows());
    CHECK(got.cols() == want.cols());
    const auto cmp =
        test::compare(got, want, 0, dt == mem::DType::kFloat32 ? rtol_fp32 : 0.0);
    INFO(cmp.report);
    CHECK(cmp.ok);
  } catch (const std::exception& e) {
    FAIL_CHECK("threw: " << e.what());
  }
}

const std::vector<std::pair<int64_t, int64_t>>& shapes() {
  static const std::vector<std::pair<int64_t, int64_t>> s = {
      {1, 1}, {0, 4}, {4, 0}, {7, 1}, {1, 7}, {37, 23}, {300, 5}, {5, 300}, {1, 4000}};
  return s;
}

}  // namespace

TEST_CASE("gpu unique, uniquer, uniquec match the CPU's values and order", "[gpu][unique]") {
  const uint64_t seed = test::seed_from("gpu unique");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats())
        for (int levels : {5, 3000}) {
          env.bind("A", distinct_block(r, c, f, levels, seed + r * 7 + c + levels, dt));
          for (const char* op : {"unique", "uniquer", "uniquec"})
            check_exact(env, dt, op, label(op, r, c, f, levels));
        }
  }
}

TEST_CASE("gpu countDistinct (uacd, uacdr, uacdc) matches the CPU exactly", "[gpu][unique]") {
  const uint64_t seed = test::seed_from("gpu countDistinct");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats())
        for (int levels : {5, 3000}) {
          env.bind("A", distinct_block(r, c, f, levels, seed + r * 7 + c + levels, dt));
          const std::string what = label("uacd", r, c, f, levels);
          for (const char* op : {"uacdr", "uacdc"}) check_exact(env, dt, op, what + " " + op);
          INFO(what << " " << prec_name(dt));
          try {
            env.run("CP°uacd°A·MATRIX·FP64°R·SCALAR·INT64°8");
            CHECK(env.run("GPU°uacd°A·MATRIX·FP64°G·SCALAR·INT64°8"));
            CHECK(env.ec->scalar("G").to_int() == env.ec->scalar("R").to_int());
          } catch (const std::exception& e) {
            FAIL_CHECK("threw: " << e.what());
          }
        }
  }
}

TEST_CASE("gpu countDistinctApprox (uacdap, uacdapr, uacdapc) matches the CPU's KMV estimate",
          "[gpu][unique]") {
  const uint64_t seed = test::seed_from("gpu countDistinctApprox");
  // Above the threshold for the whole matrix, per row (wide) and per column (tall), dense and
  // sparse; 40x40 (1600 cells) estimates the whole matrix but counts rows and columns exactly.
  const std::vector<std::pair<int64_t, int64_t>> sizes = {
      {40, 40}, {3, 3000}, {3000, 3}, {4, 40000}, {40000, 4}, {37, 23}};
  const Format kinds[] = {{"dense", 1.0, false}, {"sparse0.05", 0.05, true}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : sizes)
      for (const Format& f : kinds)
        for (int levels : {5, 300, 1 << 30}) {
          env.bind("A", distinct_block(r, c, f, levels, seed + r * 7 + c + levels, dt));
          const std::string what = label("uacdap", r, c, f, levels);
          for (const char* op : {"uacdapr", "uacdapc"})
            check_exact(env, dt, op, what + " " + op, /*rtol_fp32=*/1e-7);
          INFO(what << " " << prec_name(dt));
          try {
            env.run("CP°uacdap°A·MATRIX·FP64°R·SCALAR·INT64°8");
            CHECK(env.run("GPU°uacdap°A·MATRIX·FP64°G·SCALAR·INT64°8"));
            CHECK(env.ec->scalar("G").to_int() == env.ec->scalar("R").to_int());
          } catch (const std::exception& e) {
            FAIL_CHECK("threw: " << e.what());
          }
        }
  }
}

// A device-only operand (a GPU result never downloaded) counts in the format a download would give
// it (MatrixBlock::prefers_sparse): the CPU run afterwards downloads it and must agree.
TEST_CASE("gpu countDistinct of a device result counts as the CPU would after a download",
          "[gpu][unique]") {
  const uint64_t seed = test::seed_from("gpu countDistinct device result");
  const Format dense_formats[] = {{"dense", 1.0, false},
                                  {"dense0.3", 0.3, false},
                                  {"dense0.05", 0.05, false},
                                  {"dense0.001", 0.001, false}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : dense_formats) {
        env.bind("A", distinct_block(r, c, f, 5, seed + r * 7 + c, dt));
        for (const char* op : {"uacd", "uacdr", "uacdc"}) {
          const bool all = std::string(op) == "uacd";
          const std::string type = all ? "·SCALAR·INT64" : "·MATRIX·FP64";
          INFO(label(op, r, c, f, 5) << " " << prec_name(dt) << ", on a device result");
          try {
            CHECK(env.run("GPU°*°A·MATRIX·FP64°1·SCALAR·FP64·true°B·MATRIX·FP64"));
            CHECK(env.run("GPU°" + std::string(op) + "°B·MATRIX·FP64°G" + type + "°8"));
            env.run("CP°" + std::string(op) + "°B·MATRIX·FP64°R" + type + "°8");
            if (all) {
              CHECK(env.ec->scalar("G").to_int() == env.ec->scalar("R").to_int());
            } else {
              const auto cmp = test::compare(env.host("G"), env.host("R"), 0, 0);
              INFO(cmp.report);
              CHECK(cmp.ok);
            }
          } catch (const std::exception& e) {
            FAIL_CHECK("threw: " << e.what());
          }
        }
      }
  }
}

