// GpuSession: everything one run needs on its GPU — the device context (stream, library handles),
// the memory manager, the -stats counters, the device element type (-precision), a pinned staging
// area for transfers, and the CUDA events that time GPU instructions. Created by runtime/ when a
// run needs the GPU (open_gpu_session) and passed to instructions through inst::RunOptions.
//
// Note [GPU instruction timing]
// A GPU instruction's time in -stats is the elapsed time between two CUDA events recorded on the
// stream around it (begin_instruction / end_instruction), not host time: kernel launches return at
// once. The events are read lazily (collect_timings: those already complete, or all at the end of
// the run), so timing never synchronises the stream; sysds.gpu.sync.postProcess / -sync-check
// (sync_each_instruction) synchronise after each GPU instruction and name the one that faulted.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "memory/device_matrix.h"
#include "memory/gpu_stats.h"
#include "memory/memory_config.h"

#ifdef DMLRT_WITH_CUDA
#include "gpu_context/conv_algo_cache.h"
#include "gpu_context/cuda_types.h"
#include "gpu_context/gpu_context.h"
#include "kernels/cuda/gemm_planner.h"
#include "kernels/matrix_block.h"
#include "memory/cuda_allocator.h"
#endif

namespace dmlrt::mem {

struct GpuSessionOptions {
  std::string available_gpus = "-1";  // sysds.gpu.availableGPUs (the first listed device is used)
  DType dtype = DType::kFloat64;      // -precision / sysds.floating.point.precision
  double util_factor = 0.9;           // sysds.gpu.memory.util.factor
  long long budget_bytes = -1;        // -gpu-mem-budget; -1 = util_factor x free memory
  EvictionPolicy policy = EvictionPolicy::kLru;  // sysds.gpu.eviction.policy
  bool eager_free = false;                       // sysds.gpu.eager.cudaFree
  bool sync_each_instruction = false;            // sysds.gpu.sync.postProcess / -sync-check
  // DNN ops (DESIGN.md §5). The intermediate budget for densified operands and workspaces of one
  // DNN instruction: -1 = what the memory manager can still give; tests set it small to force
  // batch splitting and row fetching.
  long long dnn_budget_bytes = -1;   // dmlrt.gpu.dnn.budget
  bool cudnn_deterministic = false;  // dmlrt.gpu.cudnn.deterministic: deterministic algorithms only
  bool allow_tf32 = false;           // dmlrt.gpu.allow.tf32: TF32 tensor-core math for FP32
  // dmlrt.gpu.cudnn.graph: time cuDNN graph-API engines along with the legacy convolution
  // algorithms (kernels/cuda/dnn_conv_graph.h, Note [cuDNN algorithm choice]).
  bool cudnn_graph = true;
  // Where the cuDNN algorithm cache persists: "" = $XDG_CACHE_HOME/dmlrt or ~/.cache/dmlrt,
  // "none" = memory only.
  std::string cudnn_cache_dir;  // dmlrt.gpu.cudnn.cache.dir
  // dmlrt.gpu.gemm.plans.persist: small GEMM plans persist beside the cuDNN algorithm cache (Note
  // [Persisted GEMM plans] in gpu_context/gemm_plan_cache.h); false keeps them in memory only.
  bool persist_gemm_plans = true;
  // dmlrt.gpu.cudnn.fp32.tolerance: FP32 convolution algorithms whose norm-wise difference from
  // a GEMM-ordered one exceeds this are dropped (Note [FP32 algorithm accuracy]); infinity = off.
  double fp32_conv_tolerance = 1e-4;
  // dmlrt.gpu.parfor.workers.per.gpu: PARFOR workers per listed GPU when dmlrt decides the worker
  // count (Note [PARFOR on GPUs] in runtime/interpreter.cpp); 1 is SystemDS's rule.
  int parfor_workers_per_gpu = 1;
  // A PARFOR worker's session: no start-up messages (the run's session printed them).
  bool parfor_worker = false;
  // dmlrt.gpu.graphs: runs of GPU instructions captured as CUDA graphs and replayed (Note [CUDA
  // graphs] in runtime/cuda_graphs.cpp); dmlrt.gpu.graphs.cache: graphs kept per session (LRU).
  bool graphs = false;
  int graph_cache = 64;
  // dmlrt.gpu.graphs.chunk: where captured runs are cut into short graphs first (Note [CUDA
  // graphs]): 0 always, -1 never, N > 0 once the run's buffers reach N bytes.
  int64_t graph_chunk_bytes = int64_t{1} << 20;
  // dmlrt.gpu.graphs.warmup: eager runs of an instruction list before it is captured.
  int graph_warmup = 2;
  // dmlrt.gpu.graphs.device.bound: lists whose device time is this many times their host time
  // stay eager (Note [Device-bound lists] in runtime/cuda_graphs.cpp); 0 never.
  double graph_device_bound = 2.0;
};

class GpuSession;

// A pinned host slot for one element on its way from the device (GpuSession::copy_element_async;
// Note [Deferred scalars] in instructions/scalar_value.cpp). It returns to its session's pool when
// the last reference goes.
struct HostSlot {
  void* host = nullptr;
  DType dtype = DType::kFloat64;
};

// A session on the first usable listed device, or null when none is usable (and always in a
// CPU-only build); `reason` says why a run asked for the GPU, and the one warning of a fallback to
// the CPU names it. Errors while creating a context on a present device are thrown.
std::shared_ptr<GpuSession> open_gpu_session(const GpuSessionOptions& options,
                                             const std::string& reason);

// Sessions for the `workers` PARFOR or paramserv workers of a run on `parent` (Note [PARFOR on
// GPUs] in runtime/interpreter.cpp): worker w on the w-th usable listed device, round robin, each
// with a stream, library handles and memory manager of its own and an equal share of the memory the
// parent's budget leaves free on its device (the parent's cached blocks are released first).
std::vector<std::shared_ptr<GpuSession>> open_worker_sessions(GpuSession& parent, int workers);
// The usable devices of sysds.gpu.availableGPUs times dmlrt.gpu.parfor.workers.per.gpu: the
// workers of a PARFOR whose worker count dmlrt decides.
int parfor_gpu_worker_slots(const GpuSession& parent);

// The session's -stats counters (null for a null session; usable in every build).
const GpuStats* stats_of(const GpuSession* session);

#ifdef DMLRT_WITH_CUDA

class GpuSession {
 public:
  GpuSession(const GpuSessionOptions& options, int device);
  GpuSession(const GpuSession&) = delete;
  GpuSession& operator=(const GpuSession&) = delete;
  // Writes dirty device data of matrices still alive back to their hosts and drops every device
  // copy, so that matrix objects outliving the session (API outputs) keep their data.
  ~GpuSession();

