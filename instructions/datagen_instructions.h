// Data generation instructions, SystemDS layouts (reference/systemds-format.md §3):
//   rand  rows·S°cols·S°blen°min°max°sparsity°seed°pdf°lambda°k°out  (bare numbers; ¶v¶ fields are
//         patched before construction, see opcode_table.cpp)
//   seq   rows°cols°blen°from·S°to·S°incr·S°out
//   sinit rows°cols°blen°values°out  (matrix("1 2 3 4", rows=2, cols=2): bare rows and cols, the
//         values space-separated in row-major order; CPU only, the data is a literal)
// Values come from kernels/cpu/random (Philox streams; datagen_instructions.cpp), or on the GPU
// from kernels/cuda/datagen (datagen_gpu.cpp), which reproduces the same cells: for one resolved
// seed both backends give the same matrix. The sizes depend on scalar values, so their checks are
// in one helper per class that both runs (and device_bytes) call; the seed, and a fresh seed's
// draw, is resolved the same way in either run, so it does not depend on where the line runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "instructions/instruction.h"
#include "kernels/cpu/random.h"

namespace dmlrt::inst {

class RandInstruction final : public Instruction {
 public:
  explicit RandInstruction(InstructionText t);

  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  // A bare numeric field (Java's Double.toString forms, NaN and Infinity included).
  double number(size_t i, const char* what) const;
  // The spec with the run-time dims, checked as SystemDS does; the seed not yet resolved.
  kernels::cpu::RandSpec checked_spec(ExecutionContext& ec) const;
  // checked_spec with the seed resolved (a fresh one drawn for seed -1): what a run generates.
  kernels::cpu::RandSpec run_spec(ExecutionContext& ec) const;

  Operand rows_, cols_, out_;
  kernels::cpu::RandSpec spec_;
  int64_t seed_ = -1;
};

class SeqInstruction final : public Instruction {
 public:
  explicit SeqInstruction(InstructionText t);

  bool has_gpu_impl() const override { return true; }

 private:
  struct Args {
    double from, to, incr;
  };

  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
  // from, to and incr (the default increment turned around), checked as SystemDS does, with the
  // host memory check of the result.
  Args args(ExecutionContext& ec) const;

  Operand from_, to_, incr_, out_;
};

// sample(range, size, replace, seed): `sample°range°size·S°replace°seed°blen°out`, range a bare
// number (¶v¶ when it is a variable) read as a long, replace and seed bare. A (size, 1) column of
// integers in [1, range] (kernels/cpu/random's sample_column); seed -1 draws a fresh seed as rand
// does. The values need not equal SystemDS's (java.util.Random), only their properties. With
// replacement it also runs on the GPU (datagen_sample_gpu.cpp: kernels/cuda/sample draws the same
// cells); without, the draws form a sequential partial Fisher-Yates shuffle (each swap depends on
// the ones before), which stays on the CPU: has_gpu_impl is false for replace=FALSE.
class SampleInstruction final : public Instruction {
 public:
  explicit SampleInstruction(InstructionText t);

  bool has_gpu_impl() const override { return replace_; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
  // The sample size, checked as SystemDS does (both runs and device_bytes).
  int64_t checked_size(ExecutionContext& ec) const;
  // The seed a run draws with (a fresh one for seed -1), resolved the same way in either run.
  uint64_t run_seed(ExecutionContext& ec) const;

  int64_t range_ = 0, seed_ = -1;
  bool replace_ = false;
  Operand size_, out_;
};

// SystemDS's StringInitCPInstruction: the values are parsed as Java's Double.parseDouble does and
// must number exactly rows*cols (a single value is not repeated). The values are parsed once
// here; a bad one fails when the line runs, as in SystemDS, not when the plan is read.
class StringInitInstruction final : public Instruction {
 public:
  explicit StringInitInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  int64_t rows_ = 0, cols_ = 0;
  std::vector<double> values_;
  std::string value_error_;  // the first value that is not a number, if any
  Operand out_;
};

}  // namespace dmlrt::inst
