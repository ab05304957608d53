// eigen(A): the multi-return builtin `A°values°vectors[°k]` (outputs are bare names), SystemDS's
// FunctionCallCP layout for multi-return builtins. Symmetric inputs only (see kernels/cpu/eigen).
#include "gpu_context/error.h"
#include "instructions/families.h"
#include "kernels/cpu/eigen.h"

namespace dmlrt::inst {
namespace {

class EigenInstruction final : public Instruction {
 public:
  explicit EigenInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(3, 4);
    in_ = operand(0);
    DMLRT_REQUIRE(in_.is_matrix(), ParseError, where() << ": eigen expects a matrix input");
    values_ = Operand::parse(field(1)).name;
    vectors_ = Operand::parse(field(2)).name;
  }

  void execute(ExecutionContext& ec) override {
    kernels::cpu::EigenResult r = kernels::cpu::eigen_symmetric(*ec.matrix(in_));
    ec.set_matrix(values_, std::move(r.values));
    ec.set_matrix(vectors_, std::move(r.vectors));
  }

 private:
  Operand in_;
  std::string values_, vectors_;
};

}  // namespace

InstructionPtr make_eigen(InstructionText text) {
  DMLRT_REQUIRE(text.opcode == "eigen", NotSupported,
                "eigen: unknown opcode '" << text.opcode << "'");
  return std::make_unique<EigenInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
