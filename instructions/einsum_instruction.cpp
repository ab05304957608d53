// einsum: parsing and the CPU run (einsum_instruction.h).
#include "instructions/einsum_instruction.h"

#include "gpu_context/error.h"
#include "kernels/cpu/einsum.h"

namespace dmlrt::inst {

EinsumInstruction::EinsumInstruction(InstructionText t) : Instruction(std::move(t)) {
  DMLRT_REQUIRE(num_fields() >= 3, ParseError,
                where() << ": einsum needs an equation, at least one matrix and an output");
  eq_ = operand(0);
  for (size_t i = 1; i + 1 < num_fields(); ++i) {
    in_.push_back(operand(i));
    DMLRT_REQUIRE(in_.back().is_matrix(), ParseError,
                  where() << ": einsum operand " << i << " must be a matrix");
  }
  out_ = operand(num_fields() - 1);
  DMLRT_REQUIRE(eq_.is_scalar(), ParseError, where() << ": einsum needs a string equation");
}

void EinsumInstruction::run_cpu(ExecutionContext& ec) {
  const std::string equation = ec.scalar(eq_).to_string();
  const kernels::cpu::EinsumSpec spec = kernels::cpu::parse_einsum(equation, in_.size());
  DMLRT_REQUIRE(out_.is_scalar() == spec.out.empty(), RuntimeError,
                "einsum: '" << equation << "' gives a " << (spec.out.empty() ? "scalar" : "matrix")
                            << " but the output " << out_.name << " is a "
                            << (out_.is_scalar() ? "scalar" : "matrix"));
  std::vector<std::shared_ptr<const kernels::MatrixBlock>> keep;
  std::vector<const kernels::MatrixBlock*> in;
  for (const Operand& o : in_) {
    keep.push_back(ec.matrix(o));
    in.push_back(keep.back().get());
  }
  kernels::MatrixBlock r = kernels::cpu::einsum(spec, in);
  if (out_.is_scalar())
    ec.set_scalar(out_, ScalarValue::fp64(r.get(0, 0)));
  else
    ec.set_matrix(out_.name, std::move(r));
}

}  // namespace dmlrt::inst
