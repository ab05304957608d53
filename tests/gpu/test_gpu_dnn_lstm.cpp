// lstm / lstm_backward in the GPU layout (out°cy; the backward without caches) on cuDNN against
// the same lines on the CPU backend: every output of forward and backward, return_sequences both
// ways, N/T/D/M of 1 and odd sizes, dense / 0.1-sparse / 0.001-sparse / empty X and a sparse W,
// an empty batch, FP64 (1e-9) and FP32 (1e-4 on float-rounded inputs); errors identical to the
// CPU's; the CP layout (caches) staying on the CPU under -gpu force (Note [LSTM placement]).
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

const std::string kM = "·MATRIX·FP64";

std::string flag(bool v) { return std::string(v ? "true" : "false") + "·SCALAR·BOOLEAN·true"; }

std::string inputs6(bool rs) {
  return "X" + kM + "°W" + kM + "°b" + kM + "°out0" + kM + "°c0" + kM + "°" + flag(rs);
}
// GPU-layout lines; `p` prefixes the output names.
std::string forward_line(const char* exec, bool rs, const std::string& p) {
  return std::string(exec) + "°lstm°" + inputs6(rs) + "°" + p + "out" + kM + "°" + p + "cy" + kM;
}
std::string backward_line(const char* exec, bool rs, const std::string& p) {
  std::string s = std::string(exec) + "°lstm_backward°" + inputs6(rs) + "°dout" + kM + "°dc" + kM;
  for (const char* o : {"dX", "dW", "db", "dout0", "dc0"}) s += "°" + p + o + kM;
  return s;
}

struct Shape {
  int64_t n, t, d, m;
};

// Largest error seen per precision, reported at the end (the measured cuDNN-vs-CPU gap).
double g_max_err[2] = {0, 0};

MatrixBlock scaled(MatrixBlock b, double s, mem::DType dt) {
  MatrixBlock d = b.to_dense();
  for (double& v : d.dense_values()) v *= s;
  if (dt == mem::DType::kFloat32) d = rounded_f32(d);
  return b.is_sparse() ? d.to_sparse() : d;
}

void bind_case(GpuEnv& env, const Shape& s, bool rs, const Format& xf, const Format& wf,
               uint64_t seed, mem::DType dt) {
  env.bind("X", input(s.n, s.t * s.d, xf, seed + 1, dt));
  // Weights in [-0.5, 0.5]: gates stay away from saturation, so FP32 keeps 1e-4.
  env.bind("W", scaled(input(s.d + s.m, 4 * s.m, wf, seed + 2, dt), 0.25, dt));
  env.bind("b", scaled(input(1, 4 * s.m, formats()[0], seed + 3, dt), 0.25, dt));
  env.bind("out0", scaled(input(s.n, s.m, formats()[0], seed + 4, dt), 0.25, dt));
  env.bind("c0", scaled(input(s.n, s.m, formats()[0], seed + 5, dt), 0.25, dt));
  env.bind("dout", input(s.n, rs ? s.t * s.m : s.m, formats()[0], seed + 6, dt));
  env.bind("dc", input(s.n, s.m, formats()[0], seed + 7, dt));
}

void compare_outputs(GpuEnv& env, mem::DType dt, const std::vector<std::string>& names) {
  for (const std::string& o : names) {
    INFO("output " << o);
    const auto cmp = test::compare(env.host("G" + o), env.host("R" + o), tol_of(dt), tol_of(dt));
    INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
    CHECK(cmp.ok);
    double& worst = g_max_err[dt == mem::DType::kFloat64 ? 0 : 1];
    worst = std::max(worst, cmp.max_abs_err);
  }
}

// Forward and backward of one case on the CPU (R*) and the GPU (G*), all outputs compared.
void check_case(GpuEnv& env, mem::DType dt, const Shape& s, bool rs, const std::string& label) {
  INFO(label << " " << prec_name(dt) << " return_sequences=" << rs);
  try {
    env.run(forward_line("CP", rs, "R"));
    CHECK(env.run(forward_line("GPU", rs, "G")));
    compare_outputs(env, dt, {"out", "cy"});
    const MatrixBlock out = env.host("Gout");
    CHECK(out.rows() == s.n);
    CHECK(out.cols() == (rs ? s.t * s.m : s.m));
    env.run(backward_line("CP", rs, "R"));
    CHECK(env.run(backward_line("GPU", rs, "G")));
    compare_outputs(env, dt, {"dX", "dW", "db", "dout0", "dc0"});
  } catch (const std::exception& e) {
    FAIL_CHECK("threw: " << e.what());
  }
}

std::string label_of(const Shape& s, const Format& xf, const Format& wf) {
  std::ostringstream os;
  os << "lstm N=" << s.n << " T=" << s.t << " D=" << s.d << " M=" << s.m << " X " << xf.name
     << " W " << wf.name;
  return os.str();
}

}  // namespace

