// Fused cell-wise chains on the device (instructions/fused_cellwise.h, kernels/cuda/fused_cellwise):
// plans run through the interpreter under -gpu force, fused and unfused (dmlrt.rewrite.fuse_cellwise
// off) in one session, and on the CPU. The fused run must give the unfused GPU run's bits (NaN where
// NaN, same sign of zero) and the CPU's values within 1e-9 (FP64) / 1e-4 (FP32), for every binary
// op, every unary builtin, the ternaries, scalar-left forms, row and column vector broadcasts, on
// 1x1, vector, odd and larger shapes with dense, sparse, ultra-sparse and empty inputs, in FP64 and
// FP32. Chains that do not fit the kernel (an outer broadcast, an empty dimension, a written
// variable whose object another name shares, a mismatched shape) fall back to their lines: same
// results, same error messages, -stats line by line.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_env.h"
#include "gpu_test_util.h"
#include "runtime/config.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"
#include "runtime/plan_rewrites.h"

namespace dmlrt::test::gpu {
namespace {

std::string m(const std::string& name) { return name + "·MATRIX·FP64"; }
std::string lit(const std::string& v) { return v + "·SCALAR·FP64·true"; }

std::string plan_of(const std::vector<std::string>& lines) {
  std::string s = "PROGRAM\n--MAIN PROGRAM\n----GENERIC (lines 1-9) [recompile=false]\n";
  for (const std::string& l : lines) s += "------" + l + "\n";
  return s;
}

runtime::Program program_of(const std::vector<std::string>& lines, bool fuse) {
  runtime::Program p = runtime::parse_plan(plan_of(lines), "f.plan");
  runtime::RuntimeConfig c;
  c.rewrite_fuse_cellwise = fuse;
  runtime::apply_plan_rewrites(p, c);
  return p;
}

struct Run {
  MatrixBlock result;
  runtime::Statistics stats;
  std::string error;
};

// Runs `lines` (fused or not) with `inputs` bound, on `gpu` under -gpu force (null: the CPU);
// returns the matrix `out`, or the error message.
Run run(const std::vector<std::string>& lines, bool fuse,
        const std::map<std::string, MatrixBlock>& inputs, std::shared_ptr<mem::GpuSession> gpu,
        const std::string& out = "R") {
  const runtime::Program p = program_of(lines, fuse);
  Run r;
  std::ostringstream os;
  runtime::Interpreter interp(p, os, &r.stats);
  inst::RunOptions ro;
  ro.gpu = std::move(gpu);
  ro.gpu_mode = inst::GpuMode::kForce;
  inst::ExecutionContext ec(interp, ro);
  for (const auto& [name, b] : inputs) ec.set_matrix(name, b);
  try {
    interp.run(ec);
    r.result = *ec.matrix(out);
  } catch (const Error& e) {
    r.error = e.what();
  }
  return r;
}

// Bit for bit when tol is 0, else within tol (absolute and relative), NaN where NaN.
void check_cells(const MatrixBlock& got, const MatrixBlock& ref, double tol) {
  const test::CompareResult cmp =
      tol == 0.0 ? test::compare_bits(got, ref) : test::compare(got, ref, tol, tol);
  INFO(cmp.report);
  CHECK(cmp.ok);
}

bool ran_fused(const Run& r) {
  for (const auto& [name, e] : r.stats.entries())
    if (name.rfind("gpu_fused(", 0) == 0 && e.count > 0) return true;
  return false;
}

// One chain on the three paths: fused GPU == unfused GPU bit for bit, and == CPU within tol.
void check_chain(const std::string& what, const std::vector<std::string>& lines,
                 const std::map<std::string, MatrixBlock>& inputs, mem::DType dt,
                 const std::shared_ptr<mem::GpuSession>& gpu, bool expect_fused = true,
                 bool against_cpu = true) {
  INFO(what << " " << prec_name(dt));
  const Run fused = run(lines, true, inputs, gpu);
  const Run plain = run(lines, false, inputs, gpu);
  REQUIRE(fused.error == "");
  REQUIRE(plain.error == "");
  CHECK(ran_fused(fused) == expect_fused);
  CHECK_FALSE(ran_fused(plain));
  check_cells(fused.result, plain.result, 0.0);
  if (against_cpu) {
    const Run cpu = run(lines, true, inputs, nullptr);
    REQUIRE(cpu.error == "");
    check_cells(fused.result, cpu.result, tol_of(dt));
  }
}

std::shared_ptr<mem::GpuSession> session(mem::DType dt) {
  mem::GpuSessionOptions o = GpuEnv::options(dt);
  o.sync_each_instruction = true;  // a fault is reported at its instruction
  return std::make_shared<mem::GpuSession>(o, 0);
}

const std::vector<std::pair<int64_t, int64_t>> kShapes = {
    {1, 1}, {1, 7}, {13, 1}, {17, 33}, {300, 257}};

}  // namespace

TEST_CASE("gpu fused cellwise: SGD-Nesterov and broadcast chains equal the unfused GPU and the CPU",
          "[gpu][fused]") {
  const uint64_t seed = test::seed_from("gpu fused cellwise sgd");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    auto gpu = session(dt);
    for (const auto& [r, c] : kShapes)
      for (const Format& f : formats()) {
        const std::string what = std::to_string(r) + "x" + std::to_string(c) + " " + f.name;
        const uint64_t s = seed + static_cast<uint64_t>(r * 1000 + c) + (f.sparse ? 7 : 0);
        const std::map<std::string, MatrixBlock> in = {
            {"dW", input(r, c, f, s + 1, dt)}, {"W", input(r, c, f, s + 2, dt)},
            {"V", input(r, c, formats()[0], s + 3, dt)}, {"P", input(r, c, f, s + 4, dt)},
            {"colv", input(r, 1, f, s + 5, dt)}, {"rowv", input(1, c, f, s + 6, dt)}};
        // [W, v] = sgd_nesterov::update with the L2 gradient, as SystemDS compiles it.
        check_chain("sgd " + what,
                    {"CP°createvar°T1°scratch_space/t1°true°MATRIX°binary°-1°-1°1000°-1°copy",
                     "CP°+*°" + m("dW") + "°" + lit("5.0E-4") + "°" + m("W") + "°" + m("T1") + "°2",
                     "CP°-*°" + m("V") + "°" + lit("0.01") + "°" + m("T1") + "°" + m("T2") + "°2",
                     "CP°rmvar°T1",
                     "CP°+*°" + m("P") + "°" + lit("1.9") + "°" + m("T2") + "°" + m("R") + "°2"},
                    in, dt, gpu);
        // Softmax-like with column-vector operands, then a row-vector bias and a ReLU.
        check_chain("column vectors " + what,
                    {"CP°-°" + m("W") + "°" + m("colv") + "°" + m("T1"),
                     "CP°exp°" + m("T1") + "°" + m("T2") + "°2°false",
                     "CP°/°" + m("T2") + "°" + m("colv") + "°" + m("R")},
                    in, dt, gpu);
        check_chain("row vector " + what,
                    {"CP°+°" + m("dW") + "°" + m("rowv") + "°" + m("T1"),
                     "CP°max°" + m("T1") + "°0·SCALAR·INT64·true°" + m("T2") + "°2",
                     "CP°*°" + m("T2") + "°" + m("W") + "°" + m("R")},
                    in, dt, gpu);
      }
  }
}

