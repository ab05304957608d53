// Ternary instructions: ifelse (`c°a°b°out[°k]`) and the axpy forms +* / -* (`X°s°Y°out[°k]`,
// X + s*Y and X - s*Y). Any input may be a scalar or a matrix; matrices must agree in shape and
// 1x1 matrices act as scalars (SystemDS ternaryOperations). All-scalar inputs give a scalar.
// CPU run in ternary_instructions.cpp (kernels/cpu/ternary), GPU run in ternary_gpu.cpp
// (kernels/cuda/elementwise launch_ternary).
#pragma once

#include "instructions/instruction.h"
#include "kernels/cpu/ternary.h"

namespace dmlrt::inst {

class TernaryInstruction final : public Instruction {
 public:
  explicit TernaryInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  // Forms with a matrix run on the GPU too; all-scalar forms stay on the CPU (host arithmetic, no
  // device work worth a launch).
  bool has_gpu_impl() const override { return out_.is_matrix(); }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  // The shape of an input as the output-shape rule sees it (is_matrix false for a scalar).
  struct ArgShape {
    bool is_matrix = false;
    int64_t rows = 1, cols = 1;
    bool scalar_like() const { return !is_matrix || (rows == 1 && cols == 1); }
  };
  // The output shape: the common shape of the inputs that are not scalar-like (scalars and 1x1
  // matrices broadcast); with an empty matrix input the output takes its shape (max would miss 0
  // dims). check() has made sure the full-shape inputs agree. Shared by both runs.
  static Dims output_shape(const ArgShape (&args)[3]);

  void run_scalar(ExecutionContext& ec);
  // A scalar input combined with matrices, as a double; a STRING is an error.
  double to_number(const ScalarValue& v) const;

  kernels::cpu::TernaryOp op_ = kernels::cpu::TernaryOp::kIfElse;
  Operand in_[3];
  Operand out_;
};

}  // namespace dmlrt::inst
