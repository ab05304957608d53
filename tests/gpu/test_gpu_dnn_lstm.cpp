// lstm / lstm_backward on the GPU against the same lines on the CPU backend, in both layouts: the
// GPU layout (out°cy; the backward without caches) on cuDNN and the CP layout (five outputs, three
// of them SystemDS's caches; the backward consuming the caches) on cuBLAS and the step kernels.
// Every output of forward and backward (the caches included), return_sequences both ways, N/T/D/M
// of 1 and odd sizes, dense / 0.1-sparse / 0.001-sparse / empty X and a sparse W, an empty batch,
// FP64 (1e-9) and FP32 (1e-4 on float-rounded inputs); errors identical to the CPU's; the CP
// layout under -gpu force; batch splitting (Note [LSTM batch chunks]) under small DNN budgets
// against the CPU and the unsplit GPU run.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "kernels/cuda/dnn_lstm.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

const std::string kM = "·MATRIX·FP64";

std::string flag(bool v) { return std::string(v ? "true" : "false") + "·SCALAR·BOOLEAN·true"; }

std::string inputs6(bool rs) {
  return "X" + kM + "°W" + kM + "°b" + kM + "°out0" + kM + "°c0" + kM + "°" + flag(rs);
}

enum class Layout { kGpu, kCp };
const char* layout_name(Layout l) { return l == Layout::kCp ? "CP layout" : "GPU layout"; }

// Instruction lines; `p` prefixes the output names and, in the CP backward, the cache inputs (the
// caches of the same backend's forward).
std::string forward_line(const char* exec, bool rs, const std::string& p, Layout l = Layout::kGpu) {
  std::string s =
      std::string(exec) + "°lstm°" + inputs6(rs) + "°" + p + "out" + kM + "°" + p + "cy" + kM;
  if (l == Layout::kCp) {
    for (const char* c : {"cache_out", "cache_c", "cache_ifog"}) s += "°" + p + c + kM;
    s += "°1";
  }
  return s;
}
std::string backward_line(const char* exec, bool rs, const std::string& p,
                          Layout l = Layout::kGpu) {
  std::string s = std::string(exec) + "°lstm_backward°" + inputs6(rs) + "°dout" + kM + "°dc" + kM;
  if (l == Layout::kCp)
    for (const char* c : {"cache_out", "cache_c", "cache_ifog"}) s += "°" + p + c + kM;
  for (const char* o : {"dX", "dW", "db", "dout0", "dc0"}) s += "°" + p + o + kM;
  if (l == Layout::kCp) s += "°1";
  return s;
}

std::vector<std::string> forward_outputs(Layout l) {
  if (l == Layout::kGpu) return {"out", "cy"};
  return {"out", "cy", "cache_out", "cache_c", "cache_ifog"};
}
const std::vector<std::string> kBackwardOutputs = {"dX", "dW", "db", "dout0", "dc0"};

struct Shape {
  int64_t n, t, d, m;
};

// Largest error seen per layout and precision, reported at the end (the measured GPU-vs-CPU gap).
double g_max_err[2][2] = {{0, 0}, {0, 0}};

MatrixBlock scaled(MatrixBlock b, double s, mem::DType dt) {
  MatrixBlock d = b.to_dense();
  for (double& v : d.dense_values()) v *= s;
  if (dt == mem::DType::kFloat32) d = rounded_f32(d);
  return b.is_sparse() ? d.to_sparse() : d;
}

// Binds the inputs of one case (GpuEnv or CpuEnv).
template <typename Env>
void bind_case(Env& env, const Shape& s, bool rs, const Format& xf, const Format& wf, uint64_t seed,
               mem::DType dt) {
  env.bind("X", input(s.n, s.t * s.d, xf, seed + 1, dt));
  // Weights in [-0.5, 0.5]: gates stay away from saturation, so FP32 keeps 1e-4.
  env.bind("W", scaled(input(s.d + s.m, 4 * s.m, wf, seed + 2, dt), 0.25, dt));
  env.bind("b", scaled(input(1, 4 * s.m, formats()[0], seed + 3, dt), 0.25, dt));
  env.bind("out0", scaled(input(s.n, s.m, formats()[0], seed + 4, dt), 0.25, dt));
  env.bind("c0", scaled(input(s.n, s.m, formats()[0], seed + 5, dt), 0.25, dt));
  env.bind("dout", input(s.n, rs ? s.t * s.m : s.m, formats()[0], seed + 6, dt));
  env.bind("dc", input(s.n, s.m, formats()[0], seed + 7, dt));
}

