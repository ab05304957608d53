// Counters of the GPU backend for -stats: SystemDS's GPUStatistics fields (same meanings, same
// printed labels; see format_gpu_stats) plus byte counts. Plain data, filled by the memory manager,
// the transfers and the session; host-clean so runtime/ prints it in every build.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "gpu_context/tuning_file.h"

namespace dmlrt::mem {

struct GpuStats {
  // CUDA/CuLibraries init time
  double cuda_init_s = 0, libraries_init_s = 0;
  int64_t executed_instructions = 0;

  // Allocation (alloc(success/fail) / dealloc / set0); reuse = served from the block cache.
  double alloc_success_s = 0, alloc_fail_s = 0, dealloc_s = 0, set0_s = 0;
  int64_t alloc_success_n = 0, alloc_fail_n = 0, alloc_reuse_n = 0, dealloc_n = 0, set0_n = 0;

  // Transfers (toDev(d2f/s2d) / fromDev(f2d/s2h) / evict(d2s/size)). d2f / f2d are the
  // double<->float conversions of -precision single; s2d / s2h / d2s (SystemDS's shadow buffer)
  // stay 0: dmlrt has no shadow buffer. evict_size counts evictions chosen by MIN_EVICT's size rule.
  double to_dev_s = 0, d2f_s = 0, s2d_s = 0, from_dev_s = 0, f2d_s = 0, s2h_s = 0, evict_s = 0,
         d2s_s = 0, evict_size_s = 0;
  int64_t to_dev_n = 0, d2f_n = 0, s2d_n = 0, from_dev_n = 0, f2d_n = 0, s2h_n = 0, evict_n = 0,
          d2s_n = 0, evict_size_n = 0;
  int64_t to_dev_bytes = 0, from_dev_bytes = 0, evict_bytes = 0;

  // Conversions (sparseConv / sp2dense / dense2sp): sparseConv = host-side CSR index rewrites at
  // upload (int64 row offsets -> int32), the others cuSPARSE format conversions on the device.
  double sparse_conv_s = 0, sparse_to_dense_s = 0, dense_to_sparse_s = 0;
  int64_t sparse_conv_n = 0, sparse_to_dense_n = 0, dense_to_sparse_n = 0;

  // Block cache: cached blocks released with cudaFree to make room.
  int64_t cache_release_n = 0;

  // Autotuning (Note [Tuning cache files]): cuDNN algorithm finds and small-GEMM plan timings.
  // Their seconds are also inside the time of the instruction that triggered them.
  gpu::TuningStats tune_conv, tune_gemm;

  // CUDA graphs (Note [CUDA graphs] in runtime/cuda_graphs.cpp): runs captured, replays, replays
  // that updated node pointers (and the nodes updated), captures of a run that had graphs for
  // other shapes or scalars, and runs that fell back to eager launches, by reason.
  int64_t graph_captures = 0, graph_replays = 0, graph_updated_replays = 0, graph_node_updates = 0,
          graph_recaptures = 0, graph_replayed_instructions = 0, graph_evictions = 0;
  // Host time of the complete replays (the walk: host instructions run, GPU instructions bound;
  // node updates; the launch call) and the instructions they walked, host ones included.
  double graph_replay_host_s = 0.0;
  int64_t graph_walked_instructions = 0;
  // Host time of the captures (kept or not: the run's instructions under stream capture, the
  // node scan, instantiation and the launch that does the run's work), how many were tried, and
  // the cudaGraphInstantiate calls among them and in replays (a new executable instance).
  double graph_capture_host_s = 0.0, graph_instantiate_s = 0.0;
  int64_t graph_capture_runs = 0, graph_instantiations = 0;
  std::map<std::string, int64_t> graph_fallbacks;

  // Transfers by the instruction that caused them (Note [Transfers by instruction]).
  struct OpTransfers {
    int64_t to_dev_bytes = 0, to_dev_n = 0, from_dev_bytes = 0, from_dev_n = 0;
    int64_t largest_from_dev = 0;  // bytes of the largest single device-to-host copy
  };
  std::map<std::string, OpTransfers> by_op;
  // The instruction running now, set by the interpreter: named on demand by current_op_name
  // (its -stats name; "" outside any), so running an instruction copies no string.
  const void* current_op = nullptr;
  std::string (*current_op_name)(const void* op) = nullptr;
  std::string current_op_label() const {
    return current_op != nullptr && current_op_name != nullptr ? current_op_name(current_op)
                                                               : std::string();
  }
};

// Note [Transfers by instruction]
// Issue #18: with -gpu, a data-sized matrix should leave the device only when the program reads
// it. Every upload, download and element read adds its bytes to by_op[current_op], the innermost
// instruction running when it happened — a CPU instruction whose input lives on the device is
// charged for the download it forces (e.g. `contains` pulling X back), eviction traffic to the
// instruction whose allocation forced it. -stats prints the rows that moved the most, and
// bench/algo_bench.py's transfer check reads them.

// SystemDS's GPU block of -stats (GPUStatistics.getStringForCudaTimers), tab-separated labels,
// times in seconds with three decimals, followed by dmlrt's byte-count line and, where anything
// moved, the instructions that moved the most bytes (top `top_ops` by total bytes).
std::string format_gpu_stats(const GpuStats& s, int top_ops = 10);

}  // namespace dmlrt::mem
