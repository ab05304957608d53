// Plan rewrites (runtime/plan_rewrites.h): conv2d_bias_add + max(., 0) becomes conv2d_bias_add_relu
// + cpvar where SystemDS's pattern appears (both operand orders, INT64 and FP64 zeros, CP and GPU
// lines, nested blocks and functions) and nowhere else (A read again, live out, other operand not
// +0, another block, other exec types, B not fresh); rewritten plans give bit-identical results to
// the unrewritten ones on the CPU, NaN, ±Inf and -0 included; the config key; -explain, -stats and
// the API; the captured LeNet plans.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/test_files.h"
#include "common/test_paths.h"
#include "dmlrt/dmlrt.h"
#include "gpu_context/error.h"
#include "runtime/config.h"
#include "runtime/explain.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"
#include "runtime/plan_rewrites.h"

using namespace dmlrt;
using namespace dmlrt::runtime;
using Catch::Matchers::Contains;
using kernels::MatrixBlock;

namespace {

using dmlrt::test::read_all;
using dmlrt::test::write_file;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// stride 1x1, pad 1x1, N=3 C=2 H=5 W=4, K=3 R=3 S=2 -> P=5 Q=5: X 3x40, W 3x12, b 3x1, out 3x75.
const std::vector<int> kShape = {1, 1, 1, 1, 3, 2, 5, 4, 3, 2, 3, 2};
// 1x1 identity: N=1 C=1 H=2 W=3, K=1 R=1 S=1, no padding: out = X * W + b.
const std::vector<int> kShape1x1 = {1, 1, 0, 0, 1, 1, 2, 3, 1, 1, 1, 1};

const char* kZeroInt = "0·SCALAR·INT64·true";
const char* kZeroFp = "0.0·SCALAR·FP64·true";

std::string createvar(const std::string& name) {
  return "CP°createvar°" + name + "°scratch_space/t_" + name +
         "°true°MATRIX°binary°-1°-1°1000°-1°copy\n";
}

std::string conv_line(const std::string& exec, const std::string& out,
                      const std::vector<int>& shape = kShape, const std::string& x = "X") {
  std::string s = exec + "°conv2d_bias_add°" + x + "·MATRIX·FP64°b·MATRIX·FP64°W·MATRIX·FP64";
  for (int v : shape) s += "°" + std::to_string(v) + "·SCALAR·INT64·true";
  s += "°" + out + "·MATRIX·FP64";
  s += exec == "GPU" ? "°0.0\n" : "°2°0.0\n";  // as SystemDS writes each
  return s;
}

std::string max_line(const std::string& exec, const std::string& a, const std::string& other,
                     const std::string& out, bool other_first = false) {
  const std::string am = a + "·MATRIX·FP64";
  std::string s = exec + "°max°" + (other_first ? other + "°" + am : am + "°" + other) + "°" + out +
                  "·MATRIX·FP64";
  return s + (exec == "GPU" ? "\n" : "°2\n");
}

// The lines SystemDS emits for R = max(conv2d_bias_add(X, b, W), 0) (scripts/dml2plan on
// max(bias_add(conv2d(...), b), 0) and relu::forward(conv2d::forward(...))).
struct Pattern {
  std::string conv_exec = "CP";
  std::string max_exec = "CP";
  std::string zero = kZeroInt;
  bool zero_first = false;
  std::vector<int> shape = kShape;
  std::string between;      // lines between the conv and the max
  std::string after;        // lines between the max and rmvar A
  bool rmvar_a = true;      // false: A stays live out of the block
  bool createvar_b = true;  // false: B is not a fresh createvar
  std::string max_text() const { return max_line(max_exec, "_mVar1", zero, "_mVar2", zero_first); }
  std::string lines() const {
    return createvar("_mVar1") + conv_line(conv_exec, "_mVar1", shape) + between +
           (createvar_b ? createvar("_mVar2") : "") + max_text() + after +
           (rmvar_a ? "CP°rmvar°_mVar1\n" : "") + "CP°mvvar°_mVar2°R\n";
  }
};

std::string plan_of(const std::string& body) {
  std::string s = "PROGRAM\n--MAIN PROGRAM\n----GENERIC (lines 1-9) [recompile=false]\n";
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) s += "------" + line + "\n";
  return s;
}

