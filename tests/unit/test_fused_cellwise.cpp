// The cell-wise chain rewrite (runtime/plan_rewrites.h, Note [Fusing cell-wise chains]) on the
// host: which lines form a chain (connected cell-wise steps of one execution type, only createvar
// and rmvar between them, the kernel's limits) and which do not; the chain's inputs, scalars and
// live outputs; that a fused plan runs exactly as the unfused one on the CPU (values, symbol table,
// errors, -stats counted line by line), -explain prints the original lines, the config key, and
// what the pass finds in the captured LeNet plans. The GPU path: tests/gpu/test_gpu_fused_cellwise.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/compare.h"
#include "common/test_paths.h"
#include "gpu_context/error.h"
#include "instructions/fused_cellwise.h"
#include "kernels/cuda/fused_cellwise.h"
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

std::string m(const std::string& name) { return name + "·MATRIX·FP64"; }
std::string lit(const std::string& v) { return v + "·SCALAR·FP64·true"; }
std::string createvar(const std::string& name) {
  return "CP°createvar°" + name + "°scratch_space/t_" + name +
         "°true°MATRIX°binary°-1°-1°1000°-1°copy";
}

std::string plan_of(const std::vector<std::string>& lines) {
  std::string s = "PROGRAM\n--MAIN PROGRAM\n----GENERIC (lines 1-9) [recompile=false]\n";
  for (const std::string& l : lines) s += "------" + l + "\n";
  return s;
}

RuntimeConfig config_with(bool fuse) {
  RuntimeConfig c;
  REQUIRE(apply_config_key(c, "dmlrt.rewrite.fuse_cellwise", fuse ? "true" : "false"));
  return c;
}

Program rewritten(const std::vector<std::string>& lines, RewriteReport* report = nullptr,
                  bool fuse = true) {
  Program p = parse_plan(plan_of(lines), "c.plan");
  const RewriteReport r = apply_plan_rewrites(p, config_with(fuse));
  if (report != nullptr) *report = r;
  return p;
}

const InstructionList& main_list(const Program& p) { return p.main.at(0)->instructions; }

std::vector<std::string> opcodes(const InstructionList& list) {
  std::vector<std::string> ops;
  for (const auto& i : list) ops.push_back(i->opcode());
  return ops;
}

// The SGD-Nesterov update as SystemDS compiles [W, v] = sgd_nesterov::update(W, dW, lr, mu, v)
// after W's L2 gradient (dW + lambda * W): dW2 = dW + 5e-4 W; V2 = V - 0.01 dW2; W2 = P + 1.9 V2.
std::vector<std::string> sgd_lines() {
  return {createvar("T1"),
          "CP°+*°" + m("dW") + "°" + lit("5.0E-4") + "°" + m("W") + "°" + m("T1") + "°2",
          "CP°rmvar°dW",
          createvar("T2"),
          "CP°-*°" + m("V") + "°" + lit("0.01") + "°" + m("T1") + "°" + m("T2") + "°2",
          "CP°rmvar°V°T1",
          createvar("T3"),
          "CP°+*°" + m("P") + "°" + lit("1.9") + "°" + m("T2") + "°" + m("T3") + "°2",
          "CP°rmvar°P",
          "CP°mvvar°T2°Vout",
          "CP°mvvar°T3°Wout"};
}

// The overhead benchmark's FOR body: A -> B -> A ... ten + 1 on user variables.
std::vector<std::string> ping_pong_lines(int n) {
  std::vector<std::string> l;
  for (int k = 0; k < n; ++k)
    l.push_back(k % 2 == 0 ? "CP°+°" + m("A") + "°" + lit("1") + "°" + m("B")
                           : "CP°+°" + m("B") + "°" + lit("1") + "°" + m("A"));
  return l;
}

// Uniform in [-2, 2), with NaN, +Inf and -0 in some cells when `specials`.
MatrixBlock random_block(int64_t rows, int64_t cols, uint64_t seed, bool specials) {
  MatrixBlock b = test::random_block(rows, cols, 1.0, seed, -2.0, 2.0);
  if (specials) {
    std::vector<double>& v = b.dense_values();
    for (size_t i = 0; i < v.size(); i += 7) v[i] = std::numeric_limits<double>::quiet_NaN();
    for (size_t i = 3; i < v.size(); i += 11) v[i] = std::numeric_limits<double>::infinity();
    for (size_t i = 5; i < v.size(); i += 13) v[i] = -0.0;
  }
  return b;
}

