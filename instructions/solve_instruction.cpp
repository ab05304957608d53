// solve(A, b): parsing, shape rules and CPU run (solve_instruction.h).
#include "instructions/solve_instruction.h"

#include <limits>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/solve.h"

namespace dmlrt::inst {

SolveInstruction::SolveInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(3, 4);
  a_ = operand(0);
  b_ = operand(1);
  out_ = operand(2);
  for (const Operand* op : {&a_, &b_, &out_})
    DMLRT_REQUIRE(op->is_matrix(), ParseError,
                  where() << ": solve expects matrix operands, got " << op->to_string());
}

// The CPU kernel repeats these (it is a library function); the GPU run relies on them.
void SolveInstruction::check(Shapes& shapes) const {
  const Dims a = shapes.dims(a_);
  if (!a.known()) return;
  DMLRT_REQUIRE(a.rows == a.cols, ShapeError,
                "solve: A must be square, got " << kernels::dims_string(a.rows, a.cols));
  const Dims b = shapes.dims(b_);
  if (!b.known()) return;
  DMLRT_REQUIRE(b.rows == a.rows, ShapeError,
                "solve: A is " << kernels::dims_string(a.rows, a.cols) << " but b is "
                               << kernels::dims_string(b.rows, b.cols) << " (row counts differ)");
  DMLRT_REQUIRE(
      a.rows <= std::numeric_limits<int>::max() && b.cols <= std::numeric_limits<int>::max() &&
          a.rows * a.rows <= std::numeric_limits<int64_t>::max() / 8,
      ShapeError,
      "solve: " << kernels::dims_string(a.rows, a.rows) << " exceeds LAPACK's 32-bit sizes");
}

void SolveInstruction::run_cpu(ExecutionContext& ec) {
  auto a = ec.matrix(a_);
  auto b = ec.matrix(b_);
  ec.set_matrix(out_.name, kernels::cpu::solve(*a, *b));
}

// A, b and the solution; the factorisation's column-major copies double that.
int64_t SolveInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& a = ec.matrix_object(a_.name)->meta();
  const MatrixMeta& b = ec.matrix_object(b_.name)->meta();
  const mem::GpuSession* gpu = ec.options().gpu.get();
  const int64_t ab = dense_device_bytes(gpu, a.rows, a.cols);
  const int64_t bb = dense_device_bytes(gpu, b.rows, b.cols);
  return ab < 0 || bb < 0 ? -1 : 2 * (ab + 2 * bb);
}

}  // namespace dmlrt::inst
