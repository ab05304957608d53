// Cell-wise binary instructions (+ - * / ^ %% %/% == != < > <= >= && || xor min max 1-* -nz):
// matrix-matrix `in1°in2°out[°k][°InPlace]` with right-vector and outer broadcasting, matrix-scalar
// in either order, and scalar-scalar `S°S°s` with SystemDS's value-type rules (GPU lines carry
// exactly `in1°in2°out`). CPU run in binary_instructions.cpp (kernels/cpu/binary), GPU run in
// binary_gpu.cpp (kernels/cuda/elementwise).
#pragma once

#include <optional>

#include "instructions/instruction.h"
#include "kernels/cpu/binary.h"

namespace dmlrt::inst {

class BinaryInstruction final : public Instruction {
 public:
  explicit BinaryInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  // Matrix-matrix and matrix-scalar forms run on the GPU; scalar-scalar forms stay on the CPU.
  bool has_gpu_impl() const override { return in1_.is_matrix() || in2_.is_matrix(); }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  static ScalarValue scalar_of(ExecutionContext& ec, const Operand& op,
                               const std::optional<ScalarValue>& lit) {
    return lit ? *lit : ec.scalar(op);
  }
  // The scalar operand of a matrix-scalar op as a double.
  double scalar_as_double(ExecutionContext& ec, bool scalar_left) const;

  kernels::cpu::BinaryOp op_ = kernels::cpu::BinaryOp::kPlus;
  Operand in1_, in2_, out_;
  std::optional<ScalarValue> lit1_, lit2_;  // parsed literal operands (parse_literal)
};

}  // namespace dmlrt::inst