struct RunResult {
  std::map<std::string, MatrixBlock> matrices;
  std::set<std::string> names;
  Statistics stats;
};

// Runs `p` on the CPU with `inputs` bound; returns every matrix variable left and all names.
RunResult run(const Program& p, const std::map<std::string, MatrixBlock>& inputs) {
  RunResult res;
  std::ostringstream out;
  Interpreter interp(p, out, &res.stats);
  inst::ExecutionContext ec(interp, {});
  for (const auto& [name, b] : inputs) ec.set_matrix(name, b);
  interp.run(ec);
  for (const std::string& n : ec.names()) {
    res.names.insert(n);
    const inst::Value* v = ec.find(n);
    if (std::holds_alternative<std::shared_ptr<inst::MatrixObject>>(*v) &&
        std::get<std::shared_ptr<inst::MatrixObject>>(*v)->has_block())
      res.matrices.emplace(n, *ec.matrix(n));
  }
  return res;
}

int steps_fused(const std::vector<std::string>& lines) {
  RewriteReport r;
  rewritten(lines, &r);
  return r.cellwise_steps;
}

}  // namespace

TEST_CASE("fuse cellwise: an SGD-Nesterov update becomes one chain", "[rewrite][fused]") {
  RewriteReport r;
  const Program p = rewritten(sgd_lines(), &r);
  CHECK(r.cellwise_chains == 1);
  CHECK(r.cellwise_steps == 3);
  const InstructionList& list = main_list(p);
  REQUIRE(opcodes(list) ==
          std::vector<std::string>{"createvar", "fused(+*,-*,+*)", "rmvar", "mvvar", "mvvar"});
  const inst::Instruction& f = *list[1];
  CHECK(f.stats_name() == "fused(+*,-*,+*)");
  CHECK(f.has_gpu_impl());
  CHECK(f.exec_type() == inst::ExecType::kCP);
  CHECK(f.text().loc.line == 5);  // the first step's line
  REQUIRE(f.parts() != nullptr);
  CHECK(opcodes(*f.parts()) == std::vector<std::string>{"+*", "rmvar", "createvar", "-*", "rmvar",
                                                        "createvar", "+*"});
  const inst::FusedCellPlan* plan = inst::fused_cellwise_plan(f);
  REQUIRE(plan != nullptr);
  CHECK(plan->inputs == std::vector<std::string>{"dW", "W", "V", "P"});
  CHECK(plan->input_full == std::vector<bool>{true, true, true, true});
  CHECK(plan->scalars.size() == 3);
  // T1 is removed in the window; T2 and T3 are moved to Vout and Wout afterwards.
  CHECK(plan->outputs == std::vector<std::pair<int, std::string>>{{1, "T2"}, {2, "T3"}});
  CHECK(plan->written == std::vector<std::string>{"T1", "T2", "T3"});
  REQUIRE(plan->steps.size() == 3);
  CHECK(plan->steps[1].args[2].kind == inst::FusedCellArg::Kind::kStep);
  CHECK(plan->steps[1].args[2].index == 0);
  CHECK(inst::fused_cellwise_plan(*list[0]) == nullptr);
}

TEST_CASE("fuse cellwise: a variable written twice keeps only its last value", "[rewrite][fused]") {
  const Program p = rewritten(ping_pong_lines(10));
  REQUIRE(main_list(p).size() == 1);
  const inst::FusedCellPlan* plan = inst::fused_cellwise_plan(*main_list(p)[0]);
  REQUIRE(plan != nullptr);
  CHECK(plan->steps.size() == 10);
  CHECK(plan->inputs == std::vector<std::string>{"A"});
  // Both are live out of the block (no rmvar): B from step 8, A from step 9.
  CHECK(plan->outputs == std::vector<std::pair<int, std::string>>{{8, "B"}, {9, "A"}});
  CHECK(plan->written == std::vector<std::string>{"B", "A"});
  for (size_t s = 1; s < plan->steps.size(); ++s) {
    CHECK(plan->steps[s].args[0].kind == inst::FusedCellArg::Kind::kStep);
    CHECK(plan->steps[s].args[0].index == static_cast<int>(s) - 1);
  }
}

