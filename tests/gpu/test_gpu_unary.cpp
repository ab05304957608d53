// Unary instructions on the GPU against the same instructions on the CPU backend: every cell-wise
// builtin (with SystemDS's `X°2·SCALAR·INT64·true°out` form of ^2 / *2), log with a base (matrix
// and scalar mixes, broadcast bases), softmax, the cumulative scans and ucumk+*, over dense,
// sparse, ultra-sparse, empty and NaN/Inf inputs of empty, 1x1, odd and larger-than-block shapes,
// FP64 (1e-9) and FP32 (1e-4 relative on float-rounded inputs). Also: which forms stay on the CPU
// (scalars, urowcumk+; isnan runs on the device), error messages, chains staying on the device,
// stats names.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

struct Shape {
  int64_t rows, cols;
};
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {{0, 0}, {0, 4}, {4, 0},   {1, 1},
                                       {1, 7}, {7, 1}, {33, 65}, {1000, 1003}};
  return s;
}

// The formats of gpu_env.h plus a dense input holding NaN, +-Inf, +-0 and half-integers.
std::vector<Format> all_formats() {
  std::vector<Format> f = formats();
  f.push_back({"dense+specials", 1.0, false});
  return f;
}

MatrixBlock make_input(const Format& f, int64_t rows, int64_t cols, uint64_t seed, double lo,
                       double hi, mem::DType dt) {
  MatrixBlock m = test::random_block(rows, cols, f.sparsity, seed, lo, hi, f.sparse);
  if (std::string(f.name) == "dense+specials" && rows * cols > 0) {
    std::vector<double> v = m.to_dense().dense_values();
    const double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity(),
                               0.0,
                               -0.0,
                               0.5,
                               -2.5,
                               1.5};
    std::mt19937_64 gen(seed);
    std::uniform_int_distribution<size_t> pos(0, v.size() - 1);
    const size_t count = v.size() < 16 ? 1 : v.size() / 40;
    for (size_t k = 0; k < count; ++k) v[pos(gen)] = kSpecial[k % 8];
    m = MatrixBlock::dense(rows, cols, std::move(v));
  }
  return dt == mem::DType::kFloat32 ? rounded_f32(m) : m;
}

std::string label(const std::string& what, int64_t rows, int64_t cols, const char* format,
                  mem::DType dt) {
  std::ostringstream os;
  os << what << " " << rows << "x" << cols << " " << format << " " << prec_name(dt);
  return os.str();
}

// Runs `gpu_line` on the GPU env (it must run on the GPU) and `cpu_line` on the CPU env, and
// compares matrix output `out`. CHECKs, so one run reports every failing case.
void check_matrix_case(GpuEnv& g, CpuEnv& c, const std::string& what, const std::string& gpu_line,
                       const std::string& cpu_line, const std::string& out, mem::DType dt) {
  INFO(what << "\n  gpu line: " << gpu_line);
  MatrixBlock ref;
  try {
    c.run(cpu_line);
    ref = c.host(out);
  } catch (const std::exception& e) {
    FAIL_CHECK("CPU reference threw: " << e.what());
    return;
  }
  try {
    const bool on_gpu = g.run(gpu_line);
    CHECK(on_gpu);
    const MatrixBlock got = g.host(out);
    const auto cmp = test::compare(got, ref, tol_of(dt), tol_of(dt));
    INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
    CHECK(cmp.ok);
  } catch (const std::exception& e) {
    FAIL_CHECK("GPU run threw: " << e.what());
  }
}

const char* const kCellwise[] = {"exp",  "log",  "abs",  "sqrt",    "round", "floor", "ceil",
                                 "sin",  "cos",  "tan",  "sinh",    "cosh",  "tanh",  "asin",
                                 "acos", "atan", "sign", "sigmoid", "!",     "^2",    "*2"};

const char* const kMat = "·MATRIX·FP64";

}  // namespace