TEST_CASE("gpu fused cellwise: every binary op, both operand orders", "[gpu][fused]") {
  const uint64_t seed = test::seed_from("gpu fused cellwise binary");
  const char* ops[] = {"+",  "-",  "*",  "/",  "^",  "%%", "%/%", "==",  "!=", "<",
                       ">",  "<=", ">=", "&&", "||", "min", "max", "1-*", "-nz"};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    auto gpu = session(dt);
    for (const char* op : ops)
      for (const auto& [r, c] : {std::pair<int64_t, int64_t>{1, 1}, {23, 19}}) {
        const std::string o = op;
        const std::map<std::string, MatrixBlock> in = {
            {"X", input(r, c, formats()[0], seed + 1, dt)},
            {"Y", input(r, c, formats()[1], seed + 2, dt)}};
        // Rounding in FP32 moves %% and %/% results across integer boundaries on the CPU.
        const bool cpu_ok = dt == mem::DType::kFloat64 || (o != "%%" && o != "%/%");
        check_chain(o + " " + std::to_string(r) + "x" + std::to_string(c),
                    {"CP°" + o + "°" + m("X") + "°" + m("Y") + "°" + m("T1"),
                     "CP°" + o + "°" + m("T1") + "°" + lit("0.75") + "°" + m("T2"),
                     "CP°" + o + "°" + lit("1.5") + "°" + m("T2") + "°" + m("T3"),
                     "CP°+°" + m("T3") + "°" + m("X") + "°" + m("R")},
                    in, dt, gpu, true, cpu_ok);
      }
  }
}

