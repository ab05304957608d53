// Statistics and fused ternary aggregates: parsing and CPU runs (stats_instructions.h).
#include "instructions/stats_instructions.h"

#include "gpu_context/error.h"
#include "kernels/cpu/stats.h"

namespace dmlrt::inst {

namespace cpu = kernels::cpu;

StatsInstruction::StatsInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 6);
  size_t n = num_fields();
  if (n >= 3 && is_integer_text(field(n - 1))) --n;  // trailing k
  for (size_t i = 0; i + 1 < n; ++i) ins_.push_back(operand(i));
  out_ = operand(n - 1);
}

// --- cov ---

CovInstruction::CovInstruction(InstructionText t) : StatsInstruction(std::move(t)) {
  DMLRT_REQUIRE(ins_.size() == 2 || ins_.size() == 3, ParseError,
                where() << ": cov expects x, y[, weights] and an output");
}

void CovInstruction::run_cpu(ExecutionContext& ec) {
  auto x = ec.matrix(ins_[0]);
  auto y = ec.matrix(ins_[1]);
  std::shared_ptr<const kernels::MatrixBlock> w;
  if (ins_.size() == 3) w = ec.matrix(ins_[2]);
  ec.set_scalar(out_.name, ScalarValue::fp64(cpu::covariance(*x, *y, w.get())));
}

// --- cm ---

CentralMomentInstruction::CentralMomentInstruction(InstructionText t)
    : StatsInstruction(std::move(t)) {
  DMLRT_REQUIRE(ins_.size() == 2 || ins_.size() == 3, ParseError,
                where() << ": cm expects x[, weights], order and an output");
}

void CentralMomentInstruction::run_cpu(ExecutionContext& ec) {
  auto x = ec.matrix(ins_[0]);
  std::shared_ptr<const kernels::MatrixBlock> w;
  if (ins_.size() == 3) w = ec.matrix(ins_[1]);
  const int order = static_cast<int>(ec.scalar(ins_.back()).to_int());
  ec.set_scalar(out_.name, ScalarValue::fp64(cpu::central_moment(*x, w.get(), order)));
}

// --- tak+*, tack+* ---

TernaryAggInstruction::TernaryAggInstruction(InstructionText t)
    : StatsInstruction(std::move(t)), col_(opcode() == "tack+*") {
  DMLRT_REQUIRE(ins_.size() == 3, ParseError,
                where() << ": " << opcode() << " expects three inputs and an output");
  DMLRT_REQUIRE(col_ ? out_.is_matrix() : out_.is_scalar(), ParseError,
                where() << ": " << opcode() << " output must be a "
                        << (col_ ? "MATRIX" : "SCALAR"));
}

void TernaryAggInstruction::run_cpu(ExecutionContext& ec) {
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
  if (col_)
    ec.set_matrix(out_.name, cpu::col_sum_product3(args[0], args[1], args[2]));
  else
    ec.set_scalar(out_, ScalarValue::fp64(cpu::sum_product3(args[0], args[1], args[2])));
}

}  // namespace dmlrt::inst