void replace_first(std::string& s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  s.replace(at, from.size(), to);
}

RuntimeConfig config_with(bool fuse) {
  RuntimeConfig c;
  REQUIRE(apply_config_key(c, "dmlrt.rewrite.fuse_conv_relu", fuse ? "true" : "false"));
  return c;
}

// Parses `plan` and rewrites it with the default config.
Program rewritten(const std::string& plan, int* fused = nullptr) {
  Program p = parse_plan(plan, "t.plan");
  const RewriteReport r = apply_plan_rewrites(p, RuntimeConfig{});
  if (fused) *fused = r.conv_relu_fused;
  return p;
}

int fused_count(const std::string& body) {
  int n = -1;
  rewritten(plan_of(body), &n);
  return n;
}

const InstructionList& main_list(const Program& p) { return p.main.at(0)->instructions; }

std::vector<std::string> opcodes(const InstructionList& list) {
  std::vector<std::string> ops;
  for (const auto& i : list) ops.push_back(i->opcode());
  return ops;
}

MatrixBlock random_block(int64_t rows, int64_t cols, std::mt19937_64& rng, bool specials) {
  std::normal_distribution<double> nd(0.0, 1.0);
  std::uniform_int_distribution<int> pick(0, 11);
  std::vector<double> v(static_cast<size_t>(rows * cols));
  for (double& x : v) {
    x = nd(rng);
    if (!specials) continue;
    switch (pick(rng)) {
      case 0:
        x = kNaN;
        break;
      case 1:
        x = kInf;
        break;
      case 2:
        x = -kInf;
        break;
      case 3:
        x = -0.0;
        break;
      case 4:
        x = 0.0;
        break;
      default:
        break;
    }
  }
  return MatrixBlock::dense(rows, cols, std::move(v));
}

struct Inputs {
  MatrixBlock x, w, b;
};

// Runs `program` with X, W, b bound and returns R.
MatrixBlock run_for_r(const Program& program, const Inputs& in, Statistics* stats = nullptr) {
  std::ostringstream out;
  Interpreter interp(program, out, stats);
  inst::ExecutionContext ec(interp, {});
  ec.set_matrix("X", in.x);
  ec.set_matrix("W", in.w);
  ec.set_matrix("b", in.b);
  interp.run(ec);
  CHECK(ec.find("_mVar1") == nullptr);  // A was removed in both forms
  return *ec.matrix("R");
}

// Cell for cell, bit for bit (NaN payloads aside): NaN where NaN, same sign of zero.
void require_identical(const MatrixBlock& got, const MatrixBlock& ref) {
  const test::CompareResult cmp = test::compare_bits(got, ref);
  INFO(cmp.report);
  CHECK(cmp.ok);
}

// Java's Math.max(v, 0.0): NaN stays NaN, -0.0 becomes +0.0.
double java_relu(double v) {
  if (std::isnan(v)) return v;
  return v > 0.0 ? v : 0.0;
}

namespace fs = std::filesystem;

fs::path scratch_dir() {
  static std::atomic<int> counter{0};
  const fs::path dir =
      fs::temp_directory_path() /
      ("dmlrt_rewrite_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  fs::create_directories(dir);
  return dir;
}

struct CliRun {
  int code = -1;
  std::string out, err;
};

CliRun run_cli(const fs::path& dir, const std::string& args) {
  const std::string cmd = "cd '" + dir.string() + "' && DMLRT_LOG_LEVEL=warn '" +
                          dmlrt::test::dmlrt_binary() + "' " + args + " > out.txt 2> err.txt";
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_all(dir / "out.txt");
  r.err = read_all(dir / "err.txt");
  return r;
}

}  // namespace

