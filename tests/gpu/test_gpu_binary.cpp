// Cell-wise binary ops on the GPU against the CPU backend: matrix-matrix (same shape, column and
// row vector, outer), matrix-scalar with the scalar on either side, over dense / sparse /
// ultra-sparse / empty inputs, 1x1, odd and larger-than-block shapes, FP64 (1e-9) and FP32 (1e-4
// relative, smooth ops on float-rounded inputs).
#include <catch2/catch.hpp>

#include <cmath>

#include "gpu_env.h"
#include "kernels/cpu/binary.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;
using kernels::cpu::BinaryOp;

namespace {

struct OpCase {
  const char* opcode;
  BinaryOp op;
  bool smooth;  // continuous: tested in FP32 too
};
const std::vector<OpCase>& ops() {
  static const std::vector<OpCase> v = {
      {"+", BinaryOp::kPlus, true},     {"-", BinaryOp::kMinus, true},
      {"*", BinaryOp::kMult, true},     {"/", BinaryOp::kDiv, true},
      {"min", BinaryOp::kMin, true},    {"max", BinaryOp::kMax, true},
      {"^", BinaryOp::kPow, false},     {"%%", BinaryOp::kMod, false},
      {"%/%", BinaryOp::kIntDiv, false}, {"==", BinaryOp::kEq, false},
      {"!=", BinaryOp::kNeq, false},    {"<", BinaryOp::kLt, false},
      {">=", BinaryOp::kGe, false},     {"&&", BinaryOp::kAnd, false},
      {"||", BinaryOp::kOr, false},     {"1-*", BinaryOp::kMinus1Mult, true},
      {"-nz", BinaryOp::kMinusNz, false}};
  return v;
}

void compare_or_fail(const MatrixBlock& got, const MatrixBlock& ref, mem::DType dt) {
  const auto cmp = test::compare(got, ref, tol_of(dt), tol_of(dt));
  INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
  REQUIRE(cmp.ok);
}

}  // namespace

TEST_CASE("gpu binary matrix-matrix matches the CPU", "[gpu][kernel]") {
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1}, {0, 4}, {4, 0}, {7, 1},
                                                           {1, 7}, {33, 65}, {257, 1025}};
  const uint64_t seed = test::seed_from("gpu binary mm");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);  // one session per precision; inputs are rebound per case
    for (const OpCase& oc : ops()) {
      if (dt == mem::DType::kFloat32 && !oc.smooth) continue;
      for (const auto& [r, c] : shapes)
        for (const char* bc : {"same", "col", "row", "outer"})
          for (const Format& fa : formats())
            for (const Format& fb : formats()) {
              const std::string bcs = bc;
              const int64_t ar = r, ac = bcs == "outer" ? 1 : c;
              const int64_t br = bcs == "row" || bcs == "outer" ? 1 : r;
              const int64_t bcc = bcs == "col" ? 1 : c;
              MatrixBlock a = test::random_block(ar, ac, fa.sparsity, seed + r, -2, 2, fa.sparse);
              MatrixBlock b = test::random_block(br, bcc, fb.sparsity, seed + c, -2, 2, fb.sparse);
              if (dt == mem::DType::kFloat32) {
                a = rounded_f32(a);
                b = rounded_f32(b);
              }
              INFO("binary " << oc.opcode << " " << bcs << " A(" << ar << "x" << ac << " "
                             << fa.name << ") B(" << br << "x" << bcc << " " << fb.name << ") "
                             << prec_name(dt));
              const MatrixBlock ref = kernels::cpu::binary_matrix_matrix(oc.op, a, b);
              env.bind("A", a);
              env.bind("B", b);
              REQUIRE(env.run(std::string("GPU°") + oc.opcode +
                              "°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64"));
              compare_or_fail(env.host("C"), ref, dt);
            }
    }
  }
}

TEST_CASE("gpu binary matrix-scalar matches the CPU, scalar on either side", "[gpu][kernel]") {
  const uint64_t seed = test::seed_from("gpu binary ms");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const OpCase& oc : ops()) {
      if (dt == mem::DType::kFloat32 && !oc.smooth) continue;
      for (const auto& [r, c] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {0, 3}, {65, 33},
                                                                         {1000, 1003}})
        for (const Format& f : formats())
          for (double s : {0.0, 1.0, -2.5, 3.0})
            for (bool left : {false, true}) {
              MatrixBlock a = test::random_block(r, c, f.sparsity, seed + r, -3, 3, f.sparse);
              if (dt == mem::DType::kFloat32) a = rounded_f32(a);
              INFO("binary " << oc.opcode << " " << (left ? "s op A" : "A op s") << " A(" << r
                             << "x" << c << " " << f.name << ") s=" << s << " " << prec_name(dt));
              const MatrixBlock ref = kernels::cpu::binary_matrix_scalar(oc.op, a, s, left);
              env.bind("A", a);
              std::ostringstream sv;
              sv << s << "·SCALAR·FP64·true";
              const std::string line =
                  std::string("GPU°") + oc.opcode + "°" +
                  (left ? sv.str() + "°A·MATRIX·FP64" : "A·MATRIX·FP64°" + sv.str()) +
                  "°C·MATRIX·FP64";
              REQUIRE(env.run(line));
              compare_or_fail(env.host("C"), ref, dt);
            }
    }
  }
}

TEST_CASE("gpu binary rejects incompatible shapes like the CPU", "[gpu]") {
  GpuEnv env;
  env.bind("A", test::random_block(3, 4, 1.0, 1));
  env.bind("B", test::random_block(2, 4, 1.0, 2));
  REQUIRE_THROWS_WITH(env.run("GPU°+°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64"),
                      Catch::StartsWith("+: incompatible shapes 3x4 and 2x4"));
}

TEST_CASE("gpu binary chains stay on the device; a CPU read keeps the device copy", "[gpu]") {
  GpuEnv env;
  MatrixBlock a = test::random_block(100, 100, 1.0, 5);
  env.bind("A", a);
  REQUIRE(env.run("GPU°*°A·MATRIX·FP64°2·SCALAR·FP64·true°B·MATRIX·FP64"));
  REQUIRE(env.run("GPU°+°B·MATRIX·FP64°A·MATRIX·FP64°C·MATRIX·FP64"));
  const int64_t d2h_before = env.gpu->stats().from_dev_n;
  CHECK(d2h_before == 0);  // nothing came back yet
  const MatrixBlock c = env.host("C");
  CHECK(env.gpu->stats().from_dev_n == 1);
  CHECK(env.object("C")->has_device_copy());  // no ping-pong: the device copy stays valid
  const int64_t h2d = env.gpu->stats().to_dev_n;
  REQUIRE(env.run("GPU°-°C·MATRIX·FP64°1·SCALAR·FP64·true°D·MATRIX·FP64"));
  CHECK(env.gpu->stats().to_dev_n == h2d);  // C was still on the device
  const MatrixBlock ref = kernels::cpu::binary_matrix_scalar(
      BinaryOp::kMinus, kernels::cpu::binary_matrix_matrix(
                            BinaryOp::kPlus,
                            kernels::cpu::binary_matrix_scalar(BinaryOp::kMult, a, 2, false), a),
      1, false);
  compare_or_fail(env.host("D"), ref, mem::DType::kFloat64);
}