TEST_CASE("fuse cellwise: outputs are the values a later line can see", "[rewrite][fused]") {
  const std::string t1 = "CP°+°" + m("X") + "°" + lit("1") + "°" + m("T1");
  const std::string t2 = "CP°*°" + m("T1") + "°" + lit("2") + "°" + m("T2");
  auto outputs_of = [](const std::vector<std::string>& lines) {
    const Program p = rewritten(lines);
    const inst::FusedCellPlan* plan = inst::fused_cellwise_plan(*main_list(p).at(0));
    REQUIRE(plan != nullptr);
    std::vector<std::string> names;
    for (const auto& o : plan->outputs) names.push_back(o.second);
    return names;
  };
  // Live out of the block: both.
  CHECK(outputs_of({t1, t2}) == std::vector<std::string>{"T1", "T2"});
  // T1 removed right after the chain, T2 read by a later line.
  CHECK(outputs_of({t1, t2, "CP°rmvar°T1", "CP°nrow°" + m("T2") + "°n·SCALAR·INT64"}) ==
        std::vector<std::string>{"T2"});
  // T1 read by a later line before its rmvar.
  CHECK(outputs_of({t1, t2, "CP°rmvar°T2", "CP°nrow°" + m("T1") + "°n·SCALAR·INT64",
                    "CP°rmvar°T1"}) == std::vector<std::string>{"T1"});
  // Every value dead: nothing to compute, so no chain.
  RewriteReport r;
  rewritten({t1, t2, "CP°rmvar°T1°T2"}, &r);
  CHECK(r.cellwise_chains == 0);
}

TEST_CASE("fuse cellwise: chains stop where fusing could be observed", "[rewrite][fused]") {
  const std::string x1 = "CP°+°" + m("X") + "°" + lit("1") + "°" + m("T1");
  const std::string t1x2 = "CP°*°" + m("T1") + "°" + lit("2") + "°" + m("T2");
  const std::string live = "CP°nrow°" + m("T2") + "°n·SCALAR·INT64";
  CHECK(steps_fused({x1, t1x2}) == 2);
  // Not connected: the second line reads nothing the first wrote.
  CHECK(steps_fused({x1, "CP°*°" + m("Y") + "°" + lit("2") + "°" + m("T2")}) == 0);
  // CP and GPU lines run under different placement rules.
  CHECK(steps_fused({x1, "GPU°*°" + m("T1") + "°" + lit("2") + "°" + m("T2")}) == 0);
  CHECK(steps_fused({"GPU°+°" + m("X") + "°" + lit("1") + "°" + m("T1"),
                     "GPU°*°" + m("T1") + "°" + lit("2") + "°" + m("T2")}) == 2);
  // Any other line between the steps.
  CHECK(steps_fused({x1, "CP°nrow°" + m("T1") + "°k·SCALAR·INT64", t1x2}) == 0);
  CHECK(steps_fused({x1, "CP°cpvar°T1°T9", t1x2}) == 0);
  // createvar of a name an earlier line of the window named.
  CHECK(steps_fused({x1, createvar("X"), t1x2}) == 0);
  CHECK(steps_fused({x1, createvar("T2"), t1x2, live}) == 2);
  // A step reading a freshly created (empty) variable.
  CHECK(steps_fused({x1, createvar("Z"), "CP°*°" + m("T1") + "°" + m("Z") + "°" + m("T2")}) ==
        0);
  // rmvar of a name a later step reads or writes.
  CHECK(steps_fused({x1, "CP°rmvar°X", "CP°*°" + m("T1") + "°" + m("X") + "°" + m("T2")}) == 0);
  CHECK(steps_fused({x1, "CP°rmvar°T2", t1x2}) == 0);
  CHECK(steps_fused({x1, "CP°rmvar°X", t1x2}) == 2);
  // Scalar variables removed before a step reads them.
  CHECK(steps_fused({x1, "CP°rmvar°s", "CP°*°" + m("T1") + "°s·SCALAR·FP64°" + m("T2")}) == 0);
  // Lines without a device kernel or with a scalar output, and placeholders.
  CHECK(steps_fused({x1, "CP°xor°" + m("T1") + "°" + lit("1") + "°" + m("T2")}) == 0);
  CHECK(steps_fused({x1, "CP°urowcumk+°" + m("T1") + "°" + m("T2") + "°2"}) == 0);
  CHECK(steps_fused({x1, "CP°isnan°" + m("T1") + "°" + m("T2") + "°2"}) == 2);  // has one now
  CHECK(steps_fused({x1, "CP°log°" + m("T1") + "°" + lit("2") + "°" + m("T2")}) == 0);
  CHECK(steps_fused({x1, "CP°log°" + m("T1") + "°" + m("T2") + "°2°false"}) == 2);
  CHECK(steps_fused({x1, "CP°*°" + m("T1") + "°¶f¶·SCALAR·FP64·true°" + m("T2")}) == 0);
  CHECK(steps_fused({x1, "CP°ucumk+°" + m("T1") + "°" + m("T2") + "°2"}) == 0);
  CHECK(steps_fused({"CP°+°a·SCALAR·FP64°" + lit("1") + "°b·SCALAR·FP64",
                     "CP°*°b·SCALAR·FP64°" + lit("2") + "°c·SCALAR·FP64"}) == 0);
}