TEST_CASE("rewrite: conv2d_bias_add + max(., 0) becomes conv2d_bias_add_relu + cpvar",
          "[rewrite]") {
  Pattern pat;
  pat.zero = GENERATE(as<std::string>{}, kZeroInt, kZeroFp, "0", "0·SCALAR·FP64·true",
                      "0E0·SCALAR·FP64·true");
  pat.zero_first = GENERATE(false, true);
  INFO(pat.max_text());
  int fused = -1;
  const Program p = rewritten(plan_of(pat.lines()), &fused);
  CHECK(fused == 1);
  const InstructionList& list = main_list(p);
  CHECK(opcodes(list) == std::vector<std::string>{"createvar", "conv2d_bias_add_relu", "createvar",
                                                  "cpvar", "rmvar", "mvvar"});
  CHECK(list[1]->stats_name() == "conv2d_bias_add_relu");
  CHECK(list[1]->exec_type() == inst::ExecType::kCP);
  CHECK(list[1]->has_gpu_impl());
  CHECK(list[1]->text().fields ==
        parse_plan(plan_of(pat.lines()), "t.plan").main.at(0)->instructions.at(1)->text().fields);
  CHECK(list[3]->text().raw == "CP°cpvar°_mVar1°_mVar2");
  CHECK(list[1]->text().loc.line == 5);  // the conv's line in the plan
  CHECK(list[3]->text().loc.line == 7);  // the max's line
}

TEST_CASE("rewrite: GPU lines fuse into a GPU conv2d_bias_add_relu", "[rewrite]") {
  Pattern pat;
  pat.conv_exec = pat.max_exec = "GPU";
  pat.zero_first = GENERATE(false, true);
  int fused = -1;
  const Program p = rewritten(plan_of(pat.lines()), &fused);
  CHECK(fused == 1);
  const InstructionList& list = main_list(p);
  CHECK(list[1]->opcode() == "conv2d_bias_add_relu");
  CHECK(list[1]->exec_type() == inst::ExecType::kGPU);
  CHECK(list[3]->text().raw == "CP°cpvar°_mVar1°_mVar2");
}

TEST_CASE("rewrite: the pattern is left alone where fusing could be observed", "[rewrite]") {
  Pattern pat;
  SECTION("A read between the conv and the max") {
    pat.between = "CP°nrow°_mVar1·MATRIX·FP64·false°_Var9·SCALAR·INT64°2\n";
  }
  SECTION("A read after the max (relu_maxpooling, as LeNet does)") {
    pat.after =
        "CP°createvar°_mVar3°scratch_space/t3°true°MATRIX°binary°-1°-1°1000°-1°copy\n"
        "CP°relu_maxpooling°_mVar1·MATRIX·FP64°1·SCALAR·INT64·true°1·SCALAR·INT64·true°"
        "0·SCALAR·INT64·true°0·SCALAR·INT64·true°3·SCALAR·INT64·true°3·SCALAR·INT64·true°"
        "5·SCALAR·INT64·true°5·SCALAR·INT64·true°1·SCALAR·INT64·true°3·SCALAR·INT64·true°"
        "1·SCALAR·INT64·true°1·SCALAR·INT64·true°_mVar3·MATRIX·FP64°2\n";
  }
  SECTION("A aliased after the max") { pat.after = "CP°cpvar°_mVar1°keep\n"; }
  SECTION("A named inside a key=value field") {
    pat.after =
        "CP°replace°target=_mVar1·MATRIX·FP64°pattern=1.0°replacement=2.0°_mVar9·MATRIX·"
        "FP64\n";
  }
  SECTION("A live out of the block (no rmvar)") { pat.rmvar_a = false; }
  SECTION("A removed before the max") { pat.between = "CP°rmvar°_mVar1\n"; }
  SECTION("other operand not +0") {
    pat.zero = GENERATE(as<std::string>{}, "1·SCALAR·INT64·true", "-0.0·SCALAR·FP64·true",
                        "0.5·SCALAR·FP64·true", "z·SCALAR·FP64·false", "0·SCALAR·INT32·true",
                        "FALSE·SCALAR·BOOLEAN·true");
    pat.zero_first = GENERATE(false, true);
  }
  SECTION("execution types differ") {
    pat.conv_exec = GENERATE(as<std::string>{}, "CP", "GPU");
    pat.max_exec = pat.conv_exec == "CP" ? "GPU" : "CP";
  }
  SECTION("B not a fresh createvar") { pat.createvar_b = false; }
  SECTION("B aliased between its createvar and the max") {
    const std::string body = createvar("_mVar1") + conv_line("CP", "_mVar1") + createvar("_mVar2") +
                             "CP°cpvar°_mVar2°alias\n" + pat.max_text() +
                             "CP°rmvar°_mVar1\nCP°mvvar°_mVar2°R\n";
    CHECK(fused_count(body) == 0);
    return;
  }
  SECTION("the conv reads its own output") {
    const std::string body = createvar("_mVar1") + conv_line("CP", "_mVar1", kShape, "_mVar1") +
                             createvar("_mVar2") + pat.max_text() +
                             "CP°rmvar°_mVar1\nCP°mvvar°_mVar2°R\n";
    CHECK(fused_count(body) == 0);
    return;
  }
  SECTION("min instead of max") {
    std::string body = pat.lines();
    replace_first(body, "°max°", "°min°");
    CHECK(fused_count(body) == 0);
    return;
  }
  SECTION("max of two matrices") {
    std::string body = pat.lines();
    replace_first(body, kZeroInt, "Z·MATRIX·FP64");
    CHECK(fused_count(body) == 0);
    return;
  }
  SECTION("a ¶ placeholder in the max") { pat.zero = "¶z¶·SCALAR·INT64·true"; }
  INFO(pat.lines());
  CHECK(fused_count(pat.lines()) == 0);
}

