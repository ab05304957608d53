// rand and seq on the GPU against the same instruction on the CPU backend: uniform / normal /
// poisson, sparsities from dense to ultra-sparse and zero, min == max (constant and zero), min >
// max, scalar dims given as INT64 and FP64 variables, 1x1, empty, odd and larger-than-block
// shapes, FP64 (the Philox cells give identical values) and FP32 (the values rounded to float);
// seq over several increments. Each case names op, shape, parameters and precision.
#include <catch2/catch.hpp>
#include <cmath>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

std::string num(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string rand_line(const std::string& prefix, const std::string& rows, const std::string& cols,
                      double min, double max, double sparsity, int64_t seed, const char* pdf,
                      double lambda) {
  return prefix + "°rand°" + rows + "°" + cols + "°1000°" + num(min) + "°" + num(max) + "°" +
         num(sparsity) + "°" + std::to_string(seed) + "°" + pdf + "°" + num(lambda) +
         "°2°OUT·MATRIX·FP64";
}

void compare_case(GpuEnv& env, CpuEnv& cpu, mem::DType dt) {
  const MatrixBlock ref = *cpu.ec.matrix("OUT");
  const MatrixBlock want = dt == mem::DType::kFloat64 ? ref : rounded_f32(ref);
  const MatrixBlock got = env.host("OUT");
  // FP64: the same Philox cells, so equal up to the last bit; FP32: those values rounded.
  const auto cmp = test::compare(got, want, dt == mem::DType::kFloat64 ? 1e-15 : 1e-7,
                                 dt == mem::DType::kFloat64 ? 1e-15 : 1e-7);
  INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err << " nnz got=" << got.nnz()
                  << " ref=" << ref.nnz());
  CHECK(cmp.ok);
}

}  // namespace

TEST_CASE("gpu rand matches the CPU cell for cell", "[gpu][kernel][datagen]") {
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1}, {0, 5},   {5, 0},      {1, 7},
                                                           {7, 1}, {33, 65}, {1000, 1003}};
  struct Params {
    const char* pdf;
    double min, max, lambda;
  };
  const std::vector<Params> params = {{"uniform", 0.0, 1.0, 1.0},  {"uniform", -2.5, 4.0, 1.0},
                                      {"uniform", 3.0, -1.0, 1.0}, {"uniform", 2.5, 2.5, 1.0},
                                      {"uniform", 0.0, 0.0, 1.0},  {"normal", 0.0, 1.0, 1.0},
                                      {"poisson", 0.0, 1.0, 3.5},  {"poisson", 0.0, 1.0, 0.25}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    CpuEnv cpu;
    for (const auto& [r, c] : shapes)
      for (const Params& p : params)
        for (double sparsity : {1.0, 0.5, 0.1, 0.001, 0.0})
          for (int64_t seed : {int64_t{7}, int64_t{123456789012}}) {
            INFO("rand " << p.pdf << " " << r << "x" << c << " min=" << p.min << " max=" << p.max
                         << " lambda=" << p.lambda << " sparsity=" << sparsity << " seed=" << seed
                         << " " << prec_name(dt));
            const std::string rows = std::to_string(r) + "·SCALAR·INT64·true";
            const std::string cols = std::to_string(c) + "·SCALAR·INT64·true";
            CHECK(env.run(
                rand_line("GPU", rows, cols, p.min, p.max, sparsity, seed, p.pdf, p.lambda)));
            cpu.run(rand_line("CP", rows, cols, p.min, p.max, sparsity, seed, p.pdf, p.lambda));
            compare_case(env, cpu, dt);
          }
  }
}

TEST_CASE("gpu rand reads dims from INT64 and FP64 variables like the CPU", "[gpu][datagen]") {
  GpuEnv env;
  CpuEnv cpu;
  for (auto* ec : {env.ec.get(), &cpu.ec}) {
    ec->set_scalar("r", inst::ScalarValue::int64(37));
    ec->set_scalar("c", inst::ScalarValue::fp64(12.0));  // SystemDS's toLong of a double
  }
  INFO("rand uniform r(INT64 var)=37 x c(FP64 var)=12 sparsity=0.3 seed=42 FP64");
  CHECK(env.run(rand_line("GPU", "r·SCALAR·INT64·false", "c·SCALAR·FP64·false", -1, 1, 0.3, 42,
                          "uniform", 1.0)));
  cpu.run(rand_line("CP", "r·SCALAR·INT64·false", "c·SCALAR·FP64·false", -1, 1, 0.3, 42, "uniform",
                    1.0));
  CHECK(env.host("OUT").rows() == 37);
  CHECK(env.host("OUT").cols() == 12);
  compare_case(env, cpu, mem::DType::kFloat64);
}

