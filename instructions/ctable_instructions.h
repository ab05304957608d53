// table(): ctable `A°B°W°dim1°dim2°out°ignoreZeros[°k]` and ctableexpand (the same fields with a
// `seq(1, m)·SCALAR·STRING·true` literal for the sequence side). A, B and W are matrices or
// scalars; dim1/dim2 are `value·isLiteral` pairs (`-1·true` = from the data, `N·false` = scalar
// variable N), split by hand as SystemDS does. Kernels: kernels/cpu/ctable; on the GPU
// (ctable_gpu.cpp) kernels/cuda/ctable (a dense table by atomic scatter) and, for ctableexpand,
// kernels/cuda/parameterized (a CSR with one entry per row).
#pragma once

#include <cstdint>
#include <string>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class CtableInstruction final : public Instruction {
 public:
  explicit CtableInstruction(InstructionText t);

  // ctable: the matrix inputs agree; ctableexpand: v has one row per element of seq(1, m).
  void check(Shapes& shapes) const override;

  // Every form (at least one input is a matrix).
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
  // The GPU runs of ctableexpand and ctable (ctable_gpu.cpp); false for a result the device form
  // does not build (sizes past int32 CSR indices, a dense table far larger than its input), and
  // run_gpu runs run_cpu instead.
  bool expand_gpu(ExecutionContext& ec, mem::GpuSession& gpu);
  bool table_gpu(ExecutionContext& ec, mem::GpuSession& gpu);
  // dim1 (i = 0) or dim2 as a Java (long) cast of its value.
  int64_t dim(ExecutionContext& ec, int i) const;

  struct Dim {
    std::string value;
    bool literal = true;
  };
  Dim split_dim(const std::string& f) const;

  Operand in_[3];
  Dim dim_[2];
  Operand out_;
  bool ignore_zeros_ = false;
  bool expand_ = false;   // ctableexpand
  bool seq_left_ = true;  // ctableexpand: in_[0] is the sequence, else in_[1]
  int64_t seq_len_ = 0;   // ctableexpand: m of seq(1, m); -1 (unknown) = nrow(v)
};

}  // namespace dmlrt::inst