TEST_CASE("rewrite: a similar name is not a read of A", "[rewrite]") {
  Pattern pat;
  // _mVar10 and x_mVar1 are other variables; the pattern still fires.
  pat.after =
      "CP°nrow°_mVar10·MATRIX·FP64·false°_Var9·SCALAR·INT64°2\n"
      "CP°assignvar°1·SCALAR·INT64·true°x_mVar1·SCALAR·INT64\n";
  CHECK(fused_count(pat.lines()) == 1);
}

TEST_CASE("rewrite: the max in another block is not fused", "[rewrite]") {
  const Pattern pat;
  const std::string plan = "PROGRAM\n--MAIN PROGRAM\n----GENERIC\n------" + createvar("_mVar1") +
                           "------" + conv_line("CP", "_mVar1") + "----GENERIC\n------" +
                           createvar("_mVar2") + "------" + pat.max_text() +
                           "------CP°rmvar°_mVar1\n------CP°mvvar°_mVar2°R\n";
  int fused = -1;
  rewritten(plan, &fused);
  CHECK(fused == 0);
}

TEST_CASE("rewrite: nested blocks and function bodies are rewritten", "[rewrite]") {
  const Pattern pat;
  auto indented = [&](const std::string& dashes) {
    std::string s;
    std::istringstream in(pat.lines());
    for (std::string line; std::getline(in, line);) s += dashes + line + "\n";
    return s;
  };
  const std::string inner = indented("--------");
  const std::string plan_fn =
      "PROGRAM\n--FUNCTIONS\n----FUNCTION .defaultNS::f [in=X·MATRIX·FP64,W·MATRIX·FP64,b·MATRIX·"
      "FP64] [out=R·MATRIX·FP64]\n------GENERIC\n" +
      inner +
      "--MAIN PROGRAM\n----FOR (lines 1-3) [iter=i]\n------FROM\n"
      "------CP°assignvar°1·SCALAR·INT64·true°__pred·SCALAR·INT64\n------TO\n"
      "------CP°assignvar°2·SCALAR·INT64·true°__pred·SCALAR·INT64\n------GENERIC\n" +
      inner + "----IF\n------CP°assignvar°true·SCALAR·BOOLEAN·true°__pred·SCALAR·BOOLEAN\n" +
      "------GENERIC\n" + inner + "----ELSE\n------GENERIC\n" + inner;
  int fused = -1;
  const Program p = rewritten(plan_fn, &fused);
  CHECK(fused == 4);
  CHECK(p.functions.at(".defaultNS::f").body.at(0)->instructions.at(1)->opcode() ==
        "conv2d_bias_add_relu");
  CHECK(p.main.at(0)->body.at(0)->instructions.at(1)->opcode() == "conv2d_bias_add_relu");
  CHECK(p.main.at(1)->else_body.at(0)->instructions.at(3)->opcode() == "cpvar");
}