  gpu::GpuContext& context() { return *context_; }
  MemoryManager& memory() { return *memory_; }
  // The timed cuDNN convolution algorithms (gpu_context/conv_algo_cache.h), persisted in
  // options().cudnn_cache_dir.
  gpu::ConvAlgoCache& conv_algos() { return *conv_algos_; }
  // The timed plans of small dense products (kernels/cuda/gemm_planner.h), created on first use.
  kernels::cuda::GemmPlanner& gemm_planner();
  GpuStats& stats() { return stats_; }
  const GpuSessionOptions& options() const { return options_; }
  DType dtype() const { return options_.dtype; }
  cudaStream_t stream() const { return context_->stream(); }

  // Scratch for one op (library buffers, temporaries), ordered on the session's stream.
  // `what` labels it (Note [Allocation labels]).
  DeviceAllocation scratch(size_t bytes, AllocLabel what, bool zero = false) {
    return memory_->allocate(bytes, std::move(what), stream(), zero);
  }

  // --- transfers (memory/transfers.cpp), counted in stats() ---
  // H2D: the host block's format decides the device format; float conversion on the device.
  DeviceMatrix upload(const kernels::MatrixBlock& block, const std::string& what);
  // D2H, synchronous; the result is examine_format()-ed like every CPU result. With
  // `for_eviction` no device memory is allocated (float -> double on the host).
  kernels::MatrixBlock download(const DeviceMatrix& m, bool for_eviction = false);
  // One element of a dense device matrix, synchronously (scalar results for control flow).
  double read_element(const DeviceMatrix& m, int64_t r, int64_t c);
  // Element (0, 0) of a dense device matrix copied into a pinned host slot on the stream, not
  // waited for (counted as a transfer now); read_slot waits for the stream and converts. The
  // copy is an ordinary stream operation, so a CUDA graph capture records it as a memcpy node.
  std::shared_ptr<HostSlot> copy_element_async(const DeviceMatrix& m);
  double read_slot(const HostSlot& slot);

