// mmchain on the GPU against the same instruction on the CPU backend: XtXv, XtwXv and XtXvy over
// dense, sparse, ultra-sparse and empty X (and a sparse v) of empty, 1x1, vector, odd and
// larger-than-block shapes, FP64 (1e-9) and FP32 (1e-4 relative to the result's magnitude, on
// float-rounded inputs); nothing is copied to the host while an lmCG-like loop runs it on
// device-resident operands; CP lines under -gpu force and -gpu; the shape errors of check().
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

const std::string kX = "X·MATRIX·FP64", kV = "V·MATRIX·FP64", kW = "W·MATRIX·FP64";

// The operand fields of a chain type (the output is "OUT").
std::string fields_of(const std::string& type) {
  if (type == "XtXv") return kX + "°" + kV + "°OUT°XtXv";
  return kX + "°" + kV + "°" + kW + "°OUT°" + type;
}

double max_abs(const MatrixBlock& m) {
  double r = 0;
  for (int64_t i = 0; i < m.rows(); ++i)
    for (int64_t j = 0; j < m.cols(); ++j) r = std::max(r, std::fabs(m.get(i, j)));
  return r;
}

// Runs the chain on the CPU (CP line) and on the GPU (GPU line) and compares. FP32 products
// accumulate in float (cuBLAS, cuSPARSE): the tolerance scales with the largest result cell.
void check_case(GpuEnv& g, CpuEnv& c, const std::string& what, const std::string& type,
                mem::DType dt) {
  const std::string f = fields_of(type);
  INFO(what);
  MatrixBlock ref;
  try {
    c.run("CP°mmchain°" + with_out(f, "R·MATRIX·FP64") + "°8");
    ref = c.host("R");
  } catch (const std::exception& e) {
    FAIL_CHECK("CPU reference threw: " << e.what());
    return;
  }
  try {
    const int64_t d2h = g.gpu->stats().from_dev_bytes;
    const bool on_gpu = g.run("GPU°mmchain°" + with_out(f, "G·MATRIX·FP64"));
    CHECK(on_gpu);
    if (!on_gpu) return;
    CHECK(g.gpu->stats().from_dev_bytes == d2h);  // nothing came back
    const mem::DeviceMatrix* d = g.object("G")->device_copy();
    CHECK(d != nullptr);
    const double scale = dt == mem::DType::kFloat64 ? 1.0 : std::max(1.0, max_abs(ref));
    const auto cmp = test::compare(g.host("G"), ref, tol_of(dt) * scale, tol_of(dt));
    INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
    CHECK(cmp.ok);
  } catch (const std::exception& e) {
    FAIL_CHECK("GPU run threw: " << e.what());
  }
}

// Binds `m` as `name` on both backends.
void bind_both(GpuEnv& g, CpuEnv& c, const char* name, const MatrixBlock& m) {
  g.bind(name, m);
  c.bind(name, m);
}

struct Shape {
  int64_t rows, cols;
};

}  // namespace

TEST_CASE("gpu mmchain matches the CPU for every chain type, format and shape",
          "[gpu][cublas][cusparse][mmchain]") {
  const std::vector<Shape> shapes = {{0, 0},     {0, 5},     {5, 0},      {1, 1},
                                     {1, 9},     {9, 1},     {37, 23},    {300, 257},
                                     {2000, 31}, {31, 2000}, {1000, 1003}};
  const uint64_t seed = test::seed_from("gpu mmchain");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv g(dt);
    CpuEnv c;
    for (const Shape& s : shapes)
      for (const Format& fx : formats())
        for (bool sparse_v : {false, true}) {
          // A sparse v once, on a dense X (the conversion path); X takes every format.
          if (sparse_v && fx.sparse) continue;
          const MatrixBlock x = input(s.rows, s.cols, fx, seed + s.rows * 7 + s.cols, dt);
          const MatrixBlock v =
              input(s.cols, 1, formats()[sparse_v ? 1 : 0], seed + s.cols + 1, dt);
          const MatrixBlock w = input(s.rows, 1, formats()[0], seed + s.rows + 2, dt);
          bind_both(g, c, "X", x);
          bind_both(g, c, "V", v);
          bind_both(g, c, "W", w);
          for (const char* type : {"XtXv", "XtwXv", "XtXvy"}) {
            std::ostringstream what;
            what << "mmchain " << type << " X " << s.rows << "x" << s.cols << " " << fx.name
                 << (sparse_v ? ", sparse v " : " ") << prec_name(dt);
            check_case(g, c, what.str(), type, dt);
          }
        }
  }
}