TEST_CASE("rewrite: results are bit-identical to the unfused plan on the CPU", "[rewrite]") {
  Pattern pat;
  pat.zero = GENERATE(as<std::string>{}, kZeroInt, kZeroFp);
  pat.zero_first = GENERATE(false, true);
  const bool specials = GENERATE(false, true);
  std::mt19937_64 rng(Catch::rngSeed() + 0x5eed + (specials ? 1 : 0));
  Inputs in{random_block(3, 40, rng, specials), random_block(3, 12, rng, specials),
            random_block(3, 1, rng, specials)};
  if (specials) {
    // Rows of zeros and -0 keep some outputs at ±0 instead of NaN everywhere.
    for (int64_t c = 0; c < 40; ++c) in.x.dense_values()[static_cast<size_t>(c)] = -0.0;
    in.b.dense_values()[0] = -0.0;
  }
  const std::string plan = plan_of(pat.lines());
  const Program plain = parse_plan(plan, "t.plan");
  int fused = -1;
  const Program fast = rewritten(plan, &fused);
  REQUIRE(fused == 1);
  Statistics stats;
  const MatrixBlock ref = run_for_r(plain, in);
  const MatrixBlock got = run_for_r(fast, in, &stats);
  require_identical(got, ref);
  CHECK(stats.entries().count("conv2d_bias_add_relu") == 1);
  CHECK(stats.entries().count("max") == 0);
  CHECK(stats.entries().count("conv2d_bias_add") == 0);
  if (specials) {  // the inputs did reach the ReLU with NaN and negative values
    bool nan = false, clipped = false;
    for (int64_t r = 0; r < ref.rows(); ++r)
      for (int64_t c = 0; c < ref.cols(); ++c) {
        nan |= std::isnan(ref.get(r, c));
        clipped |= ref.get(r, c) == 0.0;
      }
    CHECK(nan);
    CHECK(clipped);
  }
}

TEST_CASE("rewrite: the fused ReLU follows Java's Math.max on NaN, ±0 and ±Inf", "[rewrite]") {
  // A 1x1 identity filter with a zero bias passes X through the ReLU cell by cell.
  Pattern pat;
  pat.shape = kShape1x1;
  pat.zero = GENERATE(as<std::string>{}, kZeroInt, kZeroFp);
  pat.zero_first = GENERATE(false, true);
  const std::vector<double> x = {kNaN, -0.0, 0.0, kInf, -kInf, -2.5};
  const Inputs in{MatrixBlock::dense(1, 6, x), MatrixBlock::dense(1, 1, 1.0),
                  MatrixBlock::dense(1, 1, 0.0)};
  const std::string plan = plan_of(pat.lines());
  const MatrixBlock ref = run_for_r(parse_plan(plan, "t.plan"), in);
  const MatrixBlock got = run_for_r(rewritten(plan), in);
  require_identical(got, ref);
  REQUIRE(got.cols() == 6);
  for (int64_t c = 0; c < 6; ++c) {
    const double want = java_relu(x[static_cast<size_t>(c)] + 0.0);
    INFO("cell " << c << " input " << x[static_cast<size_t>(c)]);
    if (std::isnan(want)) {
      CHECK(std::isnan(got.get(0, c)));
    } else {
      CHECK(got.get(0, c) == want);
      CHECK_FALSE(std::signbit(got.get(0, c)));
    }
  }
}

TEST_CASE("rewrite: dmlrt.rewrite.fuse_conv_relu=false turns the pass off", "[rewrite][config]") {
  const Pattern pat;
  Program p = parse_plan(plan_of(pat.lines()), "t.plan");
  const RewriteReport r = apply_plan_rewrites(p, config_with(false));
  CHECK(r.conv_relu_fused == 0);
  CHECK(opcodes(main_list(p)) == std::vector<std::string>{"createvar", "conv2d_bias_add",
                                                          "createvar", "max", "rmvar", "mvvar"});
  const RuntimeConfig defaults;
  CHECK(defaults.rewrite_fuse_conv_relu);
  CHECK(apply_plan_rewrites(p, config_with(true)).conv_relu_fused == 1);

  RuntimeConfig c;
  parse_config("<root><dmlrt.rewrite.fuse_conv_relu>FALSE</dmlrt.rewrite.fuse_conv_relu></root>",
               "c.xml", c);
  CHECK_FALSE(c.rewrite_fuse_conv_relu);
  CHECK_THROWS_WITH(
      parse_config("<root>\n<dmlrt.rewrite.fuse_conv_relu>no</dmlrt.rewrite.fuse_conv_relu>"
                   "</root>",
                   "c.xml", c),
      "c.xml:2: dmlrt.rewrite.fuse_conv_relu: expected true or false, got 'no'");
}

