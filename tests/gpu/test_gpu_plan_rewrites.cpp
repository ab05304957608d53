// The conv + ReLU plan rewrite (runtime/plan_rewrites.h) on the device: the plan SystemDS --gpu
// emits for R = max(conv2d_bias_add(X, b, W), 0), run through the interpreter fused
// (GPU conv2d_bias_add_relu + cpvar, the ReLU in the conv's bias epilogue) and unfused (GPU max) in
// one session, so both use the same cached cuDNN algorithm: same NaN cells, same values, no -0.0
// (Java's Math.max(-0.0, 0) is +0.0); finite inputs also against the CPU backend. Dense and CSR
// images, FP64 and FP32.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_env.h"
#include "runtime/config.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"
#include "runtime/plan_rewrites.h"

namespace dmlrt::test::gpu {
namespace {

// stride 1x1, pad 1x1, N=5 C=3 H=7 W=6, K=4 R=3 S=3 -> P=7 Q=6: X 5x126, W 4x27, b 4x1.
const std::vector<int> kShape = {1, 1, 1, 1, 5, 3, 7, 6, 4, 3, 3, 3};

std::string plan_text(bool zero_first) {
  std::string conv = "GPU°conv2d_bias_add°X·MATRIX·FP64°b·MATRIX·FP64°W·MATRIX·FP64";
  for (int v : kShape) conv += "°" + std::to_string(v) + "·SCALAR·INT64·true";
  conv += "°_mVar1·MATRIX·FP64°0.0";
  const std::string a = "_mVar1·MATRIX·FP64", zero = "0·SCALAR·INT64·true";
  const std::string max =
      "GPU°max°" + (zero_first ? zero + "°" + a : a + "°" + zero) + "°_mVar2·MATRIX·FP64";
  const std::string cv = "°true°MATRIX°binary°-1°-1°1000°-1°copy\n";
  return "PROGRAM\n--MAIN PROGRAM\n----GENERIC (lines 1-5) [recompile=false]\n"
         "------CP°createvar°_mVar1°scratch_space/temp1" +
         cv + "------" + conv + "\n" + "------CP°createvar°_mVar2°scratch_space/temp2" + cv +
         "------" + max + "\n" + "------CP°rmvar°_mVar1\n------CP°mvvar°_mVar2°R\n";
}

struct Inputs {
  MatrixBlock x, w, b;
};

// Runs `program` with the inputs bound, on `gpu` (null: the CPU backend); returns R.
MatrixBlock run_r(const runtime::Program& program, const Inputs& in,
                  std::shared_ptr<mem::GpuSession> gpu, runtime::Statistics* stats) {
  std::ostringstream out;
  runtime::Interpreter interp(program, out, stats);
  inst::RunOptions ro;
  ro.gpu = std::move(gpu);
  inst::ExecutionContext ec(interp, ro);
  ec.set_matrix("X", in.x);
  ec.set_matrix("W", in.w);
  ec.set_matrix("b", in.b);
  interp.run(ec);
  CHECK(ec.find("_mVar1") == nullptr);
  return *ec.matrix("R");
}

// NaN where ref is NaN, infinities equal, finite cells within tol + tol*|ref|.
void check_same(const MatrixBlock& got, const MatrixBlock& ref, double tol,
                const std::string& what) {
  INFO(what);
  const test::CompareResult cmp = test::compare(got, ref, tol, tol);
  INFO(cmp.report);
  CHECK(cmp.ok);
}

int64_t negative_cells(const MatrixBlock& m) {
  int64_t n = 0;
  for (int64_t r = 0; r < m.rows(); ++r)
    for (int64_t c = 0; c < m.cols(); ++c) {
      const double v = m.get(r, c);
      n += !std::isnan(v) && std::signbit(v) ? 1 : 0;
    }
  return n;  // negative values and -0.0
}

}  // namespace

TEST_CASE("gpu plan rewrite: fused conv2d_bias_add_relu equals the unfused GPU plan and the CPU",
          "[gpu][rewrite][cudnn]") {
  const uint64_t seed = test::seed_from("gpu plan rewrite conv relu");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    mem::GpuSessionOptions o = GpuEnv::options(dt);
    o.cudnn_cache_dir = "none";
    o.sync_each_instruction = true;  // a fault is reported at its instruction
    auto gpu = std::make_shared<mem::GpuSession>(o, 0);
    for (bool sparse : {false, true})
      for (bool specials : {false, true})
        for (bool zero_first : {false, true}) {
          if (sparse && specials) continue;
          const std::string what = std::string(prec_name(dt)) + (sparse ? " CSR X" : " dense X") +
                                   (specials ? " with NaN/Inf/-0" : "") +
                                   (zero_first ? " max(0, A)" : " max(A, 0)");
          const uint64_t s = seed + (sparse ? 10 : 0) + (specials ? 20 : 0);
          Inputs in{test::random_block(5, 126, sparse ? 0.1 : 1.0, s + 1, -1.0, 1.0, sparse),
                    test::random_block(4, 27, 1.0, s + 2), test::random_block(4, 1, 1.0, s + 3)};
          if (specials) {
            std::vector<double>& x = in.x.dense_values();
            const double inf = std::numeric_limits<double>::infinity();
            x[3] = std::numeric_limits<double>::quiet_NaN();
            x[130] = inf;
            x[300] = -inf;
            for (size_t i = 3 * 126; i < 4 * 126; ++i) x[i] = -0.0;  // image 3: all -0
            in.b.dense_values()[1] = -0.0;
          }
          if (dt == mem::DType::kFloat32) {  // what the device holds
            in = {rounded_f32(in.x), rounded_f32(in.w), rounded_f32(in.b)};
          }
          const runtime::Program plain = runtime::parse_plan(plan_text(zero_first), "g.plan");
          runtime::Program fused = runtime::parse_plan(plan_text(zero_first), "g.plan");
          REQUIRE(runtime::apply_plan_rewrites(fused, runtime::RuntimeConfig{}).conv_relu_fused ==
                  1);
          // A first run times and caches the cuDNN algorithm, so the two compared runs use the
          // same one (algorithms may place NaN from an Inf input differently).
          run_r(plain, in, gpu, nullptr);
          runtime::Statistics st_plain, st_fused;
          const MatrixBlock g0 = run_r(plain, in, gpu, &st_plain);
          const MatrixBlock g1 = run_r(fused, in, gpu, &st_fused);
          INFO(what);
          CHECK(st_fused.entries().count("gpu_conv2d_bias_add_relu") == 1);
          CHECK(st_fused.entries().count("gpu_max") == 0);
          CHECK(st_plain.entries().count("gpu_max") == 1);
          check_same(g1, g0, tol_of(dt), what + ": fused vs unfused GPU");
          CHECK(negative_cells(g1) == 0);
          if (!specials) {
            const MatrixBlock cpu = run_r(plain, in, nullptr, nullptr);
            check_same(g1, cpu, tol_of(dt), what + ": fused GPU vs CPU");
          }
        }
  }
}

}  // namespace dmlrt::test::gpu
