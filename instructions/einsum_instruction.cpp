// einsum: parsing, the CPU run and the GPU placement questions (einsum_instruction.h); the GPU
// run is in einsum_gpu.cpp.
#include "instructions/einsum_instruction.h"

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/einsum.h"
#include "kernels/cuda/einsum.h"

namespace dmlrt::inst {

EinsumInstruction::EinsumInstruction(InstructionText t) : Instruction(std::move(t)) {
  DMLRT_REQUIRE(num_fields() >= 3, ParseError,
                where() << ": einsum needs an equation, at least one matrix and an output");
  eq_ = operand(0);
  for (size_t i = 1; i + 1 < num_fields(); ++i) {
    in_.push_back(operand(i));
    DMLRT_REQUIRE(in_.back().is_matrix(), ParseError,
                  where() << ": einsum operand " << i << " must be a matrix");
  }
  out_ = operand(num_fields() - 1);
  DMLRT_REQUIRE(eq_.is_scalar(), ParseError, where() << ": einsum needs a string equation");
}

// The inputs and the output, dense; -1 when a dim is unknown or the equation does not fit them
// (run_cpu then raises the error).
int64_t EinsumInstruction::device_bytes(ExecutionContext& ec) const {
  const mem::GpuSession* gpu = ec.options().gpu.get();
  std::vector<std::pair<int64_t, int64_t>> dims;
  int64_t bytes = 0;
  for (const Operand& o : in_) {
    const MatrixMeta& m = ec.matrix_object(o.name)->meta();
    const int64_t b = dense_device_bytes(gpu, m.rows, m.cols);
    if (b < 0) return -1;
    bytes += b;
    dims.emplace_back(m.rows, m.cols);
  }
  try {
    const kernels::cpu::EinsumSpec spec =
        kernels::cpu::parse_einsum(ec.scalar(eq_).to_string(), in_.size());
    const kernels::cpu::EinsumLayout lay = kernels::cpu::einsum_layout(spec, dims);
    return bytes + dense_device_bytes(gpu, lay.rows, lay.cols);
  } catch (const Error&) {
    return -1;
  }
}

bool EinsumInstruction::gpu_applicable(ExecutionContext& ec) {
  if (in_.size() > static_cast<size_t>(kernels::cuda::kEinsumMaxOperands)) return false;
  try {
    const kernels::cpu::EinsumSpec spec =
        kernels::cpu::parse_einsum(ec.scalar(eq_).to_string(), in_.size());
    if (out_.is_scalar() != spec.out.empty()) return false;
    std::string letters;
    for (const std::string& t : spec.terms)
      for (char c : t)
        if (letters.find(c) == std::string::npos) letters += c;
    return letters.size() <= static_cast<size_t>(kernels::cuda::kEinsumMaxLetters);
  } catch (const Error&) {
    return false;
  }
}

void EinsumInstruction::run_cpu(ExecutionContext& ec) {
  const std::string equation = ec.scalar(eq_).to_string();
  const kernels::cpu::EinsumSpec spec = kernels::cpu::parse_einsum(equation, in_.size());
  DMLRT_REQUIRE(out_.is_scalar() == spec.out.empty(), RuntimeError,
                "einsum: '" << equation << "' gives a " << (spec.out.empty() ? "scalar" : "matrix")
                            << " but the output " << out_.name << " is a "
                            << (out_.is_scalar() ? "scalar" : "matrix"));
  std::vector<std::shared_ptr<const kernels::MatrixBlock>> keep;
  std::vector<const kernels::MatrixBlock*> in;
  for (const Operand& o : in_) {
    keep.push_back(ec.matrix(o));
    in.push_back(keep.back().get());
  }
  kernels::MatrixBlock r = kernels::cpu::einsum(spec, in);
  if (out_.is_scalar())
    ec.set_scalar(out_, ScalarValue::fp64(r.get(0, 0)));
  else
    ec.set_matrix(out_.name, std::move(r));
}

}  // namespace dmlrt::inst