TEST_CASE("rewrite: -explain prints the fused line, which parses and runs again", "[rewrite]") {
  const Pattern pat;
  const Program p = rewritten(plan_of(pat.lines()));
  std::ostringstream text, raw;
  print_explain(p, text, false);
  print_explain(p, raw, true);
  CHECK_THAT(text.str(), Contains("------CP conv2d_bias_add_relu X.MATRIX.FP64 b.MATRIX.FP64 "
                                  "W.MATRIX.FP64 1.SCALAR.INT64.true"));
  CHECK_THAT(text.str(), Contains("------CP cpvar _mVar1 _mVar2\n"));
  CHECK_THAT(raw.str(), Contains("------CP°conv2d_bias_add_relu°X·MATRIX·FP64°"));

  std::mt19937_64 rng(Catch::rngSeed() + 77);
  const Inputs in{random_block(3, 40, rng, true), random_block(3, 12, rng, false),
                  random_block(3, 1, rng, false)};
  const MatrixBlock ref = run_for_r(parse_plan(plan_of(pat.lines()), "t.plan"), in);
  for (const std::string& form : {raw.str(), text.str()}) {
    const Program again = parse_plan(form, "explained.plan");
    CHECK(main_list(again).at(1)->opcode() == "conv2d_bias_add_relu");
    require_identical(run_for_r(again, in), ref);
  }
}

TEST_CASE("rewrite: bad conv2d_bias_add_relu lines are rejected clearly", "[rewrite][parser]") {
  const Pattern pat;
  std::string conv = conv_line("CP", "_mVar1");
  replace_first(conv, "conv2d_bias_add", "conv2d_bias_add_relu");
  conv.pop_back();  // newline
  SECTION("placeholders") {
    std::string line = conv;
    replace_first(line, "°3·SCALAR·INT64·true", "°¶n¶·SCALAR·INT64·true");
    CHECK_THROWS_WITH(parse_plan(plan_of(line), "f.plan"),
                      Contains("f.plan:4: instruction 'CP°conv2d_bias_add_relu°") &&
                          Contains("conv2d_bias_add_relu cannot take ¶name¶ placeholders"));
  }
  SECTION("SPARK lines") {
    const std::string line = "SPARK" + conv.substr(2);
    CHECK_THROWS_WITH(parse_plan(plan_of(line), "f.plan"),
                      Contains("f.plan:4") && Contains("compile the script with -exec singlenode"));
  }
  SECTION("missing operands") {
    const std::string line = "CP°conv2d_bias_add_relu°X·MATRIX·FP64°b·MATRIX·FP64";
    CHECK_THROWS_WITH(parse_plan(plan_of(line), "f.plan"),
                      Contains("f.plan:4") && Contains("conv2d_bias_add_relu") &&
                          Contains("expects 16 to 18 operand fields, got 2"));
  }
  SECTION("a matrix where a shape scalar belongs") {
    std::string line = conv;
    replace_first(line, "°1·SCALAR·INT64·true", "°S·MATRIX·FP64");
    CHECK_THROWS_WITH(parse_plan(plan_of(line), "f.plan"),
                      Contains("f.plan:4") && Contains("expects a scalar as shape operand 1"));
  }
}

TEST_CASE("rewrite: the captured LeNet plans keep their convolutions unfused", "[rewrite]") {
  // Training reads each conv output again (relu_maxpooling, relu_maxpooling_backward), so the
  // max lines (whose results only feed nrow) stay, and so do the affine layers' max(A + b, 0).
  for (const char* c : {"dnn_lenet", "dnn_lenet_gpuplan"}) {
    INFO(c);
    Program p = parse_plan_file(test::test_data_dir() + "/conformance/cases/" + c + "/plan.plan");
    CHECK(apply_plan_rewrites(p, RuntimeConfig{}).conv_relu_fused == 0);
  }
}