TEST_CASE("gpu unary: every cell-wise builtin matches the CPU", "[gpu][unary]") {
  const uint64_t seed = test::seed_from("gpu unary cellwise");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv g(dt);
    CpuEnv c;
    for (const Shape& s : shapes())
      for (const Format& f : all_formats()) {
        // [-3, 3] reaches outside asin/acos/log/sqrt domains (NaN) and keeps exp finite in FP32.
        const MatrixBlock a = make_input(f, s.rows, s.cols, seed + s.rows * 31 + s.cols, -3, 3, dt);
        g.bind("A", a);
        c.bind("A", a);
        for (const char* op : kCellwise) {
          const std::string opcode = op;
          // SystemDS's layouts: GPU `in°out`, CP `in°out°k`; ^2 and *2 carry the literal 2.
          const std::string two = opcode == "^2" || opcode == "*2" ? "°2·SCALAR·INT64·true" : "";
          check_matrix_case(g, c, label("unary " + opcode, s.rows, s.cols, f.name, dt),
                            "GPU°" + opcode + "°A" + kMat + two + "°B" + kMat,
                            "CP°" + opcode + "°A" + kMat + two + "°B" + kMat + "°8", "B", dt);
        }
      }
  }
}

TEST_CASE("gpu unary: ^2 and *2 without the literal, and CP lines under -gpu force / -gpu",
          "[gpu][unary]") {
  const uint64_t seed = test::seed_from("gpu unary forms");
  for (inst::GpuMode mode : {inst::GpuMode::kForce, inst::GpuMode::kOn}) {
    GpuEnv g(mem::DType::kFloat64, -1, mem::EvictionPolicy::kLru, mode);
    CpuEnv c;
    const MatrixBlock a = make_input(formats()[0], 33, 65, seed, -3, 3, mem::DType::kFloat64);
    g.bind("A", a);
    c.bind("A", a);
    const char* mode_name = mode == inst::GpuMode::kForce ? "-gpu force" : "-gpu";
    for (const char* op : {"^2", "*2", "exp", "round"}) {
      const std::string line = std::string("CP°") + op + "°A" + kMat + "°B" + kMat + "°8";
      check_matrix_case(g, c,
                        label(std::string("unary ") + op + " CP line " + mode_name, 33, 65, "dense",
                              mem::DType::kFloat64),
                        line, line, "B", mem::DType::kFloat64);
    }
    const std::string inplace = "CP°sqrt°A" + std::string(kMat) + "°B" + kMat + "°8°true";
    check_matrix_case(
        g, c, label("unary sqrt CP line with inplace flag", 33, 65, "dense", mem::DType::kFloat64),
        inplace, inplace, "B", mem::DType::kFloat64);
  }
}

TEST_CASE("gpu unary: log with a base, matrix and scalar mixes", "[gpu][unary]") {
  const uint64_t seed = test::seed_from("gpu unary log base");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv g(dt);
    CpuEnv c;
    for (const Shape& s : shapes())
      for (const Format& f : all_formats()) {
        const MatrixBlock x = make_input(f, s.rows, s.cols, seed + s.rows, 0.05, 6.0, dt);
        g.bind("X", x);
        c.bind("X", x);
        const std::string out = "°L" + std::string(kMat);
        // log(X, b) with FP64 and INT64 literal bases.
        for (const char* b : {"2.5·SCALAR·FP64·true", "10·SCALAR·INT64·true"}) {
          const std::string fields = "°X" + std::string(kMat) + "°" + b + out;
          check_matrix_case(g, c,
                            label(std::string("log(X, ") + b + ")", s.rows, s.cols, f.name, dt),
                            "GPU°log" + fields, "CP°log" + fields + "°8", "L", dt);
        }
        // log(7, X): the matrix is the base.
        {
          const std::string fields = "°7·SCALAR·FP64·true°X" + std::string(kMat) + out;
          check_matrix_case(g, c, label("log(7, X)", s.rows, s.cols, f.name, dt),
                            "GPU°log" + fields, "CP°log" + fields + "°8", "L", dt);
        }
        // log(X, B): B of X's shape, a column vector, a row vector, 1x1 (B dense or sparse).
        const std::vector<Shape> bases = {{s.rows, s.cols}, {s.rows, 1}, {1, s.cols}, {1, 1}};
        for (const Shape& bs : bases)
          for (bool bsparse : {false, true}) {
            const Format bf = bsparse ? Format{"sparse0.1", 0.1, true} : formats()[0];
            const MatrixBlock b = make_input(bf, bs.rows, bs.cols, seed + 7, 0.1, 9.0, dt);
            g.bind("B", b);
            c.bind("B", b);
            std::ostringstream what;
            what << "log(X, B " << bs.rows << "x" << bs.cols << " " << bf.name << ")";
            const std::string fields = "°X" + std::string(kMat) + "°B" + kMat + out;
            check_matrix_case(g, c, label(what.str(), s.rows, s.cols, f.name, dt),
                              "GPU°log" + fields, "CP°log" + fields + "°8", "L", dt);
          }
      }
  }
}