TEST_CASE("gpu mmchain: an lmCG-like loop keeps X, v and the results on the device",
          "[gpu][mmchain]") {
  // Uploads once, then 5 chains whose v is the previous result: no device-to-host copy at all.
  for (double sparsity : {1.0, 0.01}) {
    GpuEnv g;
    CpuEnv c;
    const MatrixBlock x = test::random_block(3000, 200, sparsity, 11, -1, 1, sparsity < 1);
    const MatrixBlock v = test::random_block(200, 1, 1.0, 12, -1, 1);
    const MatrixBlock w = test::random_block(3000, 1, 1.0, 13, 0, 1);
    bind_both(g, c, "X", x);
    bind_both(g, c, "V", v);
    bind_both(g, c, "W", w);
    const std::string line =
        "mmchain°X·MATRIX·FP64°V·MATRIX·FP64°W·MATRIX·FP64°P·MATRIX·FP64°XtwXv";
    const std::string scale = "/°P·MATRIX·FP64°1000·SCALAR·FP64·true°V·MATRIX·FP64";
    for (int it = 0; it < 5; ++it) {
      INFO("iteration " << it << " X sparsity " << sparsity);
      REQUIRE(g.run("GPU°" + line));
      REQUIRE(g.run("GPU°" + scale));
      c.run("CP°" + line + "°8");
      c.run("CP°" + scale);
    }
    CHECK(g.gpu->stats().from_dev_n == 0);
    CHECK(g.gpu->stats().from_dev_bytes == 0);
    const auto cmp = test::compare(g.host("P"), c.host("P"));
    INFO(cmp.report);
    CHECK(cmp.ok);
  }
}

TEST_CASE("gpu mmchain: CP lines under -gpu force and -gpu run on the GPU", "[gpu][mmchain]") {
  for (inst::GpuMode mode : {inst::GpuMode::kForce, inst::GpuMode::kOn}) {
    GpuEnv g(mem::DType::kFloat64, -1, mem::EvictionPolicy::kLru, mode);
    CpuEnv c;
    const MatrixBlock x = test::random_block(257, 129, 0.1, 21, -1, 1, true);
    const MatrixBlock v = test::random_block(129, 1, 1.0, 22, -1, 1);
    const MatrixBlock y = test::random_block(257, 1, 1.0, 23, -1, 1);
    bind_both(g, c, "X", x);
    bind_both(g, c, "V", v);
    bind_both(g, c, "W", y);
    const std::string line = "CP°mmchain°" + with_out(fields_of("XtXvy"), "R·MATRIX·FP64") + "°8";
    INFO(line << (mode == inst::GpuMode::kForce ? " -gpu force" : " -gpu"));
    c.run(line);
    CHECK(g.run(line));
    const auto cmp = test::compare(g.host("R"), c.host("R"));
    INFO(cmp.report);
    CHECK(cmp.ok);
  }
}

TEST_CASE("gpu mmchain: shape errors as on the CPU", "[gpu][mmchain]") {
  GpuEnv g;
  g.bind("X", test::random_block(3, 2, 1.0, 1));
  g.bind("V", test::random_block(3, 1, 1.0, 2));
  g.bind("W", test::random_block(2, 1, 1.0, 3));
  check_same_error(g, "mmchain", fields_of("XtXv"));
  CHECK_THAT(error_of(g, "GPU°mmchain°" + with_out(fields_of("XtXv"), "G·MATRIX·FP64")),
             Catch::Contains("mmchain: v must be 2x1 for X 3x2, got 3x1"));
  g.bind("V", test::random_block(2, 1, 1.0, 2));
  check_same_error(g, "mmchain", fields_of("XtwXv"));
  CHECK_THAT(error_of(g, "GPU°mmchain°" + with_out(fields_of("XtwXv"), "G·MATRIX·FP64")),
             Catch::Contains("mmchain: w must be 3x1 for X 3x2, got 2x1"));
}
