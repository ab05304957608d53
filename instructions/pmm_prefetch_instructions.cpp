// pmm and prefetch: parsing, shape check and CPU runs (pmm_prefetch_instructions.h).
#include "instructions/pmm_prefetch_instructions.h"

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
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

int64_t PmmInstruction::output_rows(ExecutionContext& ec) const {
  const int64_t rlen = ec.scalar(rlen_).to_int();
  DMLRT_REQUIRE(rlen >= 0, RuntimeError, "pmm: invalid output row count " << rlen);
  return rlen;
}

void PmmInstruction::bad_entry(int64_t row, double value, int64_t rlen) const {
  kernels::cpu::pmm_bad_entry(row, value, rlen);
}

// P, X and the (rlen, ncol(X)) output, dense; rlen is a scalar known only at run time, so the
// output is sized from it when it is bound already, else from X's rows.
int64_t PmmInstruction::device_bytes(ExecutionContext& ec) const {
  const mem::GpuSession* gpu = ec.options().gpu.get();
  const MatrixMeta& p = ec.matrix_object_ref(p_.name)->meta();
  const MatrixMeta& x = ec.matrix_object_ref(x_.name)->meta();
  int64_t rlen = x.rows;
  if (rlen_.literal || ec.contains(rlen_.name)) rlen = ec.scalar(rlen_).to_int();
  const int64_t bp = dense_device_bytes(gpu, p.rows, 1), bx = dense_device_bytes(gpu, x.rows, x.cols),
                bo = dense_device_bytes(gpu, rlen, x.cols);
  return bp < 0 || bx < 0 || bo < 0 ? -1 : bp + bx + bo;
}

void PmmInstruction::run_cpu(ExecutionContext& ec) {
  const int64_t rlen = output_rows(ec);
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
