// 2-D convolution through cuDNN's graph (backend) API: typed owners of backend descriptors, the
// operation graph of one pass (forward, backward data, backward filter; NCHW packed, FP64 or FP32),
// the engine configurations cuDNN's heuristics propose, finalized and filtered execution plans,
// their timing on the real buffers, the rebuild of a plan from what the algorithm cache stores
// (engine global index + knob choices), and a small in-process memo of finalized plans. The
// graph-API engines are what PyTorch's cudnn.benchmark picks from; on the H200 several of them beat
// every legacy algorithm (peers-and-perf.md §1a). See Note [cuDNN graph engines].
// The caller owns every buffer and workspace; failures throw CudnnError; only the timing
// synchronises (on its events).
#pragma once

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpu_context/conv_algo_cache.h"
#include "gpu_context/handles.h"
#include "kernels/cuda/dnn_conv.h"

namespace dmlrt::kernels::cuda {

// Note [cuDNN graph engines]
// One pass is one operation graph of a single convolution operation over three tensors (uid 1 =
// x / dx, 2 = w / dw, 3 = y / dy; packed NCHW strides; byte alignment = what the data pointers
// honour, see tensor_alignment) with compute type FP64 for double and FP32 for float, cross-
// correlation, no dilation, pre- and post-padding = pad. alpha (1) and beta (0 or 1) are attributes
// of the operation (CUDNN_TYPE_FLOAT, as PyTorch sets them for every data type), so a beta-1 graph
// (backward filter accumulating batch chunks) is a graph of its own, built from the same cached
// engine configuration. Candidates come from the heuristics in modes A, B and FALLBACK (in that
// order, duplicates dropped; a mode that fails is skipped) and are filtered by their engine's
// notes: no runtime-compiled engines (NVRTC at finalize) unless the filter allows them, never ones
// that down-convert inputs or reduce in lower precision; FP32 engines with
// CUDNN_NUMERICAL_NOTE_TENSOR_CORE (TF32) only when TF32 is allowed (FP64 tensor-core engines run
// DMMA, which is IEEE FP64); non-deterministic ones not in deterministic mode. Every candidate is
// rebuilt from its global index and knob choices — exactly what the cache stores — and finalized;
// one that fails to finalize or needs more workspace than the cap is skipped. Timing: one warm-up
// run and `repetitions` timed runs on the stream (CUDA events), the fastest counts, as cudnnFind
// does; a candidate whose warm-up takes over 4x the best time so far is not repeated.

namespace detail {
struct BackendDescDestroy {
  void operator()(cudnnBackendDescriptor_t d) const { cudnnBackendDestroyDescriptor(d); }
};
}  // namespace detail

// The owner of one cudnnBackendDescriptor_t.
using UniqueBackendDesc = gpu::UniqueHandle<cudnnBackendDescriptor_t, detail::BackendDescDestroy>;

// Everything one operation graph depends on.
struct GraphConvSpec {
  gpu::ConvPass pass = gpu::ConvPass::kForward;
  ConvDims dims;           // n..q, strides, pads; every dim >= 1
  bool fp64 = true;        // data and compute type FP64, else FP32
  double beta = 0.0;       // 0 or 1: out = conv + beta * out
  int64_t alignment = 16;  // bytes the x, w and y pointers are aligned to (a power of two)
  // One line naming all of the above (memo keys, error contexts).
  std::string to_string() const;
};

// Which engine configurations a search keeps (Note [cuDNN graph engines]).
struct GraphEngineFilter {
  bool allow_tf32 = false;     // FP32 tensor-core (TF32) engines
  bool deterministic = false;  // deterministic engines only
  uint64_t workspace_cap = 0;  // bytes; plans that need more are skipped
  int max_candidates = 12;     // engine configurations finalized per search, at most
  // Engines that compile their kernels at finalize (NVRTC; hundreds of ms each, and for single
  // FP64/FP32 NCHW convolutions cuDNN's precompiled engines are the ones that apply).
  bool allow_runtime_compilation = false;
};

// The largest power of two <= 16 that divides every non-null pointer of t (at least the element
// size: cuDNN's pointers are element-aligned).
int64_t tensor_alignment(const ConvTensors& t, bool fp64);

// The operation graph of one spec: tensors, convolution, operation and graph descriptors,
// finalized. Shared by the plans built on it.
class ConvGraph {
 public:
  // Throws CudnnError (with the spec) when a descriptor does not finalize.
  ConvGraph(cudnnHandle_t h, const GraphConvSpec& spec);
  cudnnBackendDescriptor_t get() const { return graph_.get(); }
  const GraphConvSpec& spec() const { return spec_; }
  // CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT.
  int64_t engine_count() const { return engine_count_; }

 private:
  GraphConvSpec spec_;
  UniqueBackendDesc x_, w_, y_, conv_, op_, graph_;
  int64_t engine_count_ = 0;
};

// One finalized execution plan of an engine configuration on a graph.
class GraphConvPlan {
 public:
  // kind kEngine, the engine's global index, its knob choices and workspace; time_ms as timed.
  const gpu::ConvAlgoChoice& choice() const { return choice_; }
  gpu::ConvAlgoChoice& choice() { return choice_; }
  uint64_t workspace_bytes() const { return choice_.workspace_bytes; }
  const GraphConvSpec& spec() const { return graph_->spec(); }
  const std::shared_ptr<const ConvGraph>& graph() const { return graph_; }
  // The engine's numerical notes (cudnnBackendNumericalNote_t values).
  const std::vector<int>& numerical_notes() const { return numerical_notes_; }
  // Runs the plan on t (laid out as spec(); pointers aligned to spec().alignment) with
  // `workspace` of at least workspace_bytes(). Throws CudnnError.
  void execute(cudnnHandle_t h, const ConvTensors& t, void* workspace) const;

