// solve on the GPU (cuSOLVER getrf + getrs) against the same instruction on the CPU backend (LAPACK
// dgesv). Conditioning: A = R + n*I with R uniform in [-1, 1) at the stated sparsity, so A is
// strictly diagonally dominant with cond(A) of a few units; FP64 agrees to 1e-9, FP32 (inputs
// rounded to float) to 1e-4 relative to max|x| (times sqrt(n)/4 for n > 16: LU's rounding grows
// with n). Dense / sparse / ultra-sparse A and b, empty systems, 1x1, odd and larger-than-block n,
// several right-hand sides; shape errors and a singular A with the CPU's messages.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

const char* const kLine = "°solve°A·MATRIX·FP64°B·MATRIX·FP64°X·MATRIX·FP64°2";

// R + n*I in R's format.
MatrixBlock dominant(int64_t n, const Format& f, uint64_t seed) {
  const MatrixBlock r = test::random_block(n, n, f.sparsity, seed, -1, 1, false);
  std::vector<double> v = r.to_dense().dense_values();
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i * n + i)] += static_cast<double>(n);
  MatrixBlock a = MatrixBlock::dense(n, n, std::move(v));
  return f.sparse ? a.to_sparse() : a;
}

double max_abs(const MatrixBlock& m) {
  const MatrixBlock d = m.to_dense();
  double mx = 0.0;
  for (double v : d.dense_values()) mx = std::max(mx, std::abs(v));
  return mx;
}

}  // namespace

TEST_CASE("gpu solve matches the CPU on all formats, shapes and precisions",
          "[gpu][cusolver][solve]") {
  const uint64_t seed = test::seed_from("gpu solve");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    CpuEnv cpu;
    for (int64_t n : {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{33}, int64_t{257}, int64_t{1000}})
      for (int64_t k : {int64_t{1}, int64_t{3}, int64_t{17}})
        for (const Format& fa : formats()) {
          if (fa.sparsity == 0.0) continue;  // an empty A is singular: see the error test
          for (const Format& fb : formats()) {
            MatrixBlock a = dominant(n, fa, seed + n);
            MatrixBlock b = test::random_block(n, k, fb.sparsity, seed + k, -1, 1, fb.sparse);
            if (dt == mem::DType::kFloat32) {
              a = rounded_f32(a);
              b = rounded_f32(b);
            }
            INFO("solve A(" << n << "x" << n << " " << fa.name << " + n*I) b(" << n << "x" << k
                            << " " << fb.name << ") " << prec_name(dt));
            env.bind("A", a);
            env.bind("B", b);
            cpu.bind("A", a);
            cpu.bind("B", b);
            CHECK(env.run(std::string("GPU") + kLine));
            cpu.run(std::string("CP") + kLine);
            const MatrixBlock ref = *cpu.ec.matrix("X");
            const double scale = dt == mem::DType::kFloat64
                                     ? 1.0
                                     : max_abs(ref) * std::max(1.0, std::sqrt(double(n)) / 4);
            const auto cmp = test::compare(env.host("X"), ref, tol_of(dt) * scale, tol_of(dt));
            INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err << " max|x|=" << max_abs(ref));
            CHECK(cmp.ok);
          }
        }
  }
}

TEST_CASE("gpu solve of empty systems gives the CPU's empty result", "[gpu][cusolver][solve]") {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [n, k] : std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {0, 3}, {4, 0}}) {
      INFO("solve A(" << n << "x" << n << ") b(" << n << "x" << k << ") " << prec_name(dt));
      env.bind("A", n == 0 ? MatrixBlock::dense(0, 0) : dominant(n, formats()[0], 5));
      env.bind("B", MatrixBlock::dense(n, k));
      CHECK(env.run(std::string("GPU") + kLine));
      const MatrixBlock x = env.host("X");
      CHECK(x.rows() == n);
      CHECK(x.cols() == k);
    }
  }
}

TEST_CASE("gpu solve rejects bad shapes and singular A with the CPU's messages",
          "[gpu][cusolver][solve]") {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    CpuEnv cpu;
    auto both = [&](const MatrixBlock& a, const MatrixBlock& b, const std::string& expected) {
      env.bind("A", a);
      env.bind("B", b);
      cpu.bind("A", a);
      cpu.bind("B", b);
      const std::string ge = error_of([&] { env.run(std::string("GPU") + kLine); });
      const std::string ce = error_of([&] { cpu.run(std::string("CP") + kLine); });
      INFO("solve A " << a.rows() << "x" << a.cols() << " b " << b.rows() << "x" << b.cols() << " "
                      << prec_name(dt) << ": GPU error '" << ge << "', CPU error '" << ce << "'");
      CHECK(ge == ce);
      CHECK_THAT(ge, Catch::Contains(expected));
    };
    both(test::random_block(3, 4, 1.0, 1), test::random_block(3, 1, 1.0, 2),
         "solve: A must be square, got 3x4");
    both(test::random_block(3, 3, 1.0, 1), test::random_block(4, 2, 1.0, 2),
         "solve: A is 3x3 but b is 4x2 (row counts differ)");
    // Column 2 is zero: elimination keeps it zero exactly, so U(2,2) = 0 on both backends.
    both(test::dense_of(3, 3, {4, 0, 1, 2, 0, 5, 1, 0, 3}), test::random_block(3, 2, 1.0, 3),
         "solve: matrix is singular: U(2,2) of the LU factorisation of the 3x3 A is exactly zero");
    // An all-zero (empty sparse) A fails at the first pivot.
    both(MatrixBlock::empty_sparse(5, 5), test::random_block(5, 1, 1.0, 4),
         "solve: matrix is singular: U(1,1) of the LU factorisation of the 5x5 A is exactly zero");
  }
}

TEST_CASE("gpu solve leaves its inputs' device copies intact", "[gpu][cusolver][solve]") {
  GpuEnv env;
  const MatrixBlock a = dominant(50, formats()[0], 11);
  const MatrixBlock b = test::random_block(50, 4, 1.0, 12);
  env.bind("A", a);
  env.bind("B", b);
  CHECK(env.run(std::string("GPU") + kLine));
  CHECK(env.run(std::string("GPU") + kLine));  // A and b are read again from the device
  // A %*% X on the device must give b back.
  CHECK(env.run("GPU°ba+*°A·MATRIX·FP64°X·MATRIX·FP64°AX·MATRIX·FP64°1°false°false"));
  const auto cmp = test::compare(env.host("AX"), b, 1e-9, 1e-9);
  INFO("solve 50x50 dense, 4 rhs, FP64: A %*% X vs b: " << cmp.report);
  CHECK(cmp.ok);
  CHECK(env.host("A").get(3, 7) == a.get(3, 7));
}
