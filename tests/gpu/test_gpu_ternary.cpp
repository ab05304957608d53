// Ternary ifelse, +* and -* on the GPU against the same instruction on the CPU backend: every mix
// of full matrices, scalars and broadcast 1x1 matrices, over dense / sparse / ultra-sparse / empty
// inputs, 1x1, empty, odd and larger-than-block shapes, FP64 (1e-9) and FP32 (1e-4 on inputs
// rounded to float). All-scalar forms stay on the CPU. Each case names op, operands, shape,
// formats and precision.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

// One operand kind per position: a full-shape matrix, a scalar literal, or a 1x1 matrix.
enum class Kind { kMatrix, kScalar, kOne };
const char* kind_name(Kind k) {
  return k == Kind::kMatrix ? "M" : (k == Kind::kScalar ? "s" : "1x1");
}

const char* const kOpcodes[] = {"ifelse", "+*", "-*"};
const char* const kNames[] = {"A", "B", "C"};

std::string operand_text(Kind k, int pos, double s) {
  if (k == Kind::kScalar) {
    std::ostringstream os;
    os << s << "·SCALAR·FP64·true";
    return os.str();
  }
  return std::string(kNames[pos]) + "·MATRIX·FP64";
}

}  // namespace

TEST_CASE("gpu ternary matches the CPU for every operand mix, shape, format and precision",
          "[gpu][kernel][ternary]") {
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1}, {0, 4},   {4, 0},      {7, 1},
                                                           {1, 7}, {33, 65}, {1000, 1003}};
  const uint64_t seed = test::seed_from("gpu ternary");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    CpuEnv cpu;
    for (const char* opcode : kOpcodes)
      for (int pattern = 0; pattern < 27; ++pattern) {
        Kind kinds[3];
        for (int i = 0, p = pattern; i < 3; ++i, p /= 3) kinds[i] = static_cast<Kind>(p % 3);
        bool any_matrix = false;
        for (Kind k : kinds) any_matrix |= k != Kind::kScalar;
        if (!any_matrix) continue;  // all-scalar: the CPU test below
        for (const auto& [r, c] : shapes)
          for (size_t f = 0; f < formats().size(); ++f) {
            std::ostringstream label;
            label << "ternary " << opcode << " " << r << "x" << c << " " << prec_name(dt) << ":";
            std::string line = std::string("°") + opcode;
            for (int i = 0; i < 3; ++i) {
              const Format& fmt = formats()[(f + i) % formats().size()];
              const double s = i == 0 ? (pattern % 2 ? 0.0 : 1.5) : (i == 1 ? 2.5 : -0.75);
              label << " " << kNames[i] << "=" << kind_name(kinds[i]);
              if (kinds[i] == Kind::kMatrix) {
                MatrixBlock m = test::random_block(r, c, fmt.sparsity, seed + pattern * 7 + i, -2,
                                                   2, fmt.sparse);
                if (dt == mem::DType::kFloat32) m = rounded_f32(m);
                label << "(" << fmt.name << ")";
                env.bind(kNames[i], m);
                cpu.bind(kNames[i], m);
              } else if (kinds[i] == Kind::kOne) {
                // Half the 1x1 conditions are zero, so ifelse takes both branches.
                const double v = (i == 0 && f % 2) ? 0.0 : (i == 0 ? -1.25 : 0.5 + i);
                env.bind(kNames[i], test::dense_of(1, 1, {v}));
                cpu.bind(kNames[i], test::dense_of(1, 1, {v}));
              } else {
                label << "(" << s << ")";
              }
              line += "°" + operand_text(kinds[i], i, s);
            }
            line += "°OUT·MATRIX·FP64°2";
            INFO(label.str());
            // Every mix here is legal (1x1s broadcast); should one fail, both backends must fail
            // with the same message.
            bool on_gpu = false;
            std::string gpu_error, cpu_error;
            try {
              on_gpu = env.run("GPU" + line);
            } catch (const std::exception& e) {
              gpu_error = e.what();
            }
            try {
              cpu.run("CP" + line);
            } catch (const std::exception& e) {
              cpu_error = e.what();
            }
            CHECK(gpu_error == cpu_error);
            if (!gpu_error.empty() || !cpu_error.empty()) continue;
            CHECK(on_gpu);
            const auto cmp =
                test::compare(env.host("OUT"), *cpu.ec.matrix("OUT"), tol_of(dt), tol_of(dt));
            INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
            CHECK(cmp.ok);
          }
      }
  }
}

