// Statistics and fused ternary aggregates: cov `x°y[°w]°out[°k]`, cm `x[°w]°order°out[°k]`
// (central moment), tak+* `A°B°C°out[°k]` = sum(A*B*C) and tack+* = colSums(A*B*C). cov and cm
// write FP64 scalars whatever value type the plan declares (SystemDS declares STRING).
// Kernels: kernels/cpu/stats.
#include <cctype>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "kernels/cpu/stats.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

class StatsInstruction final : public Instruction {
 public:
  explicit StatsInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(2, 6);
    size_t n = num_fields();
    if (n >= 3 && is_integer_text(field(n - 1))) --n;  // trailing k
    for (size_t i = 0; i + 1 < n; ++i) ins_.push_back(operand(i));
    out_ = operand(n - 1);
    const std::string& op = opcode();
    if (op == "cov") {
      DMLRT_REQUIRE(ins_.size() == 2 || ins_.size() == 3, ParseError,
                    where() << ": cov expects x, y[, weights] and an output");
    } else if (op == "cm") {
      DMLRT_REQUIRE(ins_.size() == 2 || ins_.size() == 3, ParseError,
                    where() << ": cm expects x[, weights], order and an output");
    } else {
      DMLRT_REQUIRE(ins_.size() == 3, ParseError,
                    where() << ": " << op << " expects three inputs and an output");
      DMLRT_REQUIRE(op == "tak+*" ? out_.is_scalar() : out_.is_matrix(), ParseError,
                    where() << ": " << op << " output must be a "
                            << (op == "tak+*" ? "SCALAR" : "MATRIX"));
    }
  }

  void execute(ExecutionContext& ec) override {
    const std::string& op = opcode();
    if (op == "cov") {
      auto x = ec.matrix(ins_[0]);
      auto y = ec.matrix(ins_[1]);
      std::shared_ptr<const kernels::MatrixBlock> w;
      if (ins_.size() == 3) w = ec.matrix(ins_[2]);
      ec.set_scalar(out_.name, ScalarValue::fp64(cpu::covariance(*x, *y, w.get())));
    } else if (op == "cm") {
      auto x = ec.matrix(ins_[0]);
      std::shared_ptr<const kernels::MatrixBlock> w;
      if (ins_.size() == 3) w = ec.matrix(ins_[1]);
      const int order = static_cast<int>(ec.scalar(ins_.back()).to_int());
      ec.set_scalar(out_.name, ScalarValue::fp64(cpu::central_moment(*x, w.get(), order)));
    } else {
      std::shared_ptr<const kernels::MatrixBlock> held[3];
      cpu::TernaryAggArg args[3];
      for (int i = 0; i < 3; ++i) {
        if (ins_[i].is_matrix()) {
          held[i] = ec.matrix(ins_[i]);
          args[i].matrix = held[i].get();
        } else {
          args[i].scalar = ec.scalar(ins_[i]).to_double();
        }
      }
      if (op == "tak+*")
        ec.set_scalar(out_, ScalarValue::fp64(cpu::sum_product3(args[0], args[1], args[2])));
      else
        ec.set_matrix(out_.name, cpu::col_sum_product3(args[0], args[1], args[2]));
    }
  }

 private:
  std::vector<Operand> ins_;
  Operand out_;
};

}  // namespace

InstructionPtr make_stats(InstructionText text) {
  const std::string& op = text.opcode;
  DMLRT_REQUIRE(op == "cov" || op == "cm" || op == "tak+*" || op == "tack+*", NotSupported,
                "stats: unknown opcode '" << op << "'");
  return std::make_unique<StatsInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