  // --- format conversions into temporaries (memory/device_ops.cpp); inputs stay as they are ---
  DeviceMatrix to_dense(const DeviceMatrix& m, const std::string& what);
  DeviceMatrix to_csr(const DeviceMatrix& m, const std::string& what);
  // Transposed copies: (cols, rows) of a CSR (cusparseCsr2cscEx2, int32 indices only) or of a
  // dense matrix (cuBLAS geam).
  DeviceMatrix transpose(const DeviceMatrix& m, const std::string& what);
  // Recomputes the nonzeros (dense: a counting kernel and a synchronous read of the count).
  int64_t count_nnz(const DeviceMatrix& m);

  // --- instruction timing (Note [GPU instruction timing]) ---
  // Events are recorded only while timing is on (-stats); the sync_each option works regardless.
  void set_timing(bool on) { timing_ = on; }
  bool timing() const { return timing_; }
  size_t pending_timings() const { return timings_.size(); }
  void begin_instruction();
  void end_instruction(const std::string& stats_name);
  // Host seconds of the running instruction's that -stats charges elsewhere (an input read, Note
  // [Read time] in runtime/interpreter.cpp): subtracted from its event time, which includes them
  // because the stream sat idle meanwhile. Nothing outside a GPU instruction.
  void exclude_host_seconds(double seconds) {
    if (pending_start_) pending_exclude_ += seconds;
  }
  // False when end_instruction would ignore its name (timing off, no sync per instruction): the
  // caller may then skip both building the name and the call.
  bool uses_instruction_names() const { return timing_ || options_.sync_each_instruction; }
  // Hands (name, seconds) of finished instructions to `sink`, in order; with `wait` all of them.
  void collect_timings(const std::function<void(const std::string&, double)>& sink, bool wait);

  void synchronize(const char* what) { context_->synchronize(what); }

  // State another layer keeps per session (the CUDA graph runner, runtime/cuda_graphs.cpp);
  // destroyed before the stream and the memory manager.
  struct Extension {
    virtual ~Extension() = default;
  };
  std::unique_ptr<Extension>& graph_state() { return graph_state_; }
  // True when `p` lies in a buffer the session keeps for its whole life (the cuBLAS workspace).
  bool is_session_buffer(const void* p) const {
    const auto a = reinterpret_cast<uintptr_t>(p);
    const auto base = reinterpret_cast<uintptr_t>(cublas_workspace_.data());
    return cublas_workspace_ && a >= base && a < base + cublas_workspace_.bytes();
  }

 private:
  struct Timing {
    std::string name;
    gpu::UniqueEvent start, stop;
    double exclude_s = 0.0;  // host time inside it that is not the instruction's
  };
  gpu::UniqueEvent take_event();
  void copy_h2d(void* dst, const void* src, size_t bytes);
  void copy_d2h(void* dst, const void* src, size_t bytes);
  void upload_values(void* dst, const double* src, int64_t n, DType dtype);
  void download_values(double* dst, const void* src, int64_t n, DType dtype, bool for_eviction);
  // Charges a device-to-host copy to the running instruction (Note [Transfers by instruction]).
  void count_from_dev(size_t bytes);

  GpuSessionOptions options_;
  GpuStats stats_;
  std::unique_ptr<gpu::GpuContext> context_;
  std::unique_ptr<MemoryManager> memory_;
  std::unique_ptr<gpu::ConvAlgoCache> conv_algos_;
  DeviceAllocation cublas_workspace_;
  std::unique_ptr<kernels::cuda::GemmPlanner> gemm_planner_;  // shares cublas_workspace_
  std::unique_ptr<gpu::TuningFile> gemm_plans_;               // the planner's persisted plans
  PinnedBuffer staging_;  // two halves, double-buffered (transfers.cpp)
  struct SlotPool;
  std::shared_ptr<SlotPool> slots_;  // of copy_element_async (shared with the slots handed out)
  gpu::UniqueEvent staging_ready_[2];
  std::vector<gpu::UniqueEvent> event_pool_;
  gpu::UniqueEvent pending_start_;
  double pending_exclude_ = 0.0;
  std::vector<Timing> timings_;
  bool timing_ = false;
  std::unique_ptr<Extension> graph_state_;  // last: destroyed first
};

#endif  // DMLRT_WITH_CUDA

}  // namespace dmlrt::mem
