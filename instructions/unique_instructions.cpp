// unique, uniquer, uniquec: parsing and the CPU run (unique_instructions.h).
#include "instructions/unique_instructions.h"

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {

namespace cpu = kernels::cpu;

UniqueInstruction::UniqueInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 3);
  const std::string& op = opcode();
  dir_ = op == "uniquer"   ? cpu::UniqueDir::kRow
         : op == "uniquec" ? cpu::UniqueDir::kCol
                           : cpu::UniqueDir::kAll;
  in_ = operand(0);
  out_ = operand(1);
  DMLRT_REQUIRE(in_.is_matrix() && out_.is_matrix(), ParseError,
                where() << ": " << op << " needs a matrix input and output");
}

void UniqueInstruction::run_cpu(ExecutionContext& ec) {
  ec.set_matrix(out_.name, cpu::unique_values(*ec.matrix(in_), dir_));
}

// The input, and an output of at most its size.
int64_t UniqueInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& m = ec.matrix_object(in_.name)->meta();
  const int64_t in = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
  return in < 0 ? -1 : 2 * in;
}

}  // namespace dmlrt::inst
