// The batch-norm sub-family of the DNN ops (layouts: reference/systemds-format.md §3 and
// systemds-gpu.md §2.6; outputs may be bare names or typed operands, a trailing k is optional):
//   batch_norm2d          X°scale°bias°runMean°runVar°mode°eps°mu°out°retRunMean°retRunVar°
//                         saveMean°saveInvVar[°k]   (mode "train" or "test", any case)
//   batch_norm2d_train    X°scale°bias°runMean°runVar°eps°mu°the same 5 outputs[°k]
//   batch_norm2d_test     X°scale°bias°runMean°runVar°eps°out[°k]
//   batch_norm2d_backward X°dout°scale°eps°saveMean°saveInvVar°dX°dScale°dBias[°k]
// X is N x (C*HW) and the per-channel operands are C x 1, C = rows of scale. Semantics: Note
// [Batch-norm semantics] (kernels/cpu/dnn_batchnorm.cpp); the GPU runs (dnn_batchnorm_gpu.cpp)
// use custom kernels (Note [Batch norm without cuDNN] in kernels/cuda/dnn_batchnorm.cu). Shape
// and mode errors are raised before the work starts, with the same text on both backends.
#pragma once

#include <string>
#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

// batch_norm2d, batch_norm2d_train, batch_norm2d_test.
class BatchNormForwardInstruction final : public Instruction {
 public:
  explicit BatchNormForwardInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  struct Params {
    bool train = false;
    double eps = 0, mu = 0;
  };
  // The mode (checked), eps and mu: both runs start here.
  Params params(ExecutionContext& ec) const;

  Operand in_[5];
  Operand mode_, eps_, mu_;
  std::vector<std::string> outs_;
  bool fixed_train_ = false, fixed_test_ = false;
};

// batch_norm2d_backward X°dout°scale°eps°saveMean°saveInvVar°dX°dScale°dBias[°k]
class BatchNormBackwardInstruction final : public Instruction {
 public:
  explicit BatchNormBackwardInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Operand in_[5];  // X, dout, scale, saveMean, saveInvVar
  Operand eps_;
  std::string outs_[3];
};

}  // namespace dmlrt::inst