void compare_outputs(GpuEnv& env, mem::DType dt, const std::vector<std::string>& names, Layout l) {
  for (const std::string& o : names) {
    INFO("output " << o);
    const auto cmp = test::compare(env.host("G" + o), env.host("R" + o), tol_of(dt), tol_of(dt));
    INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
    CHECK(cmp.ok);
    double& worst = g_max_err[l == Layout::kCp ? 1 : 0][dt == mem::DType::kFloat64 ? 0 : 1];
    worst = std::max(worst, cmp.max_abs_err);
  }
}

// Forward and backward of one case on the CPU (R*) and the GPU (G*), all outputs compared; the
// CP-layout backward of each backend consumes that backend's caches.
void check_case(GpuEnv& env, mem::DType dt, const Shape& s, bool rs, const std::string& label,
                Layout l) {
  INFO(label << " " << layout_name(l) << " " << prec_name(dt) << " return_sequences=" << rs);
  try {
    env.run(forward_line("CP", rs, "R", l));
    CHECK(env.run(forward_line("GPU", rs, "G", l)));
    compare_outputs(env, dt, forward_outputs(l), l);
    const MatrixBlock out = env.host("Gout");
    CHECK(out.rows() == s.n);
    CHECK(out.cols() == (rs ? s.t * s.m : s.m));
    if (l == Layout::kCp) {
      const MatrixBlock ifog = env.host("Gcache_ifog");
      CHECK(ifog.rows() == s.t);
      CHECK(ifog.cols() == s.n * 4 * s.m);
    }
    env.run(backward_line("CP", rs, "R", l));
    CHECK(env.run(backward_line("GPU", rs, "G", l)));
    compare_outputs(env, dt, kBackwardOutputs, l);
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

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {{1, 1, 1, 1}, {3, 4, 2, 3},    {1, 7, 5, 1},    {5, 1, 3, 4},
                                       {2, 3, 1, 1}, {17, 9, 13, 11}, {64, 20, 32, 48}};
  return s;
}

void check_all_shapes(Layout l, const char* name) {
  const uint64_t seed = test::seed_from(name);
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const Shape& s : shapes())
      for (bool rs : {true, false})
        for (const Format& xf : formats()) {
          bind_case(env, s, rs, xf, formats()[0], seed + s.n * 31 + s.t, dt);
          check_case(env, dt, s, rs, label_of(s, xf, formats()[0]), l);
        }
  }
}

void check_sparse_w_and_empty_batch(Layout l, const char* name) {
  const uint64_t seed = test::seed_from(name);
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    const Shape s{6, 5, 7, 3};
    for (const Format& wf : formats())
      for (bool rs : {true, false}) {
        bind_case(env, s, rs, formats()[1], wf, seed, dt);
        check_case(env, dt, s, rs, label_of(s, formats()[1], wf), l);
      }
    // N = 0: empty outputs (and empty cache rows) and zero weight gradients on both backends.
    const Shape e{0, 3, 2, 2};
    for (bool rs : {true, false}) {
      bind_case(env, e, rs, formats()[0], formats()[0], seed + 1, dt);
      check_case(env, dt, e, rs, "lstm empty batch", l);
    }
  }
}

// The bytes the unsplit cuDNN path asks for besides its outputs (Note [LSTM batch chunks]): the
// weight space (twice for the backward), cuDNN's workspace and reserve space for all N rows, y
// and the zero dy, the sequence lengths. Dense operands only.
int64_t cudnn_unsplit_bytes(GpuEnv& env, const Shape& s, bool backward, bool rs, mem::DType dt) {
  const kernels::cuda::CudnnLstm l(env.gpu->context().cudnn(), dt == mem::DType::kFloat64, false,
                                   backward, s.n, s.t, s.d, s.m);
  const int64_t e = static_cast<int64_t>(mem::dtype_size(dt));
  const int64_t ys = (backward || !rs ? 1 : 0) + (backward && !rs ? 1 : 0);
  return static_cast<int64_t>(l.weight_space_bytes() * (backward ? 2 : 1) + l.workspace_bytes() +
                              l.reserve_bytes()) +
         s.n * (ys * s.t * s.m * e + 4);
}

}  // namespace

TEST_CASE("gpu lstm and lstm_backward (cuDNN) match the CPU", "[gpu][dnn][cudnn]") {
  check_all_shapes(Layout::kGpu, "gpu lstm");
  WARN("lstm cuDNN vs CPU: max |err| FP64 " << g_max_err[0][0] << ", FP32 " << g_max_err[0][1]);
}

TEST_CASE("gpu lstm and lstm_backward in the CP layout (caches) match the CPU",
          "[gpu][dnn][cublas][kernel]") {
  check_all_shapes(Layout::kCp, "gpu lstm CP layout");
  WARN("lstm CP layout (cuBLAS + step kernels) vs CPU: max |err| FP64 "
       << g_max_err[1][0] << ", FP32 " << g_max_err[1][1]);
}

