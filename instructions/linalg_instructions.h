// Dense linear algebra through LAPACK (kernels/cpu/linalg), SystemDS layouts (LibCommonsMath):
// `inverse` and `cholesky` (A°out[°k]), `det` (A°scalar[°k]) and the multi-return `lu`
// (A°P°L°U[°k], outputs bare names; SystemDS binds them in the order P, L, U, so DML's
// `[L, U, P] = lu(A)` gives L the permutation) and `qr` (A°H°R[°k]: the Householder vectors, not
// Q) and `svd` (A°U°Sigma°V[°k]). The GPU run (linalg_gpu.cpp) is cuSOLVER's, FP64 and FP32, with
// the CPU's results and errors (Note [GPU linalg] in kernels/cuda/linalg_op.cpp). solve and eigen
// have their own files.
#pragma once

#include <string>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class LinalgInstruction final : public Instruction {
 public:
  enum class Op { kInverse, kCholesky, kDet, kLu, kQr, kSvd };

  explicit LinalgInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Op op_;
  Operand in_, out_;       // out_: inverse, cholesky, det
  std::string p_, l_, u_;  // the multi-return outputs in order (qr: two)
};

}  // namespace dmlrt::inst
