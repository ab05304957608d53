// Batch normalisation on the GPU (custom kernels, kernels/cuda/dnn_batchnorm) against the same
// instruction on the CPU backend: batch_norm2d in train and test mode (all five outputs),
// batch_norm2d_train, batch_norm2d_test and batch_norm2d_backward, on dense, 0.1-sparse,
// 0.001-sparse and empty X and dout, N=1, C=1, HW=1, N=0, odd shapes, many channels and long
// channels (several blocks per channel), FP64 (1e-9) and FP32 (inputs rounded to float, 1e-4);
// a forward-backward chain on device-resident results, outputs that rebind input names, and
// errors identical to the CPU's.
#include <catch2/catch.hpp>
#include <iomanip>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

const std::string kM = "·MATRIX·FP64";

// An FP64 literal operand, every digit kept.
std::string num(double v) {
  std::ostringstream os;
  os << std::setprecision(17) << v << "·SCALAR·FP64·true";
  return os.str();
}
std::string str(const std::string& s) { return s + "·SCALAR·STRING·true"; }

struct Shape {
  int64_t n, c, hw;
};

// Odd, degenerate and multi-block shapes: (N, C, HW).
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {{1, 1, 1},    {2, 1, 2},      {1, 3, 4},   {7, 1, 1},
                                       {5, 3, 7},    {3, 70, 5},     {17, 5, 33}, {0, 2, 3},
                                       {2, 5000, 1}, {128, 2, 1024}, {33, 3, 65}};
  return s;
}

std::string label(const char* op, const Shape& s, const Format& f, const char* extra = "") {
  std::ostringstream os;
  os << op << " N=" << s.n << " C=" << s.c << " HW=" << s.hw << " X " << f.name << " " << extra;
  return os.str();
}

// Binds X (format f), scale S, bias B, running mean RM and running variance RV (>= 0.5) in env.
template <typename Env>
void bind_forward(Env& env, const Shape& s, const Format& f, uint64_t seed, mem::DType dt) {
  env.bind("X", input(s.n, s.c * s.hw, f, seed, dt));
  env.bind("S", input(s.c, 1, formats()[0], seed + 1, dt));
  env.bind("B", input(s.c, 1, formats()[0], seed + 2, dt));
  env.bind("RM", input(s.c, 1, formats()[0], seed + 3, dt));
  MatrixBlock rv = input(s.c, 1, formats()[0], seed + 4, dt).to_dense();
  std::vector<double> v = rv.dense_values();
  for (double& x : v) x = static_cast<double>(static_cast<float>(0.5 + x * x));
  env.bind("RV", MatrixBlock::dense(s.c, 1, std::move(v)));
}

// `line(prefix)` builds the instruction with outputs named prefix0, prefix1, ...; runs it on the
// CPU (R*) and the GPU (G*) and compares the n_out outputs.
template <typename LineOf>
void check_outputs(GpuEnv& env, mem::DType dt, int n_out, LineOf line, const std::string& what) {
  INFO(what << " " << prec_name(dt));
  try {
    env.run(line("CP", "R"));
    const bool on_gpu = env.run(line("GPU", "G"));
    CHECK(on_gpu);
    if (!on_gpu) return;
    for (int i = 0; i < n_out; ++i) {
      const std::string o = std::to_string(i);
      const auto cmp = test::compare(env.host("G" + o), env.host("R" + o), tol_of(dt), tol_of(dt));
      INFO("output " << i << ": " << cmp.report << " max_abs_err=" << cmp.max_abs_err);
      CHECK(cmp.ok);
    }
  } catch (const std::exception& e) {
    FAIL_CHECK("threw: " << e.what());
  }
}

const std::string kForwardIn = "X" + kM + "°S" + kM + "°B" + kM + "°RM" + kM + "°RV" + kM;

// batch_norm2d in the GPU layout (typed outputs, no k); the CP layout with bare outputs and k
// when `cp_layout`.
std::string bn_line(const std::string& exec, const std::string& p, const std::string& mode,
                    double eps, double mu, bool cp_layout = false) {
  std::string l =
      exec + "°batch_norm2d°" + kForwardIn + "°" + str(mode) + "°" + num(eps) + "°" + num(mu);
  for (int i = 0; i < 5; ++i) l += "°" + p + std::to_string(i) + (cp_layout ? "" : kM);
  return cp_layout ? l + "°4" : l;
}

std::string backward_line(const std::string& exec, const std::string& p, const std::string& mean,
                          const std::string& inv_var) {
  return exec + "°batch_norm2d_backward°X" + kM + "°D" + kM + "°S" + kM + "°" + num(1e-5) + "°" +
         mean + kM + "°" + inv_var + kM + "°" + p + "0" + kM + "°" + p + "1" + kM + "°" + p + "2" +
         kM;
}

std::string error_of_line(GpuEnv& env, const std::string& line) {
  return error_of([&] { env.run(line); }, "<no error>");
}

}  // namespace

