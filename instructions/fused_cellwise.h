// Fused cell-wise chains (built by the plan rewrite of runtime/plan_rewrites.cpp, Note [Fusing
// cell-wise chains]): what one cell-wise line computes (cell_op_of), the chain a run of such lines
// forms (FusedCellPlan), and the instruction that runs the chain as one GPU kernel
// (kernels/cuda/fused_cellwise.h; fused_cellwise_gpu.cpp) or, where it cannot, has the original
// lines run one by one.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "instructions/instruction.h"
#include "kernels/cpu/binary.h"

namespace dmlrt::inst {

enum class CellOpKind { kBinary, kUnary, kTernary };

// One cell-wise line with matrix output that has a GPU kernel: binary (matrix-matrix or
// matrix-scalar, every op but xor), unary builtin (exp ... sigmoid, !, ^2, *2; not isnan) or
// ternary (+*, -*, ifelse).
struct CellOpText {
  CellOpKind kind = CellOpKind::kBinary;
  int op = 0;                   // kernels::cpu::BinaryOp, UnaryOp or TernaryOp
  std::vector<Operand> inputs;  // 2, 1 or 3, in operand order
  Operand output;
};

// The cell-wise op of `t`, or nullopt when `t` is not such a line (other opcodes, scalar outputs,
// ¶name¶ placeholders, a malformed line: those are left to their own instruction).
std::optional<CellOpText> cell_op_of(const InstructionText& t);

// Where a step's argument comes from.
struct FusedCellArg {
  enum class Kind { kStep, kInput, kScalar };
  Kind kind = Kind::kStep;
  int index = 0;
};

struct FusedCellStep {
  CellOpKind kind = CellOpKind::kBinary;
  int op = 0;
  std::vector<FusedCellArg> args;
};

// A chain: steps in order; the matrix variables read from before the chain (`inputs`), of which
// `input_full[k]` must have the chain's shape (the others may be the right operand of a binary
// step broadcast as a row or column vector); scalar operands; and the (step, variable) pairs
// bound after the chain. The chain's shape is that of `inputs[0]`, which step 0 reads as a full
// operand.
struct FusedCellPlan {
  std::vector<FusedCellStep> steps;
  std::vector<std::string> inputs;
  std::vector<bool> input_full;
  std::vector<Operand> scalars;
  std::vector<std::pair<int, std::string>> outputs;
  std::vector<std::string> written;  // every variable a step writes, once each
};

// Limits of one chain (those of the kernel's program, kernels/cuda/fused_cellwise.h).
inline constexpr int kFusedCellMaxSteps = 16;
inline constexpr int kFusedCellMaxInputs = 8;
inline constexpr int kFusedCellMaxOutputs = 8;
inline constexpr int kFusedCellMaxScalars = 16;

// The instruction of a chain. `parts` are the original lines in their order: the chain's steps
// (`is_step[i]`) and the createvar / rmvar lines between them. On the GPU it runs every createvar,
// the chain as one kernel, then every rmvar (the rewrite checked that this order is equivalent);
// elsewhere, or when an operand does not fit the chain at run time (a CPU placement, a missing or
// unread input, a shape the kernel does not broadcast, an empty matrix, a string scalar, a written
// variable whose matrix object another name shares), Instruction::run answers Ran::kParts and the
// caller runs `parts`, exactly as the plan would have.
InstructionPtr make_fused_cellwise(FusedCellPlan plan, std::vector<InstructionPtr> parts,
                                   std::vector<bool> is_step);

// What make_fused_cellwise builds (the GPU run is in fused_cellwise_gpu.cpp).
class FusedCellwiseInstruction final : public Instruction {
 public:
  FusedCellwiseInstruction(InstructionText text, FusedCellPlan plan,
                           std::vector<InstructionPtr> parts, std::vector<bool> is_step,
                           std::string name);

  std::string stats_name() const override { return name_; }
  bool has_gpu_impl() const override { return true; }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }
  void graph_host_effects(ExecutionContext& ec, bool before) override {
    run_bookkeeping(ec, before);
  }
  const std::vector<InstructionPtr>* parts() const override { return &parts_; }
  const FusedCellPlan& plan() const { return plan_; }

 private:
  // Every step would have run on the GPU: its inputs and output, full size (4 times the first
  // input's dense size), within the budget under -gpu.
  int64_t device_bytes(ExecutionContext& ec) const override;
  // The operands fit the kernel (see make_fused_cellwise): analyze() succeeds.
  bool gpu_applicable(ExecutionContext& ec) override;
  // What run_gpu needs, found from the bound operands: the chain's shape, its inputs' shapes and
  // its scalars; false when the operands do not fit the kernel. Recomputed by run_gpu rather than
  // kept in the instruction, which PARFOR and paramserv workers share across threads.
  struct Analysis {
    int64_t rows = 0, cols = 0;
    std::vector<kernels::cpu::Broadcast> input_shape;  // kNone: the chain's shape
    std::vector<double> scalars;
  };
  bool analyze(ExecutionContext& ec, Analysis* a) const;
  // Never reached: the CPU side is the parts (Ran::kParts).
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  // The createvar lines (before the kernel) or the rmvar lines (after it).
  void run_bookkeeping(ExecutionContext& ec, bool before);

  FusedCellPlan plan_;
  std::vector<InstructionPtr> parts_;
  std::vector<bool> is_step_;
  std::string name_;
};

// The chain of an instruction make_fused_cellwise built; null for any other instruction.
const FusedCellPlan* fused_cellwise_plan(const Instruction& i);

// The name the chain reports in -stats: "fused(op,op,...)".
std::string fused_cellwise_name(const std::vector<std::string>& opcodes);

}  // namespace dmlrt::inst
