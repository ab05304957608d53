// SystemDS's MultiReturnComplexMatrixBuiltin family: the FFTs (kernels/cpu/fft.h on the CPU,
// cuFFT in fft_gpu.cpp) and rowClassMeet. Outputs are bare names, (real, imaginary) for the FFTs:
//   fft / fft_linearized          X°re°im[°k]
//   ifft / ifft_linearized        Re[°Im]°re°im[°k]
//   stft                          Re[°Im]°window°overlap°re°im[°k]   (window, overlap: scalars)
//   rcm                           A°B°C°N[°k]
// fft and ifft transform the whole matrix (rows and columns powers of two), the _linearized forms
// each row (columns a power of two); ifft divides by the transform's length. See Note [FFT size
// rules] in fft_instructions.cpp for SystemDS's checks and its all-zero shortcut.
#pragma once

#include <functional>
#include <string>

#include "instructions/instruction.h"

namespace dmlrt::inst {

class FftInstruction final : public Instruction {
 public:
  enum class Op { kFft, kIfft, kFftLinearized, kIfftLinearized, kStft };

  explicit FftInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  bool rows_only() const { return op_ != Op::kFft && op_ != Op::kIfft; }
  bool inverse() const { return op_ == Op::kIfft || op_ == Op::kIfftLinearized; }
  // stft's window and overlap, checked (power-of-two window, overlap < window, frames >= 0).
  void stft_args(ExecutionContext& ec, int64_t cols, int64_t* window, int64_t* overlap) const;
  // False when SystemDS skips the transform and answers zeros: an all-zero input (both parts)
  // of dims the transform does not take; throws for a nonzero one. `nnz` counts the input's
  // nonzeros (both parts), asked only when the dims fail the rule.
  bool transform_needed(int64_t rows, int64_t cols, const std::function<int64_t()>& nnz) const;

  Op op_;
  Operand re_, im_;  // im_.name empty: no imaginary input
  Operand window_, overlap_;
  std::string out_re_, out_im_;
};

// rowClassMeet. Its class numbers follow the iteration order of a Java HashMap, built row by row
// into one map whose capacity carries over, which is sequential by nature: the GPU run
// (row_class_meet_gpu.cpp, Note [GPU rcm]) finds the classes on the device and numbers them on
// the host from their (small) list of label pairs.
class RowClassMeetInstruction final : public Instruction {
 public:
  explicit RowClassMeetInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Operand a_, b_;
  std::string out_c_, out_n_;
};

}  // namespace dmlrt::inst