TEST_CASE("gpu batch_norm2d train and test mode match the CPU (all five outputs)",
          "[gpu][dnn][kernel]") {
  const uint64_t seed = test::seed_from("gpu batch_norm2d");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const Shape& s : shapes())
      for (const Format& f : formats()) {
        bind_forward(env, s, f, seed + s.n * 131 + s.c * 7 + s.hw, dt);
        for (const char* mode : {"train", "test"})
          check_outputs(
              env, dt, 5,
              [&](const std::string& e, const std::string& p) {
                return bn_line(e, p, mode, 1e-5, 0.9);
              },
              label("batch_norm2d", s, f, mode));
      }
  }
}

TEST_CASE("gpu batch_norm2d: CP layout, other eps and mu, mode in any case", "[gpu][dnn][kernel]") {
  const uint64_t seed = test::seed_from("gpu batch_norm2d layouts");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    const Shape s{6, 4, 9};
    bind_forward(env, s, formats()[1], seed, dt);
    for (const char* mode : {"Train", "TEST"})
      check_outputs(
          env, dt, 5,
          [&](const std::string& e, const std::string& p) {
            return bn_line(e, p, mode, 1e-3, 0.99, true);
          },
          label("batch_norm2d cp layout", s, formats()[1], mode));
    // eps = 0 on a constant channel: var 0, inv_var = Inf, out = NaN (0 * Inf) on both.
    env.bind("X", MatrixBlock::dense(s.n, s.c * s.hw, 2.0));
    check_outputs(
        env, dt, 5,
        [&](const std::string& e, const std::string& p) {
          return bn_line(e, p, "train", 0.0, 0.5);
        },
        "batch_norm2d eps=0 constant X");
  }
}

TEST_CASE("gpu batch_norm2d_train and batch_norm2d_test match the CPU", "[gpu][dnn][kernel]") {
  const uint64_t seed = test::seed_from("gpu batch_norm2d fused forms");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const Shape& s : shapes())
      for (const Format& f : formats()) {
        bind_forward(env, s, f, seed + s.n * 131 + s.c * 7 + s.hw, dt);
        check_outputs(
            env, dt, 5,
            [&](const std::string& e, const std::string& p) {
              std::string l =
                  e + "°batch_norm2d_train°" + kForwardIn + "°" + num(1e-5) + "°" + num(0.9);
              for (int i = 0; i < 5; ++i) l += "°" + p + std::to_string(i) + kM;
              return l;
            },
            label("batch_norm2d_train", s, f));
        check_outputs(
            env, dt, 1,
            [&](const std::string& e, const std::string& p) {
              return e + "°batch_norm2d_test°" + kForwardIn + "°" + num(1e-5) + "°" + p + "0" + kM;
            },
            label("batch_norm2d_test", s, f));
      }
  }
}

TEST_CASE("gpu batch_norm2d_backward matches the CPU", "[gpu][dnn][kernel]") {
  const uint64_t seed = test::seed_from("gpu batch_norm2d_backward");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const Shape& s : shapes())
      for (const Format& f : formats()) {
        const uint64_t sd = seed + s.n * 131 + s.c * 7 + s.hw;
        bind_forward(env, s, f, sd, dt);
        // dout in the same format as X; saved statistics: the batch's own (a CPU forward pass)
        // and arbitrary ones (the running statistics, so sum(x - mean) != 0).
        env.bind("D", input(s.n, s.c * s.hw, f, sd + 5, dt));
        env.run(bn_line("CP", "F", "train", 1e-5, 0.9));
        // The statistics are inputs of both backends: rounded to float in FP32 so that the CPU
        // sees what the device holds (with N*HW = 2 the batch's own statistics make dX a
        // cancellation to ~0, and a float-rounded mean against a double one would differ by
        // eps*|mean|/spread — an input difference, not a kernel error).
        const bool f32 = dt == mem::DType::kFloat32;
        env.bind("SM", f32 ? rounded_f32(env.host("F3")) : env.host("F3"));
        env.bind("IV", f32 ? rounded_f32(env.host("F4")) : env.host("F4"));
        for (const auto& [mean, iv, what] :
             {std::tuple<const char*, const char*, const char*>{"SM", "IV", "batch stats"},
              {"RM", "RV", "arbitrary stats"}})
          check_outputs(
              env, dt, 3,
              [&](const std::string& e, const std::string& p) {
                return backward_line(e, p, mean, iv);
              },
              label("batch_norm2d_backward", s, f, what));
      }
    // dout dense while X is sparse, and the other way round.
    const Shape s{9, 3, 11};
    for (int sparse_x = 0; sparse_x < 2; ++sparse_x) {
      bind_forward(env, s, formats()[sparse_x == 1 ? 1 : 0], seed, dt);
      env.bind("D", input(s.n, s.c * s.hw, formats()[sparse_x == 1 ? 0 : 2], seed + 9, dt));
      check_outputs(
          env, dt, 3,
          [&](const std::string& e, const std::string& p) {
            return backward_line(e, p, "RM", "RV");
          },
          sparse_x ? "backward X sparse, dout dense" : "backward X dense, dout ultra-sparse");
    }
  }
}

