// rsort, qsort and qpick on the GPU (sort_gpu.cpp) against the same lines on the CPU backend:
// inputs full of ties (values on a coarse grid), NaN, +-Inf and -0.0, in every format (dense,
// sparse, ultra-sparse, empty), at empty, 1x1, odd and larger shapes, FP64 and FP32 (inputs
// rounded to float). Sorting moves values, so results are exact; IQM sums in another order.
// Also: the errors are the CPU's, word for word.
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

// (r, c) with about `f.sparsity` nonzeros drawn from a grid of halves in [-3, 3] (many ties),
// one in 16 of them NaN, +Inf, -Inf or -0.0; in f's format, rounded to float for FP32.
MatrixBlock tie_block(int64_t r, int64_t c, const Format& f, uint64_t seed, mem::DType dt) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const double specials[] = {std::nan(""), HUGE_VAL, -HUGE_VAL, -0.0};
  std::vector<double> v(static_cast<size_t>(r * c), 0.0);
  for (double& x : v) {
    if (u(rng) >= f.sparsity) continue;
    x = std::round(u(rng) * 12 - 6) / 2;
    if (u(rng) < 1.0 / 16) x = specials[static_cast<size_t>(u(rng) * 4) % 4];
  }
  MatrixBlock m = MatrixBlock::dense(r, c, std::move(v));
  if (f.sparse) m = m.to_sparse();
  return dt == mem::DType::kFloat32 ? rounded_f32(m) : m;
}

std::string label(const char* op, int64_t r, int64_t c, const Format& f) {
  std::ostringstream os;
  os << op << " A(" << r << "x" << c << " " << f.name << ")";
  return os.str();
}

std::string flag(bool b) { return std::string(b ? "true" : "false") + "·SCALAR·BOOLEAN·true"; }
std::string num(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v << "·SCALAR·FP64·true";
  return os.str();
}

// A scalar result of `fields` ("OUT" marks it) on the CPU and on the GPU.
void check_scalar_vs_cpu(GpuEnv& env, mem::DType dt, const std::string& opcode,
                         const std::string& fields, const std::string& what, double tol) {
  INFO(what << " " << prec_name(dt) << ": " << fields);
  try {
    env.run("CP°" + opcode + "°" + with_out(fields, "R·SCALAR·FP64"));
    const bool on_gpu = env.run("GPU°" + opcode + "°" + with_out(fields, "G·SCALAR·FP64"));
    CHECK(on_gpu);
    const double want = env.ec->scalar("R").to_double(), got = env.ec->scalar("G").to_double();
    INFO("cpu " << want << " gpu " << got);
    CHECK(((std::isnan(want) && std::isnan(got)) || want == got ||
           std::abs(got - want) <= tol * (1 + std::abs(want))));
  } catch (const std::exception& e) {
    FAIL_CHECK("threw: " << e.what());
  }
}

const std::vector<std::pair<int64_t, int64_t>>& shapes() {
  static const std::vector<std::pair<int64_t, int64_t>> s = {{1, 1},  {0, 3},    {7, 1},   {1, 7},
                                                             {37, 5}, {1000, 3}, {4099, 2}};
  return s;
}

const std::vector<int64_t>& lengths() {
  static const std::vector<int64_t> n = {1, 2, 7, 37, 1000, 4099};
  return n;
}

}  // namespace

TEST_CASE("gpu rsort matches the CPU: ties stable both ways, NaN last, index.return",
          "[gpu][sort]") {
  const uint64_t seed = test::seed_from("gpu rsort");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    // Two sort columns (2 then 1), read from a matrix as order(by=...) with a vector gives.
    env.bind("BY", MatrixBlock::dense(2, 1, std::vector<double>{2, 1}));
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats()) {
        env.bind("A", tie_block(r, c, f, seed + r * 7 + c, dt));
        for (bool dec : {false, true})
          for (bool idx : {false, true}) {
            const std::string tail = "°" + flag(dec) + "°" + flag(idx) + "°OUT";
            check_vs_cpu(env, dt, "rsort", "A·MATRIX·FP64°1·SCALAR·INT64·true" + tail,
                         label("rsort by 1", r, c, f));
            check_vs_cpu(env, dt, "rsort",
                         "A·MATRIX·FP64°" + std::to_string(c) + "·SCALAR·INT64·true" + tail,
                         label("rsort by last", r, c, f));
            if (c >= 2)
              check_vs_cpu(env, dt, "rsort", "A·MATRIX·FP64°BY·MATRIX·FP64" + tail,
                           label("rsort by 2, 1", r, c, f));
          }
      }
  }
}

TEST_CASE("gpu rsort errors are the CPU's", "[gpu][sort]") {
  GpuEnv env;
  env.bind("A", tie_block(5, 3, formats()[0], 1, mem::DType::kFloat64));
  const std::string tail = "°false·SCALAR·BOOLEAN·true°false·SCALAR·BOOLEAN·true°OUT";
  check_same_error(env, "rsort", "A·MATRIX·FP64°0·SCALAR·INT64·true" + tail);
  check_same_error(env, "rsort", "A·MATRIX·FP64°4·SCALAR·INT64·true" + tail);
  CHECK_THAT(error_of(env, "GPU°rsort°A·MATRIX·FP64°4·SCALAR·INT64·true" +
                               with_out(tail, "G·MATRIX·FP64")),
             Catch::Contains("sort column 4 is out of range [1, 3] of a 5x3 input"));
}

