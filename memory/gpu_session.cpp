// GpuSession: construction, teardown, instruction timing; transfers are in transfers.cpp and
// format conversions in device_ops.cpp. open_gpu_session is built in every configuration.
#include "memory/gpu_session.h"

#include <algorithm>
#include <cstdlib>

#include "gpu_context/device.h"
#include "gpu_context/device_selection.h"
#include "gpu_context/error.h"
#include "gpu_context/host_sync_hook.h"
#include "gpu_context/log.h"

#ifdef DMLRT_WITH_CUDA
#include <cublasLt.h>

#include "gpu_context/cuda_check.h"
#include "gpu_context/gemm_plan_cache.h"
#include "gpu_context/library_check.h"
#endif

namespace dmlrt::mem {

std::shared_ptr<GpuSession> open_gpu_session(const GpuSessionOptions& options,
                                             const std::string& reason) {
  const int n = gpu::usable_device_count();
  if (n == 0) {
    DMLRT_WARN(reason << ", but no GPU is usable (" << gpu::device_summary()
                      << "); running on the CPU");
    return nullptr;
  }
#ifdef DMLRT_WITH_CUDA
  std::string warning;
  const std::vector<int> devices = gpu::parse_available_gpus(options.available_gpus, n, &warning);
  if (!warning.empty()) DMLRT_WARN(warning);
  // One device per run (PARFOR and paramserv workers open theirs: open_worker_sessions). Under
  // mpirun, the ranks of one host take the listed devices round robin by their local rank (Open
  // MPI's OMPI_COMM_WORLD_LOCAL_RANK, MPICH's MPI_LOCALRANKID), one GPU per rank.
  size_t pick = 0;
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"})
    if (const char* local = std::getenv(v)) {
      pick = static_cast<size_t>(std::strtoul(local, nullptr, 10)) % devices.size();
      break;
    }
  return std::make_shared<GpuSession>(options, devices[pick]);
#else
  (void)options;
  return nullptr;
#endif
}

#ifdef DMLRT_WITH_CUDA
namespace {
std::vector<int> listed_devices(const GpuSession& parent) {
  const int n = gpu::usable_device_count();
  std::vector<int> devices = gpu::parse_available_gpus(parent.options().available_gpus, n, nullptr);
  if (devices.empty()) devices.push_back(const_cast<GpuSession&>(parent).context().device());
  return devices;
}
}  // namespace

int parfor_gpu_worker_slots(const GpuSession& parent) {
  return static_cast<int>(listed_devices(parent).size()) *
         std::max(1, parent.options().parfor_workers_per_gpu);
}

std::vector<std::shared_ptr<GpuSession>> open_worker_sessions(GpuSession& parent,
                                                                     int workers) {
  const std::vector<int> devices = listed_devices(parent);
  parent.synchronize("workers start");
  parent.memory().release_cached();
  const int parent_device = parent.context().device();
  std::vector<std::shared_ptr<GpuSession>> out;
  for (int w = 0; w < workers; ++w) {
    const int device = devices[static_cast<size_t>(w) % devices.size()];
    int sharing = 0;  // workers on this device
    for (int v = 0; v < workers; ++v)
      sharing += devices[static_cast<size_t>(v) % devices.size()] == device ? 1 : 0;
    GpuSessionOptions o = parent.options();
    o.parfor_worker = true;
    DMLRT_CHECK_CTX(cudaSetDevice(device), "device " << device << " (worker " << w << ")");
    size_t free_bytes = 0, total_bytes = 0;
    device_memory_info(&free_bytes, &total_bytes);
    // What the parent may still use on its device, or the util factor's share of a free one.
    size_t left = static_cast<size_t>(parent.options().util_factor * static_cast<double>(free_bytes));
    if (device == parent_device)
      left = std::min(left, parent.memory().budget() > parent.memory().live_bytes()
                                ? parent.memory().budget() - parent.memory().live_bytes()
                                : size_t{0});
    o.budget_bytes = static_cast<long long>(left / static_cast<size_t>(sharing));
    DMLRT_REQUIRE(o.budget_bytes >= (64 << 20), OutOfMemory,
                  "workers on the GPU (PARFOR, paramserv): " << sharing << " workers on device " << device
                                        << " would get " << format_bytes(left / sharing)
                                        << " each of " << format_bytes(left)
                                        << " left in the budget; fewer workers "
                                           "(dmlrt.gpu.parfor.workers.per.gpu, par) or a larger "
                                           "budget are needed");
    auto s = std::make_shared<GpuSession>(o, device);
    s->set_timing(parent.timing());
    out.push_back(std::move(s));
  }
  DMLRT_CHECK_CTX(cudaSetDevice(parent_device), "device " << parent_device);
  return out;
}
#endif

const GpuStats* stats_of(const GpuSession* session) {
#ifdef DMLRT_WITH_CUDA
  return session != nullptr ? &const_cast<GpuSession*>(session)->stats() : nullptr;
#else
  (void)session;
  return nullptr;
#endif
}

#ifdef DMLRT_WITH_CUDA

namespace {
constexpr size_t kStagingHalf = size_t{8} << 20;       // bytes per staging half
constexpr size_t kCublasWorkspace = size_t{32} << 20;  // cuBLAS's recommendation for Hopper
}  // namespace

GpuSession::GpuSession(const GpuSessionOptions& options, int device) : options_(options) {
  context_ = std::make_unique<gpu::GpuContext>(device);
  stats_.cuda_init_s = context_->cuda_init_seconds();
  stats_.libraries_init_s = context_->libraries_init_seconds();
  size_t free_bytes = 0, total_bytes = 0;
  device_memory_info(&free_bytes, &total_bytes);
  const size_t budget =
      options.budget_bytes > 0
          ? static_cast<size_t>(options.budget_bytes)
          : static_cast<size_t>(options.util_factor * static_cast<double>(free_bytes));
  if (free_bytes < total_bytes / 10 * 7 && !options.parfor_worker)
    DMLRT_WARN("GPU " << device << ": only " << format_bytes(free_bytes) << " of "
                      << format_bytes(total_bytes) << " free (other processes?)");
  memory_ = std::make_unique<MemoryManager>(std::make_unique<CudaAllocator>(), budget,
                                            options.policy, &stats_, options.eager_free);
  if (!options.parfor_worker)
    DMLRT_INFO("GPU " << device << ": memory budget " << format_bytes(budget) << " ("
                    << (options.budget_bytes > 0 ? "-gpu-mem-budget" : "util factor") << "), "
                    << format_bytes(free_bytes) << " free of " << format_bytes(total_bytes)
                    << ", precision " << dtype_name(options.dtype) << ", eviction "
                    << eviction_policy_name(options.policy));
  // cuBLAS scratch comes from the manager too; small budgets (tests) get a smaller workspace.
  const size_t ws = std::min(kCublasWorkspace, budget / 16) / 256 * 256;
  if (ws > 0) {
    cublas_workspace_ = memory_->allocate(ws, "cuBLAS workspace", stream());
    DMLRT_CHECK(cublasSetWorkspace(context_->cublas(), cublas_workspace_.data(), ws));
  }
  conv_algos_ = std::make_unique<gpu::ConvAlgoCache>(options.cudnn_cache_dir,
                                                     static_cast<int64_t>(cudnnGetVersion()));
  conv_algos_->set_stats(&stats_.tune_conv);
  staging_ = PinnedBuffer(2 * kStagingHalf);
  for (auto& e : staging_ready_) e = gpu::make_timing_event();
}

kernels::cuda::GemmPlanner& GpuSession::gemm_planner() {
  if (!gemm_planner_) {
    gemm_plans_ = std::make_unique<gpu::TuningFile>(
        options_.persist_gemm_plans ? options_.cudnn_cache_dir : "none", gpu::kGemmPlanFileName,
        gpu::gemm_plan_file_format(static_cast<int64_t>(cublasLtGetVersion())));
    const cudaDeviceProp& prop = context_->properties();
    kernels::cuda::GemmPlanner::Persistence persist;
    persist.file = gemm_plans_.get();
    persist.stats = &stats_.tune_gemm;
    persist.device = std::string(prop.name) + " cc" + std::to_string(prop.major) + "." +
                     std::to_string(prop.minor);
    gemm_planner_ = std::make_unique<kernels::cuda::GemmPlanner>(
        context_->cublas(), stream(), cublas_workspace_.data(), cublas_workspace_.bytes(), persist);
  }
  return *gemm_planner_;
}

GpuSession::~GpuSession() {
  graph_state_.reset();  // graphs before the stream they launch on
  try {
    memory_->evict_all_unpinned();
  } catch (const std::exception& e) {
    DMLRT_WARN("GPU session teardown: writing device data back failed: " << e.what());
  }
  if (cublas_workspace_) cublasSetWorkspace(context_->cublas(), nullptr, 0);
  cudaStreamSynchronize(context_->stream());
}

gpu::UniqueEvent GpuSession::take_event() {
  if (event_pool_.empty()) return gpu::make_timing_event();
  gpu::UniqueEvent e = std::move(event_pool_.back());
  event_pool_.pop_back();
  return e;
}

void GpuSession::begin_instruction() {
  ++stats_.executed_instructions;
  if (!timing_) return;
  if (!pending_start_) pending_start_ = take_event();
  pending_exclude_ = 0.0;
  DMLRT_CHECK(cudaEventRecord(pending_start_.get(), stream()));
}

void GpuSession::end_instruction(const std::string& stats_name) {
  if (timing_ && pending_start_) {
    gpu::UniqueEvent stop = take_event();
    DMLRT_CHECK(cudaEventRecord(stop.get(), stream()));
    timings_.push_back(
        Timing{stats_name, std::move(pending_start_), std::move(stop), pending_exclude_});
  }
  if (options_.sync_each_instruction) {
    const std::string what = "GPU instruction " + stats_name;
    context_->synchronize(what.c_str());
  }
}

void GpuSession::collect_timings(const std::function<void(const std::string&, double)>& sink,
                                 bool wait) {
  // Not while a CUDA graph captures or replays on this thread (runtime/cuda_graphs.cpp): the
  // stream's work is not enqueued yet; the timings are collected later.
  if (!wait && gpu::t_host_sync_hook != nullptr) return;
  size_t done = 0;
  for (; done < timings_.size(); ++done) {
    Timing& t = timings_[done];
    if (wait) {
      gpu::before_host_sync("timing events");
      DMLRT_CHECK_CTX(cudaEventSynchronize(t.stop.get()), "timing of " << t.name);
    } else {
      const cudaError_t st = cudaEventQuery(t.stop.get());
      if (st == cudaErrorNotReady) break;
      DMLRT_CHECK_CTX(st, "timing of " << t.name);
    }
    float ms = 0.0f;
    DMLRT_CHECK_CTX(cudaEventElapsedTime(&ms, t.start.get(), t.stop.get()), "timing of " << t.name);
    sink(t.name, std::max(0.0, ms / 1000.0 - t.exclude_s));
    event_pool_.push_back(std::move(t.start));
    event_pool_.push_back(std::move(t.stop));
  }
  timings_.erase(timings_.begin(), timings_.begin() + static_cast<std::ptrdiff_t>(done));
}

#endif  // DMLRT_WITH_CUDA

}  // namespace dmlrt::mem
