// Indexing instructions rightIndex (X[rl:ru, cl:cu]) and leftIndex (X[rl:ru, cl:cu] = Y or = s),
// SystemDS layouts (reference/systemds-format.md §3): 1-based inclusive scalar bounds. The bounds
// are values, so their checks are not in check() but in one helper per class that both runs call
// (the same checks and messages on both backends). CPU runs in indexing_instructions.cpp
// (kernels/cpu/indexing); GPU runs in indexing_gpu.cpp (kernels/cuda/indexing for dense inputs,
// kernels/cuda/csr_ops for CSR slices that never densify the whole input).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "instructions/instruction.h"

namespace dmlrt::inst {

// Shared parsing of the four bound operands and the bounds check against the indexed matrix.
class IndexingInstruction : public Instruction {
 public:
  // Both instructions run on the GPU (dense kernels; CSR slices for rightIndex).
  bool has_gpu_impl() const override { return true; }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 protected:
  // 1-based inclusive index range [rl:ru, cl:cu].
  struct Range {
    int64_t rl, ru, cl, cu;
    int64_t rows() const { return ru - rl + 1; }
    int64_t cols() const { return cu - cl + 1; }
  };

  IndexingInstruction(InstructionText t, const char* name)
      : Instruction(std::move(t)), name_(name) {}

  void parse_bounds(size_t first);
  // The bounds' values, checked against the indexed matrix's dims `x`.
  Range range(ExecutionContext& ec, Dims x) const;
  // Device bytes of `ops` (each counted twice: input and a result of at most its size) from the
  // metadata; -1 when a shape is unknown.
  static int64_t bytes_of(ExecutionContext& ec, std::initializer_list<const Operand*> ops);

  const char* name_;
  Operand bounds_[4];
};

// rightIndex X rl ru cl cu out: out is a matrix, or a scalar when SystemDS indexes one cell
// (as.scalar(X[i,j]) and X[i,j] compile to a SCALAR output).
class RightIndexInstruction final : public IndexingInstruction {
 public:
  explicit RightIndexInstruction(InstructionText t);

 private:
  int64_t device_bytes(ExecutionContext& ec) const override { return bytes_of(ec, {&in_}); }
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
  // range(), and for a scalar output the single-cell rule.
  Range cells(ExecutionContext& ec, Dims x) const;

  Operand in_, out_;
};

// leftIndex X rhs rl ru cl cu out: out = X with [rl:ru, cl:cu] replaced by the matrix rhs (of the
// range's shape) or by the scalar rhs. SystemDS only emits scalar rhs for single cells; a scalar
// over a larger range fills it.
class LeftIndexInstruction final : public IndexingInstruction {
 public:
  explicit LeftIndexInstruction(InstructionText t);

 private:
  int64_t device_bytes(ExecutionContext& ec) const override { return bytes_of(ec, {&in_, &rhs_}); }
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
  // A matrix right-hand side `y` must have the shape of the target range `r` of `x`.
  void check_rhs(const Range& r, Dims x, Dims y) const;

  Operand in_, rhs_, out_;
};

}  // namespace dmlrt::inst