TEST_CASE("fuse cellwise: unary, ternary, ^2 and scalar-left steps join chains",
          "[rewrite][fused]") {
  const Program p = rewritten(
      {"CP°-°" + lit("0") + "°" + m("X") + "°" + m("T1"),        // scalar left
       "CP°exp°" + m("T1") + "°" + m("T2") + "°4",               // unary with k
       "CP°^2°" + m("T2") + "°2·SCALAR·INT64·true°" + m("T3"),   // constant carried
       "CP°ifelse°" + m("C") + "°" + m("T3") + "°" + m("X") + "°" + m("T4"),
       "CP°/°" + m("T4") + "°" + m("v") + "°" + m("T5"),         // v may be a vector
       "CP°max°" + m("T5") + "°" + m("T4") + "°" + m("T6") + "°2"});
  REQUIRE(main_list(p).size() == 1);
  const inst::FusedCellPlan* plan = inst::fused_cellwise_plan(*main_list(p)[0]);
  REQUIRE(plan != nullptr);
  CHECK(main_list(p)[0]->stats_name() == "fused(-,exp,^2,ifelse,/,max)");
  CHECK(plan->inputs == std::vector<std::string>{"X", "C", "v"});
  CHECK(plan->input_full == std::vector<bool>{true, true, false});
  CHECK(plan->steps[0].args[0].kind == inst::FusedCellArg::Kind::kScalar);
  CHECK(plan->steps[2].kind == inst::CellOpKind::kUnary);
  CHECK(plan->steps[2].args.size() == 1);
  CHECK(plan->steps[3].kind == inst::CellOpKind::kTernary);
}

TEST_CASE("fuse cellwise: chains in loops, branches and functions are fused and run as written",
          "[rewrite][fused]") {
  std::string inner;
  for (const std::string& l : ping_pong_lines(4)) inner += "--------" + l + "\n";
  const std::string plan =
      "PROGRAM\n--FUNCTIONS\n----FUNCTION .defaultNS::f [in=A·MATRIX·FP64] [out=A·MATRIX·FP64]\n"
      "------GENERIC\n" +
      inner +
      "--MAIN PROGRAM\n----FOR (lines 1-3) [iter=i]\n------FROM\n"
      "------CP°assignvar°1·SCALAR·INT64·true°__pred·SCALAR·INT64\n------TO\n"
      "------CP°assignvar°3·SCALAR·INT64·true°__pred·SCALAR·INT64\n------GENERIC\n" +
      inner +
      "----IF\n------CP°assignvar°true·SCALAR·BOOLEAN·true°__pred·SCALAR·BOOLEAN\n"
      "------GENERIC\n" +
      inner + "----ELSE\n------GENERIC\n" + inner +
      "----GENERIC\n------CP°fcall°.defaultNS°f°true°1°1°A=A·MATRIX·FP64·false°A\n";
  Program plain = parse_plan(plan, "n.plan");
  Program fused = parse_plan(plan, "n.plan");
  REQUIRE(apply_plan_rewrites(plain, config_with(false)).cellwise_chains == 0);
  const RewriteReport r = apply_plan_rewrites(fused, config_with(true));
  CHECK(r.cellwise_chains == 4);
  CHECK(r.cellwise_steps == 16);
  CHECK(inst::fused_cellwise_plan(
            *fused.functions.at(".defaultNS::f").body.at(0)->instructions.at(0)) != nullptr);
  CHECK(inst::fused_cellwise_plan(*fused.main.at(0)->body.at(0)->instructions.at(0)) != nullptr);
  CHECK(inst::fused_cellwise_plan(*fused.main.at(1)->else_body.at(0)->instructions.at(0)) !=
        nullptr);
  // 3 iterations, the IF branch and the function: 5 x 4 = 20 additions of 1.
  const std::map<std::string, MatrixBlock> in = {{"A", MatrixBlock::dense(2, 3, 0.25)}};
  const RunResult a = run(plain, in), b = run(fused, in);
  REQUIRE(a.matrices.count("A") == 1);
  REQUIRE(b.matrices.count("A") == 1);
  CHECK(a.matrices.at("A").get(1, 2) == 20.25);
  CHECK(b.matrices.at("A").get(1, 2) == 20.25);
  CHECK(a.names == b.names);
}

