// tsmm LEFT (t(X) %*% X) and RIGHT (X %*% t(X)) on the GPU against the same instruction on the CPU
// backend: dense X through cuBLAS syrk plus the triangle copy, CSR X through SpGEMM, over dense /
// sparse / ultra-sparse / empty inputs, vector, 1x1, empty, odd and larger-than-block shapes,
// FP64 (1e-9) and FP32 (1e-4 relative to the size of the dot products, inputs rounded to float).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

TEST_CASE("gpu tsmm matches the CPU on all formats, shapes and precisions",
          "[gpu][cublas][cusparse][tsmm]") {
  const std::vector<std::pair<int64_t, int64_t>> shapes = {
      {1, 1}, {0, 4}, {4, 0}, {1, 7}, {7, 1}, {2000, 1}, {1, 2000}, {33, 65}, {65, 33}, {300, 257},
      {1000, 1003}};
  const uint64_t seed = test::seed_from("gpu tsmm");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    CpuEnv cpu;
    for (const auto& [r, c] : shapes)
      for (const Format& f : formats())
        for (const char* type : {"LEFT", "RIGHT"}) {
          MatrixBlock x = test::random_block(r, c, f.sparsity, seed + r * 13 + c, -1, 1, f.sparse);
          if (dt == mem::DType::kFloat32) x = rounded_f32(x);
          INFO("tsmm " << type << " X(" << r << "x" << c << " " << f.name << ") " << prec_name(dt));
          env.bind("X", x);
          cpu.bind("X", x);
          const std::string line = std::string("°tsmm°X·MATRIX·FP64°C·MATRIX·FP64°") + type + "°2";
          CHECK(env.run("GPU" + line));
          cpu.run("CP" + line);
          const MatrixBlock ref = *cpu.ec.matrix("C");
          const MatrixBlock got = env.host("C");
          const int64_t k = std::string(type) == "LEFT" ? r : c;
          const double atol =
              dt == mem::DType::kFloat64 ? 1e-9 : 1e-4 * std::max<int64_t>(1, k) / 8;
          const auto cmp = test::compare(got, ref, atol, tol_of(dt));
          INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
          CHECK(cmp.ok);
          // A dense X's result is exactly symmetric (syrk's triangle is copied); SpGEMM computes
          // (i, j) and (j, i) separately, so a CSR X's may differ in the last bits.
          if (f.sparse) continue;
          bool symmetric = got.rows() == got.cols();
          for (int64_t i = 0; symmetric && i < got.rows() && i < 64; ++i)
            for (int64_t j = 0; j < i; ++j) symmetric &= got.get(i, j) == got.get(j, i);
          CHECK(symmetric);
        }
  }
}

TEST_CASE("gpu tsmm of a device-resident result chains without a host copy", "[gpu][tsmm]") {
  GpuEnv env;
  const MatrixBlock x = test::random_block(200, 50, 1.0, 9);
  env.bind("X", x);
  CHECK(env.run("GPU°*°X·MATRIX·FP64°2·SCALAR·FP64·true°Y·MATRIX·FP64"));
  CHECK(env.run("GPU°tsmm°Y·MATRIX·FP64°C·MATRIX·FP64°LEFT°2"));
  CHECK(env.gpu->stats().from_dev_n == 0);
  CpuEnv cpu;
  cpu.bind("X", x);
  cpu.run("CP°*°X·MATRIX·FP64°2·SCALAR·FP64·true°Y·MATRIX·FP64");
  cpu.run("CP°tsmm°Y·MATRIX·FP64°C·MATRIX·FP64°LEFT°2");
  const auto cmp = test::compare(env.host("C"), *cpu.ec.matrix("C"));
  INFO("tsmm LEFT of 2*X (200x50 dense, device-resident) FP64: " << cmp.report);
  CHECK(cmp.ok);
}
