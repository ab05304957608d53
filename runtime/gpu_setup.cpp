// GPU session set-up for a run; see gpu_setup.h.
#include "runtime/gpu_setup.h"

#include "memory/gpu_session.h"

namespace dmlrt::runtime {
namespace {

bool has_gpu(const InstructionList& list) {
  for (const auto& i : list)
    if (i->exec_type() == inst::ExecType::kGPU) return true;
  return false;
}

bool has_gpu(const std::vector<BlockPtr>& blocks) {
  for (const auto& b : blocks) {
    if (has_gpu(b->instructions) || has_gpu(b->predicate) || has_gpu(b->from) || has_gpu(b->to) ||
        has_gpu(b->incr) || has_gpu(b->exit_instructions) || has_gpu(b->body) ||
        has_gpu(b->else_body))
      return true;
  }
  return false;
}

}  // namespace

bool program_has_gpu_lines(const Program& program) {
  if (has_gpu(program.main)) return true;
  for (const auto& kv : program.functions)
    if (has_gpu(kv.second.body)) return true;
  return false;
}

std::shared_ptr<mem::GpuSession> open_gpu_for_run(const Program& program, inst::GpuMode mode,
                                                  const RuntimeConfig& config,
                                                  long long mem_budget_bytes, bool timing) {
  std::string reason;
  if (mode == inst::GpuMode::kForce)
    reason = "-gpu force was given";
  else if (mode == inst::GpuMode::kOn)
    reason = "-gpu was given";
  else if (program_has_gpu_lines(program))
    reason = "the plan has GPU instructions";
  else
    return nullptr;
  mem::GpuSessionOptions o;
  o.available_gpus = config.memory.available_gpus;
  o.dtype =
      config.precision == FloatPrecision::kSingle ? mem::DType::kFloat32 : mem::DType::kFloat64;
  o.util_factor = config.memory.util_factor;
  o.budget_bytes = mem_budget_bytes > 0 ? mem_budget_bytes : config.memory.budget_bytes;
  o.policy = config.memory.policy;
  o.eager_free = config.gpu_eager_cuda_free;
  o.sync_each_instruction = config.gpu_sync_post_process;
  o.dnn_budget_bytes = config.dnn_budget_bytes;
  o.cudnn_deterministic = config.cudnn_deterministic;
  o.allow_tf32 = config.allow_tf32;
  o.cudnn_graph = config.cudnn_graph;
  o.cudnn_cache_dir = config.cudnn_cache_dir;
  o.persist_gemm_plans = config.persist_gemm_plans;
  o.parfor_workers_per_gpu = config.parfor_workers_per_gpu;
  o.graphs = config.gpu_graphs;
  o.graph_cache = config.gpu_graph_cache;
  o.graph_chunk_bytes = config.gpu_graph_chunk_bytes;
  o.graph_warmup = config.gpu_graph_warmup;
  o.graph_device_bound = config.gpu_graph_device_bound;
  o.fp32_conv_tolerance = config.fp32_conv_tolerance;
  std::shared_ptr<mem::GpuSession> s = mem::open_gpu_session(o, reason);
#ifdef DMLRT_WITH_CUDA
  if (s) s->set_timing(timing && config.stats_gpu_events);
#else
  (void)timing;
#endif
  return s;
}

}  // namespace dmlrt::runtime