TEST_CASE("rewrite: the API rewrites prepared scripts unless the config says no",
          "[rewrite][api]") {
  const Pattern pat;
  const std::string plan = plan_of(pat.lines());
  std::mt19937_64 rng(Catch::rngSeed() + 99);
  const Inputs in{random_block(3, 40, rng, true), random_block(3, 12, rng, false),
                  random_block(3, 1, rng, false)};
  const fs::path dir = scratch_dir();
  write_file(dir / "off.xml",
             "<root><dmlrt.rewrite.fuse_conv_relu>false</dmlrt.rewrite.fuse_conv_relu></root>");
  std::vector<std::vector<double>> results;
  for (bool fuse : {true, false}) {
    Options o;
    if (!fuse) o.config_file = (dir / "off.xml").string();
    Connection conn(o);
    PreparedScript s = conn.prepare_script(plan, {"X", "W", "b"}, {"R"});
    CHECK((s.explain().find("conv2d_bias_add_relu") != std::string::npos) == fuse);
    s.set_matrix("X", in.x.rows(), in.x.cols(), in.x.dense_data());
    s.set_matrix("W", in.w.rows(), in.w.cols(), in.w.dense_data());
    s.set_matrix("b", in.b.rows(), in.b.cols(), in.b.dense_data());
    const Matrix r = s.execute().get_matrix("R");
    std::vector<double> v;
    for (int64_t i = 0; i < r.rows(); ++i)
      for (int64_t j = 0; j < r.cols(); ++j) v.push_back(r.at(i, j));
    results.push_back(v);
  }
  fs::remove_all(dir);
  REQUIRE(results[0].size() == results[1].size());
  for (size_t i = 0; i < results[0].size(); ++i) {
    const double g = results[0][i], e = results[1][i];
    INFO("cell " << i);
    CHECK(((std::isnan(g) && std::isnan(e)) || (g == e && std::signbit(g) == std::signbit(e))));
  }
}

TEST_CASE("rewrite: the CLI fuses, prints and counts conv2d_bias_add_relu; -config turns it off",
          "[rewrite][cli]") {
  const fs::path dir = scratch_dir();
  auto rand_line = [](const std::string& name, int rows, int cols, int seed) {
    return createvar(name) + "CP°rand°" + std::to_string(rows) + "·SCALAR·INT64·true°" +
           std::to_string(cols) + "·SCALAR·INT64·true°1000°-1.0°1.0°1.0°" + std::to_string(seed) +
           "°uniform°1.0°2°" + name + "·MATRIX·FP64\n";
  };
  Pattern pat;
  const std::string body = rand_line("X", 3, 40, 11) + rand_line("W", 3, 12, 12) +
                           rand_line("b", 3, 1, 13) + pat.lines() +
                           "CP°write°R·MATRIX·FP64°r.csv·SCALAR·STRING·true°csv·SCALAR·STRING·"
                           "true°false·SCALAR·BOOLEAN·true°,·SCALAR·STRING·true°false·SCALAR·"
                           "BOOLEAN·true°1000\n";
  write_file(dir / "p.plan", plan_of(body));
  write_file(dir / "off.xml",
             "<root><dmlrt.rewrite.fuse_conv_relu>false</dmlrt.rewrite.fuse_conv_relu></root>");
  const CliRun on = run_cli(dir, "-explain -stats 20 -f p.plan");
  INFO(on.err);
  REQUIRE(on.code == 0);
  const std::string on_csv = read_all(dir / "r.csv");
  const CliRun off = run_cli(dir, "-config off.xml -explain -stats 20 -f p.plan");
  INFO(off.err);
  REQUIRE(off.code == 0);
  const std::string off_csv = read_all(dir / "r.csv");
  fs::remove_all(dir);
  CHECK_THAT(on.out, Contains("CP conv2d_bias_add_relu X.MATRIX.FP64"));
  CHECK_THAT(on.out, Contains("CP cpvar _mVar1 _mVar2"));
  CHECK_THAT(on.out, Contains(" conv2d_bias_add_relu "));  // the heavy-hitter row
  CHECK_THAT(off.out, Contains("CP conv2d_bias_add X.MATRIX.FP64"));
  CHECK_THAT(off.out, Contains("CP max _mVar1.MATRIX.FP64 0.SCALAR.INT64.true _mVar2"));
  CHECK(off.out.find("conv2d_bias_add_relu") == std::string::npos);
  CHECK_FALSE(on_csv.empty());
  CHECK(on_csv == off_csv);
}