TEST_CASE("gpu lstm: sparse and empty W, an empty batch", "[gpu][dnn][cudnn]") {
  check_sparse_w_and_empty_batch(Layout::kGpu, "gpu lstm sparse W");
}

TEST_CASE("gpu lstm CP layout: sparse and empty W, an empty batch", "[gpu][dnn][cublas][kernel]") {
  check_sparse_w_and_empty_batch(Layout::kCp, "gpu lstm CP layout sparse W");
}

TEST_CASE("gpu lstm: shape and layout errors are the CPU's", "[gpu][dnn][cudnn]") {
  GpuEnv env(mem::DType::kFloat64);
  const Shape s{3, 4, 2, 3};
  bind_case(env, s, true, formats()[0], formats()[0], 7, mem::DType::kFloat64);
  // Caches of the right shapes for the CP-layout backward, under both prefixes.
  env.run(forward_line("CP", true, "R", Layout::kCp));
  env.run(forward_line("CP", true, "G", Layout::kCp));
  auto same_error = [&](const std::string& cp, const std::string& gpu) {
    const std::string ce = error_of(env, cp), ge = error_of(env, gpu);
    INFO(cp);
    CHECK(ce != "<no error>");
    CHECK(ge == ce);
  };
  // Each bad input in turn (under every name given), then restored.
  auto with_bad = [&](std::vector<std::string> vars, const MatrixBlock& bad, bool backward, bool rs,
                      Layout l) {
    std::vector<MatrixBlock> keep;
    for (const std::string& v : vars) {
      keep.push_back(env.host(v));
      env.bind(v, bad);
    }
    if (backward)
      same_error(backward_line("CP", rs, "R", l), backward_line("GPU", rs, "G", l));
    else
      same_error(forward_line("CP", rs, "R", l), forward_line("GPU", rs, "G", l));
    for (size_t i = 0; i < vars.size(); ++i) env.bind(vars[i], keep[i]);
  };
  for (Layout l : {Layout::kGpu, Layout::kCp}) {
    INFO(layout_name(l));
    with_bad({"c0"}, MatrixBlock::dense(3, 2), false, true, l);
    with_bad({"W"}, MatrixBlock::dense(5, 10), false, true, l);
    with_bad({"b"}, MatrixBlock::dense(12, 1), false, false, l);
    with_bad({"X"}, MatrixBlock::dense(3, 7), false, true, l);
    with_bad({"out0"}, MatrixBlock::dense(3, 0), false, true, l);
    with_bad({"dout"}, MatrixBlock::dense(3, 3), true, true, l);
    with_bad({"dc"}, MatrixBlock::dense(2, 3), true, true, l);
  }
  // The caches of the CP-layout backward: T x N*M, T x N*M, T x N*4M.
  with_bad({"Rcache_out", "Gcache_out"}, MatrixBlock::dense(4, 8), true, true, Layout::kCp);
  with_bad({"Rcache_c", "Gcache_c"}, MatrixBlock::dense(3, 9), true, true, Layout::kCp);
  with_bad({"Rcache_ifog", "Gcache_ifog"}, MatrixBlock::dense(4, 9), true, true, Layout::kCp);
  CHECK(error_of(env, backward_line("GPU", true, "G", Layout::kCp)) == "<no error>");  // restored
  env.bind("Gcache_ifog", MatrixBlock::dense(4, 9));
  CHECK_THAT(error_of(env, backward_line("GPU", true, "G", Layout::kCp)),
             Catch::Contains("lstm_backward: cache_ifog is 4x9, expected T x N*4M = 4x36 "
                             "(N=3 T=4 D=2 M=3)"));
  // A malformed line fails at parse time with the same message under either prefix.
  const std::string bad = "°lstm°" + inputs6(true) + "°out" + kM;
  const std::string cpu_msg = error_of(env, "CP" + bad), gpu_msg = error_of(env, "GPU" + bad);
  CHECK_THAT(cpu_msg, Catch::Contains("lstm expects 8 fields"));
  CHECK_THAT(gpu_msg, Catch::Contains("lstm expects 8 fields"));
}