TEST_CASE("gpu unary: softmax matches the CPU", "[gpu][unary]") {
  const uint64_t seed = test::seed_from("gpu unary softmax");
  std::vector<Shape> sh = shapes();
  sh.push_back({3, 5000});  // rows much wider than a warp
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv g(dt);
    CpuEnv c;
    for (const Shape& s : sh)
      for (const Format& f : all_formats()) {
        const MatrixBlock a = make_input(f, s.rows, s.cols, seed + s.cols, -5, 5, dt);
        g.bind("A", a);
        c.bind("A", a);
        check_matrix_case(g, c, label("softmax", s.rows, s.cols, f.name, dt),
                          "GPU°softmax°A" + std::string(kMat) + "°S" + kMat,
                          "CP°softmax°A" + std::string(kMat) + "°S" + kMat, "S", dt);
      }
  }
}

TEST_CASE("gpu unary: cumulative column scans match the CPU", "[gpu][unary]") {
  const uint64_t seed = test::seed_from("gpu unary cumulative");
  std::vector<Shape> sh = shapes();
  sh.push_back({128, 2});
  sh.push_back({129, 2});
  sh.push_back({100003, 3});  // many scan blocks
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv g(dt);
    CpuEnv c;
    for (const Shape& s : sh)
      for (const Format& f : all_formats())
        for (const char* op : {"ucumk+", "ucum*", "ucummin", "ucummax"}) {
          // Products over [-1.1, 1.1] decay without overflowing (float keeps the double range
          // check meaningful); sums, min and max see [-3, 3].
          const bool prod = std::string(op) == "ucum*";
          const MatrixBlock a =
              make_input(f, s.rows, s.cols, seed + s.rows, prod ? -1.1 : -3, prod ? 1.1 : 3, dt);
          g.bind("A", a);
          c.bind("A", a);
          check_matrix_case(g, c, label(op, s.rows, s.cols, f.name, dt),
                            std::string("GPU°") + op + "°A" + kMat + "°C" + kMat,
                            std::string("CP°") + op + "°A" + kMat + "°C" + kMat + "°8", "C", dt);
        }
  }
}

TEST_CASE("gpu unary: ucumk+* (cumsumprod) matches the CPU for every row count", "[gpu][unary]") {
  const uint64_t seed = test::seed_from("gpu unary cumsumprod");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv g(dt);
    CpuEnv c;
    for (int64_t rows : {0, 1, 2, 7, 127, 128, 129, 1000, 1201, 100003})
      for (const Format& f : formats()) {
        // [a, b] in [-0.9, 0.9]: a contracting recurrence (well-conditioned).
        const MatrixBlock a = make_input(f, rows, 2, seed + rows, -0.9, 0.9, dt);
        g.bind("A", a);
        c.bind("A", a);
        check_matrix_case(g, c, label("ucumk+*", rows, 2, f.name, dt),
                          "GPU°ucumk+*°A" + std::string(kMat) + "°C" + kMat,
                          "CP°ucumk+*°A" + std::string(kMat) + "°C" + kMat + "°8", "C", dt);
      }
  }
}

TEST_CASE("gpu unary: errors are the CPU's", "[gpu][unary]") {
  GpuEnv g;
  g.bind("A", test::random_block(4, 3, 1.0, 1));
  CHECK_THROWS_WITH(g.run("GPU°ucumk+*°A·MATRIX·FP64°C·MATRIX·FP64"),
                    "ucumk+*: cumsumprod needs a 2-column input [a, b], got 4x3");
  g.bind("X", test::random_block(4, 5, 1.0, 2, 0.5, 2));
  g.bind("B", test::random_block(2, 3, 1.0, 3, 0.5, 2));
  CHECK_THROWS_WITH(g.run("GPU°log°X·MATRIX·FP64°B·MATRIX·FP64°L·MATRIX·FP64"),
                    "log: base of shape 2x3 does not fit x of shape 4x5 (needs the same shape or "
                    "a row/column vector)");
  CHECK_THROWS_WITH(g.run("GPU°log°X·MATRIX·FP64°hello·SCALAR·STRING·true°L·MATRIX·FP64"),
                    "log: cannot apply to the STRING value 'hello'");
}