 private:
  friend std::unique_ptr<GraphConvPlan> build_graph_plan(cudnnHandle_t,
                                                         std::shared_ptr<const ConvGraph>,
                                                         const gpu::ConvAlgoChoice&,
                                                         const GraphEngineFilter&, std::string*);
  GraphConvPlan() = default;
  std::shared_ptr<const ConvGraph> graph_;
  UniqueBackendDesc engine_, config_, plan_;
  std::vector<UniqueBackendDesc> knobs_;
  std::vector<int> numerical_notes_;
  gpu::ConvAlgoChoice choice_;
};

// Builds and finalizes the plan of engine configuration `c` (kind kEngine: global index and knob
// choices) on `graph`. Null, with `why`, when the configuration does not apply here: the index is
// out of range, a descriptor does not finalize (NOT_SUPPORTED, ...), the engine's notes fail
// `filter`, or the workspace exceeds filter.workspace_cap. Throws CudnnError only when creating a
// descriptor fails.
std::unique_ptr<GraphConvPlan> build_graph_plan(cudnnHandle_t h,
                                                std::shared_ptr<const ConvGraph> graph,
                                                const gpu::ConvAlgoChoice& c,
                                                const GraphEngineFilter& filter, std::string* why);

// The engine configurations cuDNN's heuristics propose for `graph` (Note [cuDNN graph engines]),
// as finalized plans that pass `filter`, in heuristic order, at most filter.max_candidates. Why
// each skipped configuration was skipped goes to `skipped` when not null.
std::vector<std::unique_ptr<GraphConvPlan>> graph_engine_plans(
    cudnnHandle_t h, const std::shared_ptr<const ConvGraph>& graph, const GraphEngineFilter& filter,
    std::vector<std::string>* skipped = nullptr);

// Times each plan on t (the output buffer is overwritten) with `workspace` of `workspace_bytes`;
// plans needing more workspace or failing to run are dropped (with why, into `skipped`). Sets each
// plan's choice().time_ms, sorts `plans` fastest first and returns their choices in that order.
// Synchronises on its timing events.
gpu::ConvAlgoList time_graph_plans(cudnnHandle_t h, cudaStream_t stream,
                                   std::vector<std::unique_ptr<GraphConvPlan>>* plans,
                                   const ConvTensors& t, void* workspace, uint64_t workspace_bytes,
                                   int repetitions = 3,
                                   std::vector<std::string>* skipped = nullptr);

// A small LRU memo of operation graphs and finalized plans, keyed by the caller's key (the
// algorithm cache's key of the shape) plus the graph spec (beta, alignment) and the engine
// configuration, so that running a cached choice again costs no graph build or finalize.
// Configurations that failed to build are remembered too (as failures). Holds CUDA-library
// objects: owned by a GPU session or an instruction, never static.
class GraphPlanMemo {
 public:
  explicit GraphPlanMemo(size_t capacity = 128) : capacity_(capacity) {}
  GraphPlanMemo(const GraphPlanMemo&) = delete;
  GraphPlanMemo& operator=(const GraphPlanMemo&) = delete;

  // The graph of (key, spec), built on first use. Throws CudnnError when it cannot be built.
  std::shared_ptr<const ConvGraph> graph(cudnnHandle_t h, const std::string& key,
                                         const GraphConvSpec& spec);
  // The plan of engine configuration `c` for (key, spec): memoised, else built (build_graph_plan)
  // and memoised. Null, with `why`, when it does not build (remembered, unless only the workspace
  // cap stood in the way) or needs more workspace than filter.workspace_cap.
  // Shared: a caller may keep it beyond the memo's eviction.
  std::shared_ptr<const GraphConvPlan> plan(cudnnHandle_t h, const std::string& key,
                                            const GraphConvSpec& spec, const gpu::ConvAlgoChoice& c,
                                            const GraphEngineFilter& filter, std::string* why);
  // Adds a plan built elsewhere (a search's timed candidates), replacing an entry of the same
  // configuration.
  void insert(const std::string& key, std::unique_ptr<GraphConvPlan> plan);

  size_t size() const { return plans_.size(); }
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

  // "E<index>[<type>=<value>,...]": the part of a choice that names its configuration.
  static std::string config_tag(const gpu::ConvAlgoChoice& c);

 private:
  struct Entry {
    std::shared_ptr<const GraphConvPlan> plan;  // null: failed to build
    std::string why;
  };
  static std::string graph_key(const std::string& key, const GraphConvSpec& spec);
  void touch(const std::string& plan_key);
  void trim();

  size_t capacity_;
  std::map<std::string, std::shared_ptr<const ConvGraph>> graphs_;
  std::map<std::string, Entry> plans_;
  std::list<std::string> lru_;  // plan keys, most recent first
  int64_t hits_ = 0, misses_ = 0;
};

}  // namespace dmlrt::kernels::cuda
