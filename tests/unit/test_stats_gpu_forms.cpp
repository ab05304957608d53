// The GPU runs issue #18 added for mmchain, tak+*, tack+*, cov and cm, as the host sees them (no
// device needed): the opcode table marks them GPU-capable, their instructions answer
// has_gpu_impl() for the forms with matrix inputs (not for tak+* of three scalars), and their
// shape rules live in check(), so -explain reports them from the plan's dims (unknown dims pass).
// The GPU runs themselves are compared with the CPU in tests/gpu (test_gpu_stats.cpp,
// test_gpu_mmchain.cpp and the op registry).
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "gpu_context/error.h"
#include "instructions/instruction.h"
#include "instructions/opcode_table.h"

using namespace dmlrt;

namespace {

inst::InstructionPtr make(const std::string& line) {
  return inst::make_instruction(inst::InstructionText::parse(line));
}

// The dims of named operands, as -explain takes them from createvar lines ({-1, -1} unknown).
class PlanShapes final : public inst::Shapes {
 public:
  explicit PlanShapes(std::map<std::string, inst::Dims> dims) : dims_(std::move(dims)) {}
  inst::Dims dims(const inst::Operand& op) override {
    auto it = dims_.find(op.name);
    return it == dims_.end() ? inst::Dims{} : it->second;
  }

 private:
  std::map<std::string, inst::Dims> dims_;
};

// The message check() throws for `line` under `shapes`, or "" when it passes.
std::string check_error(const std::string& line, PlanShapes shapes) {
  try {
    make(line)->check(shapes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("issue #18's GPU runs of mmchain, tak+*, tack+*, cov, cm: table rows and forms",
          "[opcodes][gpu-forms]") {
  for (const char* op : {"mmchain", "tak+*", "tack+*", "cov", "cm"}) {
    INFO(op);
    const inst::OpcodeEntry* e = inst::find_opcode(op);
    REQUIRE(e != nullptr);
    CHECK(e->gpu);
  }
  const std::string a = "A·MATRIX·FP64", b = "B·MATRIX·FP64", x = "X·MATRIX·FP64";
  CHECK(make("CP°mmchain°" + x + "°v·MATRIX·FP64°O·MATRIX·FP64°XtXv°8")->has_gpu_impl());
  CHECK(make("CP°mmchain°" + x + "°v·MATRIX·FP64°w·MATRIX·FP64°O·MATRIX·FP64°XtwXv°8")
            ->has_gpu_impl());
  CHECK(make("CP°tak+*°" + a + "°" + b + "°" + a + "°s·SCALAR·FP64°8")->has_gpu_impl());
  CHECK(make("CP°tak+*°2·SCALAR·FP64·true°" + b + "°3·SCALAR·FP64·true°s·SCALAR·FP64")
            ->has_gpu_impl());
  CHECK_FALSE(make("CP°tak+*°2·SCALAR·FP64·true°1·SCALAR·FP64·true°3·SCALAR·FP64·true°"
                   "s·SCALAR·FP64")
                  ->has_gpu_impl());
  CHECK(make("CP°tack+*°" + a + "°" + b + "°" + a + "°O·MATRIX·FP64°8")->has_gpu_impl());
  CHECK(make("CP°cov°" + x + "°" + b + "°s·SCALAR·STRING°8")->has_gpu_impl());
  CHECK(
      make("CP°cm°" + x + "°w·MATRIX·FP64°2·SCALAR·INT64·true°s·SCALAR·STRING°8")->has_gpu_impl());
  CHECK(make("CP°cm°" + x + "°k·SCALAR·INT64°s·SCALAR·STRING")->has_gpu_impl());
}

TEST_CASE("tak+*, tack+*, cov and cm check their shapes before running", "[stats]") {
  const std::string a = "A·MATRIX·FP64", d = "D·MATRIX·FP64", x = "X·MATRIX·FP64",
                    y = "Y·MATRIX·FP64", w = "W·MATRIX·FP64";
  const PlanShapes dims({{"A", {2, 3}},
                         {"D", {3, 2}},
                         {"X", {5, 1}},
                         {"Y", {4, 1}},
                         {"W", {5, 2}},
                         {"M", {5, 3}},
                         {"U", {-1, -1}}});
  CHECK(check_error("CP°tak+*°" + a + "°2·SCALAR·FP64·true°" + a + "°s·SCALAR·FP64", dims) == "");
  CHECK_THAT(check_error("CP°tak+*°" + a + "°" + d + "°" + a + "°s·SCALAR·FP64°8", dims),
             Catch::Contains("tak+*: inputs must have the same dimensions, got 2x3 and 3x2"));
  CHECK_THAT(check_error("CP°tack+*°" + a + "°" + a + "°" + d + "°O·MATRIX·FP64", dims),
             Catch::Contains("tack+*: inputs must have the same dimensions, got 2x3 and 3x2"));
  CHECK(check_error("CP°tak+*°" + a + "°U·MATRIX·FP64°" + a + "°s·SCALAR·FP64", dims) == "");

  CHECK_THAT(check_error("CP°cov°" + x + "°" + y + "°s·SCALAR·FP64", dims),
             Catch::Contains("cov: the second input must be a column vector of 5 rows, got 4x1"));
  CHECK_THAT(check_error("CP°cov°M·MATRIX·FP64°" + x + "°s·SCALAR·FP64", dims),
             Catch::Contains("cov: covariance can be computed only on 1-dimensional column "
                             "matrices, got 5x3"));
  CHECK_THAT(check_error("CP°cov°" + x + "°" + x + "°" + w + "°s·SCALAR·FP64", dims),
             Catch::Contains("cov: the weights must be a column vector of 5 rows, got 5x2"));
  CHECK(check_error("CP°cov°U·MATRIX·FP64°" + y + "°s·SCALAR·FP64", dims) == "");

  CHECK_THAT(check_error("CP°cm°M·MATRIX·FP64°2·SCALAR·INT64·true°s·SCALAR·FP64", dims),
             Catch::Contains("cm: central moments can be computed only on column vectors, got "
                             "5x3"));
  CHECK_THAT(check_error("CP°cm°" + x + "°" + y + "°2·SCALAR·INT64·true°s·SCALAR·FP64", dims),
             Catch::Contains("cm: the weights must be a column vector of 5 rows, got 4x1"));
  CHECK(check_error("CP°cm°" + x + "°2·SCALAR·INT64·true°s·SCALAR·FP64", dims) == "");
}