TEST_CASE("gpu lstm and lstm_backward (cuDNN) match the CPU", "[gpu][dnn][cudnn]") {
  const uint64_t seed = test::seed_from("gpu lstm");
  const std::vector<Shape> shapes = {{1, 1, 1, 1}, {3, 4, 2, 3},    {1, 7, 5, 1},
                                     {5, 1, 3, 4}, {17, 9, 13, 11}, {64, 20, 32, 48}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const Shape& s : shapes)
      for (bool rs : {true, false})
        for (const Format& xf : formats()) {
          bind_case(env, s, rs, xf, formats()[0], seed + s.n * 31 + s.t, dt);
          check_case(env, dt, s, rs, label_of(s, xf, formats()[0]));
        }
  }
  WARN("lstm cuDNN vs CPU: max |err| FP64 " << g_max_err[0] << ", FP32 " << g_max_err[1]);
}

TEST_CASE("gpu lstm: sparse and empty W, an empty batch", "[gpu][dnn][cudnn]") {
  const uint64_t seed = test::seed_from("gpu lstm sparse W");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    const Shape s{6, 5, 7, 3};
    for (const Format& wf : formats())
      for (bool rs : {true, false}) {
        bind_case(env, s, rs, formats()[1], wf, seed, dt);
        check_case(env, dt, s, rs, label_of(s, formats()[1], wf));
      }
    // N = 0: empty outputs and zero weight gradients on both backends.
    const Shape e{0, 3, 2, 2};
    for (bool rs : {true, false}) {
      bind_case(env, e, rs, formats()[0], formats()[0], seed + 1, dt);
      check_case(env, dt, e, rs, "lstm empty batch");
    }
  }
}

TEST_CASE("gpu lstm: shape and layout errors are the CPU's", "[gpu][dnn][cudnn]") {
  GpuEnv env(mem::DType::kFloat64);
  const Shape s{3, 4, 2, 3};
  bind_case(env, s, true, formats()[0], formats()[0], 7, mem::DType::kFloat64);
  auto same_error = [&](const std::string& cp, const std::string& gpu) {
    const std::string ce = error_of(env, cp), ge = error_of(env, gpu);
    INFO(cp);
    CHECK(ce != "<no error>");
    CHECK(ge == ce);
  };
  // Each bad input in turn, then restored.
  auto with_bad = [&](const char* var, MatrixBlock bad, bool backward, bool rs) {
    const MatrixBlock keep = env.host(var);
    env.bind(var, std::move(bad));
    if (backward)
      same_error(backward_line("CP", rs, "R"), backward_line("GPU", rs, "G"));
    else
      same_error(forward_line("CP", rs, "R"), forward_line("GPU", rs, "G"));
    env.bind(var, keep);
  };
  with_bad("c0", MatrixBlock::dense(3, 2), false, true);
  with_bad("W", MatrixBlock::dense(5, 10), false, true);
  with_bad("b", MatrixBlock::dense(12, 1), false, false);
  with_bad("X", MatrixBlock::dense(3, 7), false, true);
  with_bad("out0", MatrixBlock::dense(3, 0), false, true);
  with_bad("dout", MatrixBlock::dense(3, 3), true, true);
  with_bad("dc", MatrixBlock::dense(2, 3), true, true);
  // A malformed line fails at parse time with the same message under either prefix.
  const std::string bad = "°lstm°" + inputs6(true) + "°out" + kM;
  const std::string cpu_msg = error_of(env, "CP" + bad), gpu_msg = error_of(env, "GPU" + bad);
  CHECK_THAT(cpu_msg, Catch::Contains("lstm expects 8 fields"));
  CHECK_THAT(gpu_msg, Catch::Contains("lstm expects 8 fields"));
}

TEST_CASE("gpu lstm: the CP layout (caches) runs on the CPU, also under -gpu force", "[gpu][dnn]") {
  GpuEnv env(mem::DType::kFloat64, -1, mem::EvictionPolicy::kLru, inst::GpuMode::kForce);
  const Shape s{3, 4, 2, 3};
  bind_case(env, s, true, formats()[0], formats()[0], 11, mem::DType::kFloat64);
  const std::string fwd = "°lstm°" + inputs6(true) + "°out°cy°cache_out°cache_c°cache_ifog°2";
  CHECK_FALSE(env.run("CP" + fwd));
  CHECK_FALSE(env.run("GPU" + fwd));
  const std::string bwd = "°lstm_backward°" + inputs6(true) + "°dout" + kM + "°dc" + kM +
                          "°cache_out" + kM + "°cache_c" + kM + "°cache_ifog" + kM +
                          "°RdX°RdW°Rdb°Rdout0°Rdc0°2";
  CHECK_FALSE(env.run("CP" + bwd));
  // The GPU layout under -gpu force runs on cuDNN and matches the cache-based CPU backward.
  CHECK(env.run(backward_line("CP", true, "G")));
  compare_outputs(env, mem::DType::kFloat64, {"dX", "dW", "db", "dout0", "dc0"});
}
