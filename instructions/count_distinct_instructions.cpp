// uacd, uacdr, uacdc, uacdap, uacdapr, uacdapc: parsing and the CPU run
// (count_distinct_instructions.h).
#include "instructions/count_distinct_instructions.h"

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "gpu_context/string_util.h"

namespace dmlrt::inst {

namespace cpu = kernels::cpu;

CountDistinctInstruction::CountDistinctInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 3);
  const std::string op = to_lower(opcode());  // uacd[ap][r|c]
  approx_ = op.compare(0, 6, "uacdap") == 0;
  const char last = op.back();
  dir_ = last == 'r'   ? cpu::CountDistinctDir::kRow
         : last == 'c' ? cpu::CountDistinctDir::kCol
                       : cpu::CountDistinctDir::kAll;
  in_ = operand(0);
  out_ = operand(1);
  const bool scalar_out = dir_ == cpu::CountDistinctDir::kAll;
  DMLRT_REQUIRE(in_.is_matrix() && (scalar_out ? out_.is_scalar() : out_.is_matrix()), ParseError,
                where() << ": " << op << " needs a matrix input and a "
                        << (scalar_out ? "scalar" : "matrix") << " output");
}

void CountDistinctInstruction::run_cpu(ExecutionContext& ec) {
  kernels::MatrixBlock r = cpu::count_distinct(*ec.matrix(in_), dir_, approx_);
  if (dir_ == cpu::CountDistinctDir::kAll)
    ec.set_scalar(out_, ScalarValue::int64(static_cast<int64_t>(r.get(0, 0))));
  else
    ec.set_matrix(out_.name, std::move(r));
}

// The input; the counts are small next to it.
int64_t CountDistinctInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& m = ec.matrix_object(in_.name)->meta();
  return dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
}

}  // namespace dmlrt::inst