TEST_CASE("gpu qsort matches the CPU, with and without weights", "[gpu][sort]") {
  const uint64_t seed = test::seed_from("gpu qsort");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{7}, int64_t{1000}, int64_t{4099}})
      for (const Format& f : formats()) {
        env.bind("A", tie_block(n, 1, f, seed + n, dt));
        check_vs_cpu(env, dt, "qsort", "A·MATRIX·FP64°OUT°8", label("qsort", n, 1, f));
        // Integer weights 0..3 (zeros among them), and fractional ones (qsort keeps them).
        std::vector<double> w(static_cast<size_t>(n)), wf(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
          w[static_cast<size_t>(i)] = static_cast<double>((i * 7 + 3) % 4);
          wf[static_cast<size_t>(i)] = 0.25 + static_cast<double>(i % 5) * 0.5;
        }
        env.bind("W", MatrixBlock::dense(n, 1, std::move(w)));
        env.bind("WF", MatrixBlock::dense(n, 1, std::move(wf)));
        check_vs_cpu(env, dt, "qsort", "A·MATRIX·FP64°W·MATRIX·FP64°OUT°8",
                     label("qsort weighted", n, 1, f));
        check_vs_cpu(env, dt, "qsort", "A·MATRIX·FP64°WF·MATRIX·FP64°OUT°8",
                     label("qsort fractional weights", n, 1, f));
      }
  }
}

TEST_CASE("gpu qsort errors are the CPU's", "[gpu][sort]") {
  GpuEnv env;
  env.bind("A", tie_block(5, 2, formats()[0], 2, mem::DType::kFloat64));
  env.bind("V", tie_block(5, 1, formats()[0], 3, mem::DType::kFloat64));
  env.bind("W", MatrixBlock::dense(4, 1, std::vector<double>{1, 1, 1, 1}));
  check_same_error(env, "qsort", "A·MATRIX·FP64°OUT°8");
  check_same_error(env, "qsort", "V·MATRIX·FP64°W·MATRIX·FP64°OUT°8");
}

TEST_CASE("gpu qpick matches the CPU: quantiles, median, IQM, weighted tables", "[gpu][sort]") {
  const uint64_t seed = test::seed_from("gpu qpick");
  const double qs[] = {0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    const double tol = dt == mem::DType::kFloat64 ? 1e-12 : 1e-6;
    std::vector<double> qv(std::begin(qs), std::end(qs));
    env.bind("Q", MatrixBlock::dense(static_cast<int64_t>(qv.size()), 1, qv));
    for (int64_t n : lengths())
      for (const Format& f : formats()) {
        // Sorted (the plan's qsort output, sorted on the CPU) and unsorted (qpick scans either
        // the same way); with integer weights, the weighted table from the CPU's qsort.
        env.bind("X", tie_block(n, 1, f, seed + n, dt));
        env.run("CP°qsort°X·MATRIX·FP64°S·MATRIX·FP64°8");
        std::vector<double> w(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) w[static_cast<size_t>(i)] = static_cast<double>(i % 4);
        w[0] = 1;  // a total weight of at least 1
        env.bind("W", MatrixBlock::dense(n, 1, std::move(w)));
        env.run("CP°qsort°X·MATRIX·FP64°W·MATRIX·FP64°T·MATRIX·FP64°8");
        for (const char* in : {"S", "X", "T"}) {
          const std::string a = std::string(in) + "·MATRIX·FP64";
          const std::string what = label(in, n, 1, f);
          check_scalar_vs_cpu(env, dt, "qpick", a + "°OUT°MEDIAN°true", what + " median", tol);
          check_scalar_vs_cpu(env, dt, "qpick", a + "°OUT°IQM°true", what + " IQM", tol);
          for (double q : qs)
            check_scalar_vs_cpu(env, dt, "qpick", a + "°" + num(q) + "°OUT°VALUEPICK°true",
                                what + " quantile", tol);
          check_vs_cpu(env, dt, "qpick", a + "°Q·MATRIX·FP64°OUT°VALUEPICK°true",
                       what + " quantiles");
        }
      }
  }
}

TEST_CASE("gpu qpick errors are the CPU's", "[gpu][sort]") {
  GpuEnv env;
  env.bind("S", MatrixBlock::dense(3, 1, std::vector<double>{1, 2, 3}));
  env.bind("E", MatrixBlock::dense(0, 1, std::vector<double>{}));
  env.bind("T", MatrixBlock::dense(2, 2, std::vector<double>{1, 1.5, 2, 1}));  // fractional
  env.bind("Z", MatrixBlock::dense(2, 2, std::vector<double>{1, 0, 2, 0}));    // weight 0
  check_same_error(env, "qpick", "S·MATRIX·FP64°1.5·SCALAR·FP64·true°OUT°VALUEPICK°true", "SCALAR");
  check_same_error(env, "qpick", "E·MATRIX·FP64°OUT°MEDIAN°true", "SCALAR");
  check_same_error(env, "qpick", "E·MATRIX·FP64°OUT°IQM°true", "SCALAR");
  check_same_error(env, "qpick", "T·MATRIX·FP64°OUT°MEDIAN°true", "SCALAR");
  check_same_error(env, "qpick", "T·MATRIX·FP64°OUT°IQM°true", "SCALAR");
  check_same_error(env, "qpick", "Z·MATRIX·FP64°OUT°MEDIAN°true", "SCALAR");
  check_same_error(env, "qpick", "Z·MATRIX·FP64°OUT°IQM°true", "SCALAR");
  CHECK_THAT(error_of(env, "GPU°qpick°T·MATRIX·FP64°G·SCALAR·FP64°MEDIAN°true"),
             Catch::Contains("weights must be integers, got 1.5 in row 1"));
}