TEST_CASE("gpu batch norm forward then backward on device-resident results", "[gpu][dnn][kernel]") {
  // The backward pass reads the forward pass's saved statistics where they were produced: on the
  // device for the GPU chain, on the host for the CPU chain.
  const uint64_t seed = test::seed_from("gpu batch norm chain");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    const Shape s{16, 8, 36};
    bind_forward(env, s, formats()[0], seed, dt);
    env.bind("D", input(s.n, s.c * s.hw, formats()[0], seed + 5, dt));
    INFO(prec_name(dt));
    env.run(bn_line("CP", "R", "train", 1e-5, 0.9));
    CHECK(env.run(bn_line("GPU", "G", "train", 1e-5, 0.9)));
    env.run(backward_line("CP", "RB", "R3", "R4"));
    CHECK(env.run(backward_line("GPU", "GB", "G3", "G4")));
    for (int i = 0; i < 3; ++i) {
      const std::string o = std::to_string(i);
      const auto cmp =
          test::compare(env.host("GB" + o), env.host("RB" + o), tol_of(dt), tol_of(dt));
      INFO("backward output " << i << ": " << cmp.report);
      CHECK(cmp.ok);
    }
  }
}

TEST_CASE("gpu batch_norm2d outputs may rebind input names", "[gpu][dnn][kernel]") {
  // [Y, RM, RV, SM, SIV] = batch_norm2d(X, S, B, RM, RV, ...): the running statistics are read
  // and replaced by one instruction (the usual DML training loop).
  const uint64_t seed = test::seed_from("gpu batch_norm2d rebind");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    CpuEnv cpu;
    const Shape s{5, 3, 8};
    bind_forward(env, s, formats()[1], seed, dt);
    bind_forward(cpu, s, formats()[1], seed, dt);
    const std::string outs = "°Y" + kM + "°RM" + kM + "°RV" + kM + "°SM" + kM + "°SIV" + kM;
    const std::string fields = kForwardIn + "°" + str("train") + "°" + num(1e-5) + "°" + num(0.9);
    for (int step = 0; step < 3; ++step) {
      cpu.run("CP°batch_norm2d°" + fields + outs);
      CHECK(env.run("GPU°batch_norm2d°" + fields + outs));
    }
    INFO(prec_name(dt));
    for (const char* o : {"Y", "RM", "RV", "SM", "SIV"}) {
      const auto cmp = test::compare(env.host(o), cpu.host(o), tol_of(dt), tol_of(dt));
      INFO(o << ": " << cmp.report);
      CHECK(cmp.ok);
    }
  }
}

TEST_CASE("gpu batch norm errors are the CPU's", "[gpu][dnn]") {
  GpuEnv env(mem::DType::kFloat64);
  const Shape s{2, 2, 3};
  bind_forward(env, s, formats()[0], 7, mem::DType::kFloat64);
  env.bind("D", input(s.n, s.c * s.hw, formats()[0], 8, mem::DType::kFloat64));
  auto same = [&](const std::string& cp_line, const std::string& gpu_line) {
    const std::string cpu = error_of_line(env, cp_line), gpu = error_of_line(env, gpu_line);
    INFO(cp_line);
    CHECK(cpu != "<no error>");
    CHECK(gpu == cpu);
  };
  auto forward_pair = [&](const char* mode) {
    same(bn_line("CP", "R", mode, 1e-5, 0.9), bn_line("GPU", "G", mode, 1e-5, 0.9));
  };
  auto backward_pair = [&] {
    same(backward_line("CP", "R", "RM", "RV"), backward_line("GPU", "G", "RM", "RV"));
  };
  // scale not dividing the columns; scale not a column.
  env.bind("S", input(4, 1, formats()[0], 9, mem::DType::kFloat64));
  forward_pair("train");
  backward_pair();
  env.bind("S", input(2, 2, formats()[0], 9, mem::DType::kFloat64));
  forward_pair("test");
  env.bind("S", input(2, 1, formats()[0], 9, mem::DType::kFloat64));
  // A per-channel operand of the wrong shape.
  env.bind("B", input(3, 1, formats()[0], 10, mem::DType::kFloat64));
  forward_pair("train");
  env.bind("B", input(2, 1, formats()[0], 10, mem::DType::kFloat64));
  env.bind("RV", input(1, 2, formats()[1], 11, mem::DType::kFloat64));
  forward_pair("test");
  backward_pair();
  env.bind("RV", input(2, 1, formats()[0], 11, mem::DType::kFloat64));
  // dout of another shape; a bad mode.
  env.bind("D", input(s.n, s.c * s.hw + 1, formats()[1], 12, mem::DType::kFloat64));
  backward_pair();
  forward_pair("validate");
}