TEST_CASE("gpu fused cellwise: every unary builtin and the ternaries", "[gpu][fused]") {
  const uint64_t seed = test::seed_from("gpu fused cellwise unary");
  const char* ops[] = {"exp", "log",  "abs",  "sqrt", "round", "floor", "ceil",
                       "sin", "cos",  "tan",  "sinh", "cosh",  "tanh",  "asin",
                       "acos", "atan", "sign", "sigmoid", "!",  "^2",    "*2"};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    auto gpu = session(dt);
    const std::map<std::string, MatrixBlock> in = {
        {"X", input(31, 17, formats()[0], seed + 1, dt)},
        {"C", input(31, 17, formats()[1], seed + 2, dt)}};
    for (const char* op : ops) {
      const std::string o = op;
      const std::string mid = (o == "^2" || o == "*2")
                                  ? "CP°" + o + "°" + m("T1") + "°2·SCALAR·INT64·true°" + m("T2")
                                  : "CP°" + o + "°" + m("T1") + "°" + m("T2") + "°2";
      check_chain(o,
                  {"CP°*°" + m("X") + "°" + lit("0.5") + "°" + m("T1"), mid,
                   "CP°-°" + m("T2") + "°" + m("X") + "°" + m("R")},
                  in, dt, gpu);
    }
    check_chain("ternaries",
                {"CP°>°" + m("X") + "°0·SCALAR·INT64·true°" + m("T1"),
                 "CP°ifelse°" + m("T1") + "°" + m("X") + "°" + lit("-0.0") + "°" + m("T2"),
                 "CP°+*°" + m("T2") + "°" + lit("2") + "°" + m("C") + "°" + m("T3"),
                 "CP°ifelse°" + m("C") + "°" + m("T3") + "°" + m("T1") + "°" + m("T4"),
                 "CP°-*°" + m("T4") + "°" + m("T2") + "°" + m("X") + "°" + m("R")},
                in, dt, gpu);
  }
}

TEST_CASE("gpu fused cellwise: NaN, infinities and signed zeros keep the unfused bits",
          "[gpu][fused]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const MatrixBlock x = MatrixBlock::dense(2, 4, std::vector<double>{nan, inf, -inf, -0.0, 0.0, 3.0, -2.5, 1e300});
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    auto gpu = session(dt);
    check_chain("specials",
                {"CP°max°" + m("X") + "°0·SCALAR·INT64·true°" + m("T1"),
                 "CP°*°" + m("T1") + "°" + lit("-1") + "°" + m("T2"),
                 "CP°min°" + m("T2") + "°" + m("X") + "°" + m("T3"),
                 "CP°+*°" + m("T3") + "°" + lit("3") + "°" + m("T2") + "°" + m("T4"),
                 "CP°sign°" + m("T4") + "°" + m("T5") + "°2",
                 "CP°-nz°" + m("T5") + "°" + m("X") + "°" + m("R")},
                {{"X", dt == mem::DType::kFloat32 ? rounded_f32(x) : x}}, dt, gpu);
  }
}