TEST_CASE("gpu ifelse treats NaN and -0 conditions like the CPU", "[gpu][kernel][ternary]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const MatrixBlock cond = test::dense_of(2, 3, {nan, 0.0, -0.0, 1.0, -3.0, nan});
  const MatrixBlock a = test::dense_of(2, 3, {1, 2, 3, 4, 5, 6});
  const MatrixBlock b = test::dense_of(2, 3, {-1, -2, -3, -4, -5, -6});
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    INFO("ifelse NaN/-0 conditions 2x3 dense " << prec_name(dt));
    GpuEnv env(dt);
    env.bind("C", cond);
    env.bind("A", a);
    env.bind("B", b);
    CHECK(env.run("GPU°ifelse°C·MATRIX·FP64°A·MATRIX·FP64°B·MATRIX·FP64°OUT·MATRIX·FP64"));
    // NaN != 0 is true in Java, so NaN selects the first branch; -0 == 0 selects the second.
    const auto cmp = test::compare(env.host("OUT"), 2, 3, {1, -2, -3, 4, 5, 6});
    INFO(cmp.report);
    CHECK(cmp.ok);
  }
}

TEST_CASE("gpu ternary rejects mismatched shapes with the CPU's message", "[gpu][ternary]") {
  GpuEnv env;
  CpuEnv cpu;
  const MatrixBlock x = test::random_block(3, 4, 1.0, 1);
  const MatrixBlock y = test::random_block(4, 3, 1.0, 2);
  env.bind("X", x);
  env.bind("Y", y);
  cpu.bind("X", x);
  cpu.bind("Y", y);
  const std::string line = "°+*°X·MATRIX·FP64°2·SCALAR·FP64·true°Y·MATRIX·FP64°OUT·MATRIX·FP64";
  CHECK_THROWS_WITH(env.run("GPU" + line),
                    Catch::Contains("+*: matrix operands differ in shape: 3x4, scalar, 4x3"));
  CHECK_THROWS_WITH(cpu.run("CP" + line),
                    Catch::Contains("+*: matrix operands differ in shape: 3x4, scalar, 4x3"));
  // An empty operand next to a full one is a mismatch too (the output takes the empty shape).
  env.bind("E", MatrixBlock::dense(0, 4));
  CHECK_THROWS_WITH(
      env.run("GPU°ifelse°X·MATRIX·FP64°E·MATRIX·FP64°1·SCALAR·FP64·true°OUT·MATRIX·FP64"),
      Catch::Contains("ifelse: matrix operands differ in shape: 3x4, 0x4, scalar"));
}

TEST_CASE("gpu ternary: all-scalar forms stay on the CPU", "[gpu][ternary]") {
  GpuEnv env(mem::DType::kFloat64, -1, mem::EvictionPolicy::kLru, inst::GpuMode::kForce);
  CHECK_FALSE(
      env.run("GPU°+*°1·SCALAR·FP64·true°2·SCALAR·FP64·true°3·SCALAR·FP64·true°s·SCALAR·FP64"));
  CHECK(env.ec->scalar("s").to_double() == 7.0);
  CHECK_FALSE(env.run(
      "CP°ifelse°0·SCALAR·FP64·true°10·SCALAR·INT64·true°20·SCALAR·INT64·true°t·SCALAR·INT64"));
  CHECK(env.ec->scalar("t").to_int() == 20);
}

TEST_CASE("gpu ternary under -gpu force runs CP lines on the device", "[gpu][ternary]") {
  GpuEnv env(mem::DType::kFloat64, -1, mem::EvictionPolicy::kLru, inst::GpuMode::kForce);
  const MatrixBlock x = test::random_block(40, 30, 1.0, 3);
  const MatrixBlock y = test::random_block(40, 30, 0.1, 4, -1, 1, true);
  env.bind("X", x);
  env.bind("Y", y);
  CHECK(env.run("CP°-*°X·MATRIX·FP64°0.5·SCALAR·FP64·true°Y·MATRIX·FP64°OUT·MATRIX·FP64°2"));
  CpuEnv cpu;
  cpu.bind("X", x);
  cpu.bind("Y", y);
  cpu.run("CP°-*°X·MATRIX·FP64°0.5·SCALAR·FP64·true°Y·MATRIX·FP64°OUT·MATRIX·FP64°2");
  const auto cmp = test::compare(env.host("OUT"), *cpu.ec.matrix("OUT"));
  INFO("-* X(40x30 dense) 0.5 Y(40x30 sparse0.1) FP64: " << cmp.report);
  CHECK(cmp.ok);
}