TEST_CASE("gpu rand with seed -1 draws a fresh seed per execution", "[gpu][datagen]") {
  GpuEnv env;
  const std::string line = rand_line("GPU", "50·SCALAR·INT64·true", "40·SCALAR·INT64·true", -1.0,
                                     2.0, 1.0, -1, "uniform", 1.0);
  CHECK(env.run(line));
  const MatrixBlock first = env.host("OUT");
  CHECK(env.run(line));
  const MatrixBlock second = env.host("OUT");
  INFO("rand uniform 50x40 seed=-1 FP64, two executions");
  REQUIRE(first.rows() == 50);
  REQUIRE(first.cols() == 40);
  bool in_range = true, differ = false;
  for (int64_t i = 0; i < 50; ++i)
    for (int64_t j = 0; j < 40; ++j) {
      const double v = first.get(i, j);
      in_range &= v >= -1.0 && v < 2.0;
      differ |= v != second.get(i, j);
    }
  CHECK(in_range);
  CHECK(differ);
}

TEST_CASE("gpu rand rejects bad characteristics with the CPU's message", "[gpu][datagen]") {
  GpuEnv env;
  CHECK_THROWS_WITH(env.run(rand_line("GPU", "-1·SCALAR·INT64·true", "2·SCALAR·INT64·true", 0, 1,
                                      1.0, 3, "uniform", 1.0)),
                    Catch::Contains("rand: invalid matrix characteristics: -1x2, sparsity 1.0"));
  CHECK_THROWS_WITH(env.run(rand_line("GPU", "2·SCALAR·INT64·true", "2·SCALAR·INT64·true", 0, 1,
                                      1.0, 3, "poisson", -1.0)),
                    Catch::Contains("rand: poisson lambda must be positive, got -1.0"));
}

TEST_CASE("gpu seq matches the CPU's repeated addition", "[gpu][kernel][datagen]") {
  struct Seq {
    double from, to, incr;
  };
  const std::vector<Seq> seqs = {{1, 10, 1},        {1, 2, 0.1},        {10, 1, -1},
                                 {3, 1, 1},         {0, 0, 1},          {-5, 5, 0.3},
                                 {1, 1e6, 1},       {0.1, 1000.1, 0.7}, {-1, -1e5, -3},
                                 {1e-3, 2.5, 1e-4}, {7, 7.5, 2.0}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    CpuEnv cpu;
    for (const Seq& s : seqs) {
      INFO("seq from=" << s.from << " to=" << s.to << " incr=" << s.incr << " " << prec_name(dt));
      const std::string tail = "°-1°1°1000°" + num(s.from) + "·SCALAR·FP64·true°" + num(s.to) +
                               "·SCALAR·FP64·true°" + num(s.incr) +
                               "·SCALAR·FP64·true°OUT·MATRIX·FP64";
      CHECK(env.run("GPU°seq" + tail));
      cpu.run("CP°seq" + tail);
      compare_case(env, cpu, dt);
    }
  }
}

TEST_CASE("gpu seq rejects a wrong increment with the CPU's message", "[gpu][datagen]") {
  GpuEnv env;
  CHECK_THROWS_WITH(
      env.run("GPU°seq°-1°1°1000°5·SCALAR·FP64·true°1·SCALAR·FP64·true°2·SCALAR·FP64·true°"
              "OUT·MATRIX·FP64"),
      Catch::Contains("seq: wrong sequence increment: from=5.0, to=1.0, incr=2.0"));
  CHECK_THROWS_WITH(
      env.run("GPU°seq°-1°1°1000°1·SCALAR·FP64·true°5·SCALAR·FP64·true°-1·SCALAR·FP64·true°"
              "OUT·MATRIX·FP64"),
      Catch::Contains("seq: invalid seq parameters: (1.0, 5.0, -1.0)"));
}
