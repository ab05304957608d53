// Reorganisation instructions r' rshape rdiag rev roll (SystemDS layouts, reference/systemds-format.md
// §3): one matrix input, one matrix output. Parsing, shape rules and CPU runs (kernels/cpu/reorg)
// in reorg_instructions.cpp; GPU runs in reorg_gpu.cpp (kernels/cuda/{reorg,csr_ops}; CSR inputs of
// r', rev and rdiag stay sparse there, rshape densifies them).
#pragma once

#include <cstdint>
#include <optional>

#include "instructions/instruction.h"

namespace dmlrt::inst {

// Base of the reorg instructions; all have a GPU run (dense kernels, CSR where noted).
class ReorgInstruction : public Instruction {
 public:
  bool has_gpu_impl() const override { return true; }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 protected:
  explicit ReorgInstruction(InstructionText t) : Instruction(std::move(t)) {}

  void parse_in_out(size_t in_pos, size_t out_pos);
  int64_t device_bytes(ExecutionContext& ec) const override;

  Operand in_, out_;
};

// r' in out [k]: transpose.
class TransposeInstruction final : public ReorgInstruction {
 public:
  explicit TransposeInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
};

// rev in out [k]: reverse the row order.
class ReverseInstruction final : public ReorgInstruction {
 public:
  explicit ReverseInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
};

// roll in shift out [k]: rows rolled down by `shift` (mod rows; negative rolls up). The GPU run
// copies the two blocks of rows (a CSR input is densified).
class RollInstruction final : public ReorgInstruction {
 public:
  explicit RollInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
  // The shift as SystemDS reads it (getLongValue).
  int64_t shift(ExecutionContext& ec) const;

  Operand shift_;
};

// rdiag in out [k]: column vector -> diagonal matrix, square matrix -> diagonal as a column.
class DiagInstruction final : public ReorgInstruction {
 public:
  explicit DiagInstruction(InstructionText t);
  void check(Shapes& shapes) const override;

 private:
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
};

// rshape in rows cols dims byrow out: matrix(X, rows=, cols=, byrow=). `dims` is SystemDS's
// tensor-shape operand (-1 for matrices) and is not used.
class ReshapeInstruction final : public ReorgInstruction {
 public:
  explicit ReshapeInstruction(InstructionText t);
  // The cell count rule when rows, cols and byrow are literals; otherwise the runs check it.
  void check(Shapes& shapes) const override;

 private:
  struct Target {
    int64_t rows, cols;
    bool byrow;
  };

  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
  // The output dims and order from the scalar operands, checked against the input's `in` dims
  // where check() could not (variable operands).
  Target target(ExecutionContext& ec, Dims in) const;

  Operand rows_, cols_, byrow_;
  std::optional<Target> literal_;  // rows, cols and byrow when all three are literals
};

}  // namespace dmlrt::inst
