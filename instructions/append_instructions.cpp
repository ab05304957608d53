// Append instructions: the 2-input `append` (M°M°offset°out°true=cbind|false=rbind) and the n-ary
// `cbind` / `rbind` (M°M°...°out), SystemDS layouts (reference/systemds-format.md §3). Inputs must
// be matrices (DML rejects scalars in cbind/rbind); shapes are checked exactly as SystemDS's
// runtime does, so an empty input needs the matching row (cbind) or column (rbind) count.
#include <vector>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "kernels/cpu/append.h"

namespace dmlrt::inst {
namespace {

class AppendInstruction final : public Instruction {
 public:
  explicit AppendInstruction(InstructionText t) : Instruction(std::move(t)) {
    if (opcode() == "append") {
      // The offset operand (the first input's column or row count) is informational.
      expect_fields(5);
      inputs_ = {operand(0), operand(1)};
      out_ = operand(3);
      const std::string& flag = field(4);
      if (flag == "true" || flag == "TRUE")
        cbind_ = true;
      else if (flag == "false" || flag == "FALSE")
        cbind_ = false;
      else
        DMLRT_FAIL(ParseError, where() << ": append expects true (cbind) or false (rbind) as its "
                                          "last field, got '"
                                       << flag << "'");
      name_ = cbind_ ? "append (cbind)" : "append (rbind)";
    } else {
      expect_fields(2, static_cast<size_t>(-1));
      cbind_ = opcode() == "cbind";
      for (size_t i = 0; i + 1 < num_fields(); ++i) inputs_.push_back(operand(i));
      out_ = operand(num_fields() - 1);
      name_ = opcode();
    }
    for (size_t i = 0; i < inputs_.size(); ++i)
      DMLRT_REQUIRE(inputs_[i].is_matrix(), ParseError,
                    where() << ": " << name_ << " input " << i + 1 << " (" << inputs_[i].to_string()
                            << ") is not a matrix; " << (cbind_ ? "cbind" : "rbind")
                            << " takes matrices");
    DMLRT_REQUIRE(out_.is_matrix(), ParseError,
                  where() << ": " << name_ << " expects a matrix output, got " << out_.to_string());
  }

  void execute(ExecutionContext& ec) override {
    std::vector<std::shared_ptr<const kernels::MatrixBlock>> held;
    std::vector<const kernels::MatrixBlock*> blocks;
    for (const auto& op : inputs_) {
      held.push_back(ec.matrix(op));
      blocks.push_back(held.back().get());
    }
    for (size_t i = 1; i < blocks.size(); ++i) {
      const bool ok =
          cbind_ ? blocks[i]->rows() == blocks[0]->rows() : blocks[i]->cols() == blocks[0]->cols();
      DMLRT_REQUIRE(ok, ShapeError,
                    name_ << ": " << (cbind_ ? "row" : "column") << " counts differ: input 1 is "
                          << shape_of(*blocks[0]) << ", input " << i + 1 << " is "
                          << shape_of(*blocks[i]));
    }
    ec.set_matrix(out_.name, cbind_ ? kernels::cpu::cbind(blocks) : kernels::cpu::rbind(blocks));
  }

 private:
  std::vector<Operand> inputs_;
  Operand out_;
  bool cbind_ = true;
  std::string name_;
};

}  // namespace

InstructionPtr make_append(InstructionText text) {
  const std::string op = text.opcode;
  if (op == "append" || op == "cbind" || op == "rbind")
    return std::make_unique<AppendInstruction>(std::move(text));
  DMLRT_FAIL(ParseError, "append: unknown opcode '" << op << "'");
}

}  // namespace dmlrt::inst
