// The conv sub-family of the DNN ops: conv2d (X°W°12°out), conv2d_bias_add (X°bias°W°12°out: bias
// BEFORE the filter), conv2d_backward_filter (X°dout°12°out) and conv2d_backward_data
// (W°dout°12°out), each with the optional trailing k and memory budget (ignored). The 12 shape
// scalars are stride_h, stride_w, pad_h, pad_w, N, C, H, W, K, C, R, S
// (reference/systemds-format.md §3). CPU run in dnn_conv_instructions.cpp (kernels/cpu/dnn_conv),
// GPU run in dnn_conv_gpu.cpp: cuDNN passes with timed, cached algorithms and batch splitting
// (kernels/cuda/dnn_conv_op.h, Note [DNN batch splitting] in dnn_gpu_common.h), or for a CSR
// filter the sparse-filter path (kernels/cuda/dnn_sparse_conv_op.h) when its cost model says so.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "instructions/instruction.h"
#include "kernels/cpu/dnn_conv.h"

namespace dmlrt::kernels::cuda {
class ConvPlanMemo;
}
namespace dmlrt::mem {
class DeviceMatrix;
}

namespace dmlrt::inst {

// All four conv opcodes (the opcode picks the pass).
class Conv2dInstruction final : public Instruction {
 public:
  explicit Conv2dInstruction(InstructionText t) : Conv2dInstruction(std::move(t), false) {}
  // relu: conv2d_bias_add only; the output is max(conv + bias, 0) (fused on the GPU).
  Conv2dInstruction(InstructionText t, bool relu);

  // The operands' dims against the shape scalars, when those are literals (as SystemDS writes
  // them); variable shape scalars are values, so their runs check the same rules.
  void check(Shapes& shapes) const override;
  bool has_gpu_impl() const override { return true; }
  bool graph_safe(ExecutionContext& ec) const override { return graph_safe_dense(ec); }

 private:
  enum class ConvOp { kForward, kForwardBias, kBackwardFilter, kBackwardData };

  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  // The 12 scalars read (literal ones were read once) and checked, P and Q derived.
  kernels::cpu::ConvShape scalar_shape(ExecutionContext& ec) const;
  // The shape both runs use: scalar_shape, with variable scalars also the operands' dims checked
  // (check() did that for literal ones).
  kernels::cpu::ConvShape run_shape(ExecutionContext& ec) const;
  // The shape from the 12 scalar values, checked (no input data needed).
  kernels::cpu::ConvShape shape_from(const std::array<int64_t, 12>& v) const;
  // The inputs' dims against `sh` (unknown dims pass).
  void check_dims(const kernels::cpu::ConvShape& sh, Shapes& shapes) const;
  // The forward output (N, K*P*Q) against overflow, the column limit and host memory.
  void check_output_size(const kernels::cpu::ConvShape& sh) const;
  // "N=.. C=.. H=.. W=.. K=.. R=.. S=.. stride=[.., ..] pad=[.., ..]", for messages.
  static std::string params_string(const kernels::cpu::ConvShape& sh);

  ConvOp op_ = ConvOp::kForward;
  bool relu_ = false;
  std::vector<Operand> inputs_;                           // X, W / X, bias, W / X, dout / W, dout
  std::vector<Operand> shape_ops_;                        // the 12 shape scalars
  std::optional<std::array<int64_t, 12>> literal_shape_;  // their values, when all are literals
  Operand out_;
  // The GPU runs' chosen algorithms and plans (Note [conv plan memo]), one per GPU session: PARFOR
  // and paramserv workers run this instruction at once on sessions of their own, with their own
  // cuDNN handles (shared_ptr: the type is complete only in CUDA builds).
  std::shared_ptr<kernels::cuda::ConvPlanMemo> memo_for(const mem::GpuSession& gpu);
  std::mutex memo_mutex_;
  std::unordered_map<const mem::GpuSession*, std::shared_ptr<kernels::cuda::ConvPlanMemo>> memos_;
};

// A conv2d_bias_add line whose output is max(conv + bias, 0) (ReLU fused on the GPU), for the plan
// rewrite that folds a following relu into the convolution (runtime/plan_rewrites.cpp).
InstructionPtr make_conv2d_bias_add_relu(InstructionText text);

// --- the sparse-filter path of conv2d on the GPU (DESIGN.md §5) ---
// When the filter's device copy is CSR and the path is cheaper than densifying it, conv2d runs as
// im2col -> cuSPARSE SpMM -> reorg_knpq, batch chunk by batch chunk (kernels/cuda/
// dnn_sparse_conv_op.h). The cost model and the chunk size are device-free (unit-tested); see
// Note [Sparse-filter conv2d cost model].

// Estimated cost of conv2d with a K x CRS filter of filter_nnz nonzeros on the sparse-filter path,
// and on the dense path (filter densified, dense convolution), in the same unit (dense
// multiply-add equivalents), with the constants calibrated for FP64 or FP32.
double sparse_filter_conv2d_sparse_cost(int64_t filter_nnz, const kernels::cpu::ConvShape& sh,
                                        bool fp64);
double sparse_filter_conv2d_dense_cost(const kernels::cpu::ConvShape& sh, bool fp64);
// Whether the sparse-filter path is estimated cheaper (always for an empty filter).
bool sparse_filter_conv2d_cheaper(int64_t filter_nnz, const kernels::cpu::ConvShape& sh, bool fp64);

// Images per batch chunk on the sparse-filter path: the largest c (1..N) whose CRS x cPQ im2col
// buffer and K x cPQ product (elem_bytes per element) fit budget_bytes and hold fewer than
// kMaxCudnnTensorElements elements each; 0 when not even one image fits.
int64_t sparse_filter_conv2d_chunk_rows(const kernels::cpu::ConvShape& sh, int64_t elem_bytes,
                                        int64_t budget_bytes);

// CUDA builds only (dnn_conv_gpu.cpp):
// Whether conv2d with this filter should take the sparse-filter path: the filter's device copy is
// CSR, a chunk of at least one image fits budget_bytes, and the estimated cost is lower than
// densifying the filter.
bool sparse_filter_conv2d_applies(mem::GpuSession& gpu, const mem::DeviceMatrix& filter,
                                  const kernels::cpu::ConvShape& sh, int64_t budget_bytes);
// out (N x KPQ dense, session dtype, allocated by the caller) = conv2d(images, filter)
// [+ bias (K x 1 dense device, may be null)]. images dense or CSR (N x CHW), filter CSR (K x CRS;
// an empty CSR gives the bias alone). Splits the batch into chunks that fit budget_bytes
// (sparse_filter_conv2d_chunk_rows); CSR images are read chunk by chunk straight from their CSR
// rows. Throws ShapeError on mismatched operands and OutOfMemory when not even one image fits the
// budget. Stream-ordered; never synchronises.
void sparse_filter_conv2d(mem::GpuSession& gpu, const mem::DeviceMatrix& images,
                          const mem::DeviceMatrix& filter, const mem::DeviceMatrix* bias,
                          const kernels::cpu::ConvShape& sh, int64_t budget_bytes,
                          mem::DeviceMatrix& out);

}  // namespace dmlrt::inst