TEST_CASE("gpu lstm: the CP layout runs on the GPU under -gpu force and matches the CPU",
          "[gpu][dnn][cublas]") {
  GpuEnv env(mem::DType::kFloat64, -1, mem::EvictionPolicy::kLru, inst::GpuMode::kForce);
  CpuEnv cpu;
  const Shape s{3, 4, 2, 3};
  bind_case(env, s, true, formats()[0], formats()[0], 11, mem::DType::kFloat64);
  bind_case(cpu, s, true, formats()[0], formats()[0], 11, mem::DType::kFloat64);
  auto same = [&](const std::vector<std::string>& names) {
    for (const std::string& o : names) {
      INFO("output " << o);
      const auto cmp = test::compare(env.host(o), cpu.host(o), 1e-9, 1e-9);
      INFO(cmp.report);
      CHECK(cmp.ok);
    }
  };
  // Bare output names: SystemDS's multi-return form.
  const std::string fwd = "°lstm°" + inputs6(true) + "°out°cy°cache_out°cache_c°cache_ifog°2";
  CHECK(env.run("CP" + fwd));
  cpu.run("CP" + fwd);
  same({"out", "cy", "cache_out", "cache_c", "cache_ifog"});
  // The backward consumes the caches: device-resident ones on the GPU, host ones on the CPU.
  const std::string bwd = "°lstm_backward°" + inputs6(true) + "°dout" + kM + "°dc" + kM +
                          "°cache_out" + kM + "°cache_c" + kM + "°cache_ifog" + kM +
                          "°RdX°RdW°Rdb°Rdout0°Rdc0°2";
  CHECK(env.run("CP" + bwd));
  cpu.run("CP" + bwd);
  same({"RdX", "RdW", "Rdb", "Rdout0", "Rdc0"});
  // The GPU layout under -gpu force runs on cuDNN and matches the cache-based CPU backward.
  CHECK(env.run(backward_line("CP", true, "G")));
  for (const std::string& o : kBackwardOutputs) {
    INFO("output " << o);
    const auto cmp = test::compare(env.host("G" + o), cpu.host("R" + o), 1e-9, 1e-9);
    INFO(cmp.report);
    CHECK(cmp.ok);
  }
}

TEST_CASE("gpu lstm splits the batch under a small DNN budget and matches CPU and unsplit GPU",
          "[gpu][dnn][cudnn][cublas][dnn_budget]") {
  // N = 7 sequences. Budgets (Note [LSTM batch chunks]): 1 byte gives one sequence per chunk on
  // both paths. The CP path's mid budget is 3 rows of the backward's per-row intermediates
  // (dgates 4M and a ones entry; with a CSR X also its T*D densified row, so fewer rows):
  // chunks of 3, 3, 1 (FP32) or 2, 2, 2, 1 (FP64: 16-byte aligned chunk starts); the forward has
  // per-row intermediates only with a CSR X. The cuDNN path's mid budgets are half the unsplit
  // forward's / backward's bytes (weight spaces, workspace, reserve space, y, zero dy, as the op
  // queries them), so the op probes, shrinks and runs chunks with a shorter last one (a second
  // cuDNN configuration).
  const uint64_t seed = test::seed_from("gpu lstm batch splitting");
  const Shape s{7, 5, 3, 4};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    const int64_t e = static_cast<int64_t>(mem::dtype_size(dt));
    GpuEnv whole(dt);
    for (Layout l : {Layout::kCp, Layout::kGpu})
      for (bool rs : {true, false}) {
        std::vector<long long> budgets = {1};
        if (l == Layout::kCp) {
          budgets.push_back(3 * (4 * s.m + 1) * e);
        } else {
          budgets.push_back(cudnn_unsplit_bytes(whole, s, false, rs, dt) / 2);
          budgets.push_back(cudnn_unsplit_bytes(whole, s, true, rs, dt) / 2);
        }
        for (long long budget : budgets) {
          mem::GpuSessionOptions o = GpuEnv::options(dt);
          o.dnn_budget_bytes = budget;
          GpuEnv chunked(o);
          for (const Format& xf : {formats()[0], formats()[1], formats()[2]}) {
            const std::string label = label_of(s, xf, formats()[0]);
            INFO("dnn budget " << budget << " bytes; " << label << " " << layout_name(l) << " "
                               << prec_name(dt) << " return_sequences=" << rs);
            bind_case(chunked, s, rs, xf, formats()[0], seed + budget, dt);
            bind_case(whole, s, rs, xf, formats()[0], seed + budget, dt);
            // Chunked GPU against the CPU ...
            check_case(chunked, dt, s, rs, label + " chunked", l);
            // ... and against the unsplit GPU run.
            try {
              CHECK(whole.run(forward_line("GPU", rs, "G", l)));
              CHECK(whole.run(backward_line("GPU", rs, "G", l)));
              std::vector<std::string> names = forward_outputs(l);
              names.insert(names.end(), kBackwardOutputs.begin(), kBackwardOutputs.end());
              for (const std::string& name : names) {
                INFO("chunked vs unsplit, output " << name);
                const auto cmp = test::compare(chunked.host("G" + name), whole.host("G" + name),
                                               tol_of(dt), tol_of(dt));
                INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
                CHECK(cmp.ok);
              }
            } catch (const std::exception& ex) {
              FAIL_CHECK("threw: " << ex.what());
            }
          }
        }
      }
  }
}
