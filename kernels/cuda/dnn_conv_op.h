// The conv pass runner (DESIGN.md §5): one cuDNN pass (forward, backward data, backward filter)
// over a batch in chunks, each chunk with the fastest cached (or newly timed) legacy algorithm or
// graph-API engine whose workspace fits, falling back down the list and halving the chunk when
// nothing runs. Workspaces, find outputs and accuracy-check buffers come from the caller's
// Scratch; batch rows come from the caller (ConvBatchRows: dense slices, or CSR rows densified
// chunk by chunk), so this layer never allocates. See Note [cuDNN algorithm choice].
//
// Note [Conv engine consolidation]
// Not done yet (issue #16 leaves it out): what identifies one convolution is said three times —
// gpu::ConvAlgoKey (the session's cache), ConvPlanMemo's entries (per instruction and GPU
// session, Note [conv plan memo]) and GraphConvSpec (the graph plans) — and the memo lives in
// each instruction (one per session). The shape
// of the consolidation: one ConvParams key (dims, pass, dtype, math, flags, alignment, beta) from
// which all three derive, and a session-owned conv engine (cache + memo + graph plans per cuDNN
// handle) that run_conv_passes becomes a method of, so that two instructions on the same layer
// share their plans.
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu_context/conv_algo_cache.h"
#include "gpu_context/gpu_context.h"
#include "kernels/cuda/dnn_conv.h"
#include "kernels/cuda/dnn_conv_graph.h"
#include "kernels/cuda/scratch.h"

namespace dmlrt::kernels::cuda {

// Note [cuDNN workspace cap]
// The workspace of one conv pass is at most kMaxConvWorkspace = 8 GiB and never more than the
// intermediate budget leaves after the operands (see conv_chunk_plan). The winning workspaces
// measured on the H200 for the ten benchmark layers reach 4.8 GiB: the FP32 FFT backward filter of
// VGG conv1_2 at N=64 needs 5,150,605,312 bytes and runs 1.13x faster than the best algorithm
// within 4 GiB (7.82 vs 8.80 ms, 2026-11-30), and Winograd-nonfused there needs 3.5 GiB
// (peers-and-perf.md §1a). 8 GiB is TensorFlow's upper setting for TF32 kernels (§1f: 4-8 GB)
// and 6% of an H200; a first cap of 4 GiB lost that FFT, and SystemDS's 1e9 would lose both. The
// find allocates only the largest workspace some algorithm needs within the cap (not the cap
// itself).
constexpr int64_t kMaxConvWorkspace = int64_t{8} << 30;

// The rows of a batch chunk and the workspace cap that go with it.
struct ConvChunkPlan {
  int64_t rows = 1;
  int64_t workspace_cap = 0;
};

// The bytes per batch row are one image row and one dout/output row (CHW + KPQ elements: every
// pass touches one of each per image), the fixed bytes the filter or its gradient (K x CRS). A
// quarter of what the budget leaves after the filter is reserved for the workspace before the
// chunk is sized (conv_workspace_reserve: the caller sizes the first chunk with it, Note [DNN
// batch splitting]); the workspace then gets what the chunk leaves (up to kMaxConvWorkspace).
int64_t conv_workspace_reserve(int64_t fixed, int64_t budget);
ConvChunkPlan conv_chunk_plan(int64_t rows, int64_t per_row, int64_t fixed, int64_t budget);

// The session's settings a conv pass depends on (GpuSessionOptions).
struct ConvSettings {
  bool fp64 = true;              // the session's element type: double, else float
  bool deterministic = false;    // dmlrt.gpu.cudnn.deterministic
  bool allow_tf32 = false;       // dmlrt.gpu.allow.tf32
  bool graph = true;             // dmlrt.gpu.cudnn.graph
  double fp32_tolerance = 1e-4;  // dmlrt.gpu.cudnn.fp32.tolerance
};

// Dense row chunks of a batch operand (N rows, row-major), supplied by the caller: a dense
// matrix's rows in place, a CSR matrix's rows densified into a buffer.
class ConvBatchRows {
 public:
  virtual ~ConvBatchRows() = default;
  // Prepares chunks of at most max_rows rows (again whenever the chunk shrinks); throws
  // OutOfMemory when its buffer does not fit.
  virtual void start(int64_t max_rows) = 0;
  // Rows [r0, r1), valid until the next call (stream-ordered).
  virtual const void* rows(int64_t r0, int64_t r1) = 0;
};

// One instruction's memo of chosen algorithms and finalized graph plans; see Note [conv plan
// memo] (dnn_conv_op.cpp).
class ConvPlanMemo {
 public:
  ConvPlanMemo();
  ~ConvPlanMemo();
  ConvPlanMemo(const ConvPlanMemo&) = delete;
  ConvPlanMemo& operator=(const ConvPlanMemo&) = delete;

  struct Entry;
  std::vector<Entry> entries;
  // Finalized graph-API plans, for the handle graph_handle.
  std::unique_ptr<GraphPlanMemo> graph;
  cudnnHandle_t graph_handle = nullptr;
};

// One pass over a batch: x (N, CHW) and dy (N, KPQ) are the batch operands the pass reads (null
// where it reads none), w the dense filter (forward, backward data); out is y (N, KPQ), dx
// (N, CHW) or dW (K, CRS, summed over the chunks with beta 1). Every dim of `dims` >= 1.
struct ConvPassArgs {
  gpu::ConvPass pass = gpu::ConvPass::kForward;
  ConvDims dims;  // the whole batch: dims.n = N
  ConvBatchRows* x = nullptr;
  ConvBatchRows* dy = nullptr;
  const void* w = nullptr;
  void* out = nullptr;
  int64_t budget = 0;      // the intermediate budget in bytes
  int64_t first_rows = 1;  // the first chunk (the caller sizes it, conv_workspace_reserve)
  // For messages: "gpu_<opcode>" (debug log), "<opcode>" (errors), the shape parameters.
  std::string what, opcode, params;
};

// Runs the pass (Note [cuDNN algorithm choice]); throws RuntimeError (OutOfMemory when the last
// failure was a batch buffer) naming args.opcode when not even one image at a time runs.
void run_conv_passes(gpu::GpuContext& ctx, gpu::ConvAlgoCache& cache, const ConvSettings& s,
                     ConvPlanMemo& memo, const ConvPassArgs& args, Scratch& scratch);

}  // namespace dmlrt::kernels::cuda