TEST_CASE("fuse cellwise: a chain stays within the kernel's limits", "[rewrite][fused]") {
  // 17 steps: the first 16 form a chain, the last is left alone.
  RewriteReport r;
  Program p = rewritten(ping_pong_lines(17), &r);
  CHECK(r.cellwise_chains == 1);
  CHECK(r.cellwise_steps == 16);
  CHECK(opcodes(main_list(p)).back() == "+");
  // Nine inputs: the chain ends before the step that would read the ninth.
  std::vector<std::string> lines = {"CP°+°" + m("X0") + "°" + m("X1") + "°" + m("T1")};
  for (int k = 2; k <= 8; ++k)
    lines.push_back("CP°+°" + m("T" + std::to_string(k - 1)) + "°" + m("X" + std::to_string(k)) +
                    "°" + m("T" + std::to_string(k)));
  CHECK(steps_fused(lines) == 7);
  // Nine live outputs: the chain starting at the first line is too wide; the one after it fits.
  std::vector<std::string> wide = {"CP°+°" + m("X") + "°" + lit("1") + "°" + m("T1")};
  for (int k = 2; k <= 9; ++k)
    wide.push_back("CP°+°" + m("T" + std::to_string(k - 1)) + "°" + lit("1") + "°" +
                   m("T" + std::to_string(k)));
  CHECK(steps_fused(wide) == 8);
}

TEST_CASE("fuse cellwise: a fused plan runs as the unfused one on the CPU", "[rewrite][fused]") {
  const bool specials = GENERATE(false, true);
  const uint64_t seed = test::seed_from("fuse cellwise cpu") + (specials ? 10 : 0);
  const std::map<std::string, MatrixBlock> in = {{"dW", random_block(7, 5, seed + 1, specials)},
                                                 {"W", random_block(7, 5, seed + 2, specials)},
                                                 {"V", random_block(7, 5, seed + 3, specials)},
                                                 {"P", random_block(7, 5, seed + 4, specials)}};
  const RunResult ref = run(rewritten(sgd_lines(), nullptr, false), in);
  const RunResult got = run(rewritten(sgd_lines()), in);
  CHECK(got.names == ref.names);
  REQUIRE(got.matrices.size() == ref.matrices.size());
  for (const auto& [name, block] : ref.matrices) {
    INFO(name);
    REQUIRE(got.matrices.count(name) == 1);
    const test::CompareResult cmp = test::compare_bits(got.matrices.at(name), block);
    INFO(cmp.report);
    CHECK(cmp.ok);
  }
  // On the CPU the chain runs line by line, and -stats counts the lines, not the chain.
  CHECK(got.stats.entries().at("+*").count == 2);
  CHECK(got.stats.entries().at("-*").count == 1);
  CHECK(got.stats.entries().count("fused(+*,-*,+*)") == 0);
  CHECK(got.stats.entries().at("createvar").count == ref.stats.entries().at("createvar").count);
}

TEST_CASE("fuse cellwise: errors name the line that failed, as without fusing",
          "[rewrite][fused]") {
  const std::vector<std::string> lines = {
      "CP°+°" + m("X") + "°" + lit("1") + "°" + m("T1"),
      "CP°*°" + m("T1") + "°" + m("Y") + "°" + m("T2")};
  const std::map<std::string, MatrixBlock> in = {{"X", MatrixBlock::dense(3, 4, 1.0)},
                                                 {"Y", MatrixBlock::dense(2, 4, 1.0)}};
  std::string plain, fused;
  try {
    run(rewritten(lines, nullptr, false), in);
  } catch (const Error& e) {
    plain = e.what();
  }
  try {
    run(rewritten(lines), in);
  } catch (const Error& e) {
    fused = e.what();
  }
  CHECK_THAT(plain, Contains("c.plan:5: instruction 'CP°*°T1·MATRIX·FP64°Y·MATRIX·FP64") &&
                        Contains("incompatible shapes 3x4 and 2x4"));
  CHECK(fused == plain);
}

