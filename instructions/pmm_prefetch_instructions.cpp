// pmm and prefetch: parsing, shape check and CPU runs (pmm_prefetch_instructions.h).
#include "instructions/pmm_prefetch_instructions.h"

#include "gpu_context/error.h"
#include "kernels/cpu/permutation_mm.h"

namespace dmlrt::inst {

PmmInstruction::PmmInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(4, 5);
  p_ = operand(0);
  x_ = operand(1);
  rlen_ = operand(2);
  out_ = operand(3);
  DMLRT_REQUIRE(p_.is_matrix() && x_.is_matrix() && rlen_.is_scalar() && out_.is_matrix(),
                ParseError,
                where() << ": pmm needs a permutation vector, a matrix, a scalar row count and "
                           "a matrix output");
}

void PmmInstruction::check(Shapes& shapes) const {
  const Dims p = shapes.dims(p_), x = shapes.dims(x_);
  DMLRT_REQUIRE((p.cols < 0 || p.cols == 1) && (p.rows < 0 || x.rows < 0 || p.rows == x.rows),
                ShapeError,
                "pmm: expects a column vector with a row per matrix row, got "
                    << kernels::dims_string(p.rows, p.cols) << " and "
                    << kernels::dims_string(x.rows, x.cols));
}

void PmmInstruction::run_cpu(ExecutionContext& ec) {
  const int64_t rlen = ec.scalar(rlen_).to_int();
  DMLRT_REQUIRE(rlen >= 0, RuntimeError, "pmm: invalid output row count " << rlen);
  ec.set_matrix(out_.name, kernels::cpu::permutation_mm(*ec.matrix(p_), *ec.matrix(x_), rlen));
}

PrefetchInstruction::PrefetchInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2);
  in_ = operand(0);
  out_ = operand(1);
  DMLRT_REQUIRE(in_.is_matrix() && out_.is_matrix(), ParseError,
                where() << ": prefetch needs a matrix input and output");
}

void PrefetchInstruction::run_cpu(ExecutionContext& ec) { ec.set(out_.name, ec.at(in_.name)); }

}  // namespace dmlrt::inst