TEST_CASE("gpu fused cellwise: the benchmark's ten-step loop body keeps both variables",
          "[gpu][fused]") {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    auto gpu = session(dt);
    std::vector<std::string> lines;
    for (int k = 0; k < 10; ++k)
      lines.push_back(k % 2 == 0 ? "CP°+°" + m("A") + "°" + lit("1") + "°" + m("B")
                                 : "CP°+°" + m("B") + "°" + lit("1") + "°" + m("A"));
    const std::map<std::string, MatrixBlock> in = {{"A", MatrixBlock::dense(1, 1, 0.5)}};
    INFO(prec_name(dt));
    const Run a = run(lines, true, in, gpu, "A");
    const Run b = run(lines, true, in, gpu, "B");
    REQUIRE(a.error == "");
    CHECK(ran_fused(a));
    CHECK(a.result.get(0, 0) == 10.5);
    CHECK(b.result.get(0, 0) == 9.5);
  }
}

TEST_CASE("gpu fused cellwise: chains that do not fit fall back to their lines", "[gpu][fused]") {
  const uint64_t seed = test::seed_from("gpu fused cellwise fallback");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    auto gpu = session(dt);
    // column vector op row vector: an outer broadcast, which the fused kernel does not do.
    check_chain("outer",
                {"CP°+°" + m("c") + "°" + m("r") + "°" + m("T1"),
                 "CP°*°" + m("T1") + "°" + lit("2") + "°" + m("R")},
                {{"c", input(9, 1, formats()[0], seed + 1, dt)},
                 {"r", input(1, 5, formats()[0], seed + 2, dt)}},
                dt, gpu, /*expect_fused=*/false);
    // A written variable sharing its object with an input (cpvar X T1): the plain lines change X
    // when they write T1, so the second step reads X + 1; the chain must run its lines.
    check_chain("aliased output",
                {"CP°cpvar°X°T1", "CP°+°" + m("X") + "°" + lit("1") + "°" + m("T1"),
                 "CP°*°" + m("T1") + "°" + m("X") + "°" + m("R")},
                {{"X", input(6, 5, formats()[0], seed + 5, dt)}}, dt, gpu, /*expect_fused=*/false);
    // An empty dimension.
    check_chain("0x5",
                {"CP°+°" + m("X") + "°" + lit("1") + "°" + m("T1"),
                 "CP°*°" + m("T1") + "°" + lit("2") + "°" + m("R")},
                {{"X", MatrixBlock::dense(0, 5, std::vector<double>{})}}, dt, gpu, false);
    // A string scalar: the line's own error.
    const std::vector<std::string> bad_scalar = {
        "CP°+°" + m("X") + "°" + lit("1") + "°" + m("T1"),
        "CP°*°" + m("T1") + "°abc·SCALAR·STRING·true°" + m("R")};
    // Mismatched shapes: the same message as without fusing, naming the second line.
    const std::vector<std::string> bad_shape = {
        "CP°+°" + m("X") + "°" + lit("1") + "°" + m("T1"),
        "CP°*°" + m("T1") + "°" + m("Y") + "°" + m("R")};
    const std::map<std::string, MatrixBlock> in = {
        {"X", input(3, 4, formats()[0], seed + 3, dt)},
        {"Y", input(2, 4, formats()[0], seed + 4, dt)}};
    for (const auto& lines : {bad_scalar, bad_shape}) {
      const Run fused = run(lines, true, in, gpu);
      const Run plain = run(lines, false, in, gpu);
      INFO(lines[1]);
      CHECK(fused.error != "");
      CHECK(fused.error == plain.error);
      CHECK_THAT(fused.error, Catch::Matchers::Contains("f.plan:5: instruction 'CP°*°T1"));
    }
  }
}

}  // namespace dmlrt::test::gpu