TEST_CASE("fuse cellwise: -explain prints the original lines", "[rewrite][fused]") {
  for (bool raw : {false, true}) {
    std::ostringstream a, b;
    print_explain(rewritten(sgd_lines(), nullptr, false), a, raw);
    print_explain(rewritten(sgd_lines()), b, raw);
    CHECK(b.str() == a.str());
  }
}

TEST_CASE("fuse cellwise: dmlrt.rewrite.fuse_cellwise=false turns the pass off",
          "[rewrite][fused][config]") {
  RewriteReport r;
  const Program p = rewritten(sgd_lines(), &r, false);
  CHECK(r.cellwise_chains == 0);
  CHECK(opcodes(main_list(p)).size() == sgd_lines().size());
  CHECK(RuntimeConfig{}.rewrite_fuse_cellwise);
  RuntimeConfig c;
  parse_config("<root><dmlrt.rewrite.fuse_cellwise>false</dmlrt.rewrite.fuse_cellwise></root>",
               "c.xml", c);
  CHECK_FALSE(c.rewrite_fuse_cellwise);
  CHECK_THROWS_WITH(
      parse_config("<root>\n<dmlrt.rewrite.fuse_cellwise>maybe</dmlrt.rewrite.fuse_cellwise>"
                   "</root>",
                   "c.xml", c),
      "c.xml:2: dmlrt.rewrite.fuse_cellwise: expected true or false, got 'maybe'");
}

TEST_CASE("fuse cellwise: what the pass finds in the captured LeNet plans", "[rewrite][fused]") {
  for (const char* c : {"dnn_lenet", "dnn_lenet_gpuplan"}) {
    INFO(c);
    Program p = parse_plan_file(test::test_data_dir() + "/conformance/cases/" + c + "/plan.plan");
    const RewriteReport r = apply_plan_rewrites(p, RuntimeConfig{});
    UNSCOPED_INFO(r.cellwise_chains << " chains of " << r.cellwise_steps << " lines");
    CHECK(r.cellwise_chains > 0);
    CHECK(r.cellwise_steps >= 2 * r.cellwise_chains);
  }
}

#if DMLRT_WITH_CUDA
// The launcher checks a program before it touches the device, so its errors show on any machine.
TEST_CASE("fused launcher: a malformed program is rejected with its fault named",
          "[fused][gpu-host]") {
  using kernels::cuda::FusedArgKind;
  using kernels::cuda::FusedProgram;
  using kernels::cuda::FusedStepKind;
  std::vector<double> x(4, 1.0), y(4);
  FusedProgram<double> p;  // y = x + 2 (one binary step)
  p.steps = 1, p.inputs = 1, p.outputs = 1;
  p.step[0].kind = FusedStepKind::kBinary;
  p.step[0].op = static_cast<uint8_t>(kernels::cpu::BinaryOp::kPlus);
  p.step[0].arg[0] = {FusedArgKind::kInput, 0};
  p.step[0].arg[1] = {FusedArgKind::kScalar, 0};
  p.scalar[0] = 2.0;
  p.input[0] = x.data();
  p.output[0] = y.data();
  p.output_step[0] = 0;
  const auto run = [&](const FusedProgram<double>& q) {
    kernels::cuda::launch_fused_cellwise(q, 2, 2, nullptr);
  };
  SECTION("no steps") {
    p.steps = 0;
    CHECK_THROWS_WITH(run(p),
                      "fused cell-wise program out of limits: 0 steps, 1 inputs, 1 outputs");
  }
  SECTION("an argument after its step") {
    p.step[0].arg[1] = {FusedArgKind::kStep, 0};
    CHECK_THROWS_WITH(run(p),
                      "fused cell-wise program: step 0 argument 1 refers to a missing value");
  }
  SECTION("an output of a missing step") {
    p.output_step[0] = 3;
    CHECK_THROWS_WITH(run(p), "fused cell-wise program: output 0 of a missing step");
  }
  SECTION("an op number beyond the step code's bits") {
    p.step[0].op = 40;
    CHECK_THROWS_WITH(run(p), "fused cell-wise program: step 0 has op number 40");
  }
}
#endif
