// The pool sub-family of the DNN ops: max/avg pooling and their backward passes (also
// relu_maxpooling), relu_backward, bias_add, bias_multiply, channel_sums and update_nesterov_x, on
// the CPU (kernels/cpu/dnn_pool.h; dnn_pool_instructions.cpp) and on the GPU (kernels/cuda/
// dnn_pool.h, same semantics, see Note [GPU pooling kernels]; dnn_pool_gpu.cpp). Layouts:
// reference/systemds-format.md §3 (CP) and systemds-gpu.md §2.6 (GPU: no k; pooling backward may
// carry the forward output, ignored on both backends).
#pragma once

#include <cstdint>
#include <string>

#include "instructions/instruction.h"
#include "kernels/cpu/dnn_pool.h"

namespace dmlrt::inst {

// maxpooling avgpooling relu_maxpooling: X°12 scalars°out[°k][°mem]
// maxpooling_backward avgpooling_backward relu_maxpooling_backward:
//   X°dout°12 scalars[°maxpool_out]°out[°k][°mem]
// The operands' shapes follow from the scalars' values, so the runs check them (pool_shape).
class PoolInstruction final : public Instruction {
 public:
  explicit PoolInstruction(InstructionText t);

  bool has_gpu_impl() const override { return true; }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  // The 12 shape scalars, checked, and X (and dout) checked against them: both runs start here.
  kernels::cpu::PoolShape pool_shape(ExecutionContext& ec) const;
  // The scalars alone (device_bytes needs no operand checks).
  kernels::cpu::PoolShape params_of(ExecutionContext& ec) const;
  static std::string params(const kernels::cpu::PoolShape& sh);

  bool backward_ = false;
  Operand x_, dout_, out_;
  Operand scalars_[12];
};

// relu_backward X°dout°out, bias_add / bias_multiply X°bias°out (each [°k][°mem]). On the GPU
// CSR operands are densified (cell-wise kernels); the output is dense.
class BinaryDnnInstruction final : public Instruction {
 public:
  explicit BinaryDnnInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Operand a_, b_, out_;
};

// channel_sums X°C°HW°out[°k][°mem]. X's columns must be C*HW, values of the scalars: the runs
// check them (channels).
class ChannelSumsInstruction final : public Instruction {
 public:
  explicit ChannelSumsInstruction(InstructionText t);

  bool has_gpu_impl() const override { return true; }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  struct Channels {
    int64_t c = 0, hw = 0;
  };
  // C and HW, checked against X's columns: both runs start here.
  Channels channels(ExecutionContext& ec) const;

  Operand x_, c_, hw_, out_;
};

// update_nesterov_x X°v°v_prev°mu°out[°k][°mem]: X - mu*v_prev + (1+mu)*v. mu stays a double on
// both backends (SystemDS's GPU instruction casts it to int, a bug; see systemds-gpu.md §7.1 and
// docs/deviations.md).
class NesterovInstruction final : public Instruction {
 public:
  explicit NesterovInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  Operand in_[3], mu_, out_;
};

}  // namespace dmlrt::inst
