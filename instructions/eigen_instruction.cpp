// eigen(A): parsing, shape rule and CPU run (eigen_instruction.h).
#include "instructions/eigen_instruction.h"

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/eigen.h"

namespace dmlrt::inst {

EigenInstruction::EigenInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(3, 4);
  in_ = operand(0);
  DMLRT_REQUIRE(in_.is_matrix(), ParseError, where() << ": eigen expects a matrix input");
  values_ = Operand::parse(field(1)).name;
  vectors_ = Operand::parse(field(2)).name;
}

// The kernel repeats these (it is a library function); symmetry is a property of the values and
// is decided at run time. The size limit is the CPU's LAPACK's; the GPU run keeps it too, so that
// a plan fails the same way on either backend.
void EigenInstruction::check(Shapes& shapes) const {
  const Dims x = shapes.dims(in_);
  if (!x.known()) return;
  DMLRT_REQUIRE(
      x.rows == x.cols, ShapeError,
      "eigen: input must be a square matrix, got " << kernels::dims_string(x.rows, x.cols));
  DMLRT_REQUIRE(
      x.rows <= kernels::cpu::kEigenMaxOrder, ShapeError,
      "eigen: " << kernels::dims_string(x.rows, x.cols) << " exceeds LAPACK's 32-bit sizes");
}

// The input, the (n, 1) values and the (n, n) vectors.
int64_t EigenInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& a = ec.matrix_object(in_.name)->meta();
  const mem::GpuSession* gpu = ec.options().gpu.get();
  const int64_t in = dense_device_bytes(gpu, a.rows, a.cols);
  const int64_t values = dense_device_bytes(gpu, a.rows, 1);
  return in < 0 || values < 0 ? -1 : 2 * in + values;
}

void EigenInstruction::run_cpu(ExecutionContext& ec) {
  kernels::cpu::EigenResult r = kernels::cpu::eigen(*ec.matrix(in_));
  ec.set_matrix(values_, std::move(r.values));
  ec.set_matrix(vectors_, std::move(r.vectors));
}

}  // namespace dmlrt::inst
