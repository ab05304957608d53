// sqrt_matrix_java: parsing, shape check and the CPU run (sqrt_matrix_instruction.h).
#include "instructions/sqrt_matrix_instruction.h"

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/sqrt_matrix.h"

namespace dmlrt::inst {

SqrtMatrixInstruction::SqrtMatrixInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 3);
  in_ = operand(0);
  out_ = operand(1);
  DMLRT_REQUIRE(in_.is_matrix() && out_.is_matrix(), ParseError,
                where() << ": sqrt_matrix_java needs a matrix input and output");
}

void SqrtMatrixInstruction::check(Shapes& shapes) const {
  const Dims a = shapes.dims(in_);
  // SystemDS's validator: "Input to sqrtMatrix() must be square matrix".
  DMLRT_REQUIRE(
      !a.known() || a.rows == a.cols, ShapeError,
      "sqrt_matrix_java: expects a square matrix, got " << kernels::dims_string(a.rows, a.cols));
}

// The input, the output and the GPU run's three (n, n) intermediates (the eigenvectors, their
// column-major copy in syevd, the scaled copy); syevd's own workspace is not counted.
int64_t SqrtMatrixInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& a = ec.matrix_object(in_.name)->meta();
  const int64_t one = dense_device_bytes(ec.options().gpu.get(), a.rows, a.cols);
  return one < 0 ? -1 : 5 * one;
}

void SqrtMatrixInstruction::run_cpu(ExecutionContext& ec) {
  ec.set_matrix(out_.name, kernels::cpu::sqrt_matrix(*ec.matrix(in_)));
}

}  // namespace dmlrt::inst