TEST_CASE("gpu unary: scalars stay on the CPU; isnan and urowcumk+ run on the GPU",
          "[gpu][unary]") {
  GpuEnv g;
  CpuEnv c;
  // Scalar forms: no device work even on a GPU line.
  CHECK_FALSE(g.run("GPU°exp°2·SCALAR·FP64·true°s·SCALAR·FP64"));
  CHECK(g.ec->scalar("s").to_double() == Approx(std::exp(2.0)).epsilon(1e-15));
  CHECK_FALSE(g.run("GPU°log°8·SCALAR·FP64·true°2·SCALAR·FP64·true°t·SCALAR·FP64"));
  CHECK(g.ec->scalar("t").to_double() == Approx(3.0).epsilon(1e-15));
  CHECK_FALSE(g.run("GPU°!°0·SCALAR·FP64·true°u·SCALAR·BOOLEAN"));
  CHECK(g.ec->scalar("u").to_bool());
  // isnan and urowcumk+ (a NaN in the running sum) on the device, as the CPU computes them.
  std::vector<double> v = {1, std::numeric_limits<double>::quiet_NaN(), 3, 4, 5, 6};
  const MatrixBlock a = MatrixBlock::dense(2, 3, v);
  g.bind("A", a);
  c.bind("A", a);
  for (const char* op : {"isnan", "urowcumk+"}) {
    INFO(op << " 2x3 dense FP64");
    const std::string line = std::string("GPU°") + op + "°A·MATRIX·FP64°B·MATRIX·FP64";
    CHECK(g.run(line));
    c.run(std::string("CP°") + op + "°A·MATRIX·FP64°B·MATRIX·FP64°8");
    const auto cmp = test::compare(g.host("B"), c.host("B"));
    INFO(cmp.report);
    CHECK(cmp.ok);
  }
}

TEST_CASE("gpu unary: a chain stays on the device; stats name gpu_<opcode>", "[gpu][unary]") {
  GpuEnv g;
  g.gpu->set_timing(true);
  const MatrixBlock a = test::random_block(300, 200, 1.0, 9, -1, 1);
  g.bind("A", a);
  CHECK(g.run("GPU°exp°A·MATRIX·FP64°B·MATRIX·FP64"));
  CHECK(g.run("GPU°ucumk+°B·MATRIX·FP64°C·MATRIX·FP64"));
  CHECK(g.run("GPU°log°C·MATRIX·FP64°2·SCALAR·FP64·true°D·MATRIX·FP64"));
  CHECK(g.run("GPU°softmax°D·MATRIX·FP64°E·MATRIX·FP64"));
  CHECK(g.gpu->stats().from_dev_n == 0);  // nothing came back yet
  CHECK(g.gpu->stats().to_dev_n == 1);    // only A went up
  std::vector<std::string> names;
  g.gpu->collect_timings([&](const std::string& n, double) { names.push_back(n); }, true);
  CHECK(names == std::vector<std::string>{"gpu_exp", "gpu_ucumk+", "gpu_log", "gpu_softmax"});

  CpuEnv c;
  c.bind("A", a);
  c.run("CP°exp°A·MATRIX·FP64°B·MATRIX·FP64°8");
  c.run("CP°ucumk+°B·MATRIX·FP64°C·MATRIX·FP64°8");
  c.run("CP°log°C·MATRIX·FP64°2·SCALAR·FP64·true°D·MATRIX·FP64°8");
  c.run("CP°softmax°D·MATRIX·FP64°E·MATRIX·FP64");
  const auto cmp = test::compare(g.host("E"), c.host("E"));
  INFO("exp -> ucumk+ -> log base 2 -> softmax 300x200 dense FP64: "
       << cmp.report << " max_abs_err=" << cmp.max_abs_err);
  CHECK(cmp.ok);
  CHECK(g.gpu->stats().from_dev_n == 1);
}
