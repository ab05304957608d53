// The -config file reader: SystemDS-config.xml style,
// `<root><sysds.key>value</sysds.key>...</root>`. Keys dmlrt honours are validated here (GPU memory
// settings through memory/memory_config.h); other keys are reported as warnings. Shared by the CLI
// and the embedded API.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memory/memory_config.h"

namespace dmlrt::runtime {

enum class FloatPrecision { kDouble, kSingle };

struct RuntimeConfig {
  FloatPrecision precision = FloatPrecision::kDouble;  // sysds.floating.point.precision
  mem::MemoryConfig memory;  // sysds.gpu.availableGPUs, eviction.policy, memory.util.factor
  bool gpu_sync_post_process = false;     // sysds.gpu.sync.postProcess
  // -stats times each GPU instruction with a pair of CUDA events (Note [GPU instruction timing] in
  // memory/gpu_session.h); false counts GPU instructions without timing them, for runs whose
  // total time is what is measured.
  bool stats_gpu_events = true;  // dmlrt.stats.gpu.events
  bool gpu_eager_cuda_free = false;       // sysds.gpu.eager.cudaFree
  int stats_max_wrap_length = 30;         // sysds.stats.maxWrapLength
  int64_t default_block_size = 1000;      // sysds.defaultblocksize
  // Threads of the CPU backend (kernels/cpu/parallel.h) and of OpenBLAS; -1 (or any value <= 0,
  // as in SystemDS) = every core.
  int num_threads = -1;  // sysds.num.threads
  std::string scratch = "scratch_space";  // sysds.scratch
  // cuDNN convolutions (DESIGN.md §5): deterministic algorithms only; TF32 math for FP32; where
  // the timed algorithms persist ("" = $XDG_CACHE_HOME/dmlrt or ~/.cache/dmlrt, "none" = memory
  // only); the intermediate budget of one DNN instruction in bytes (-1 = what the memory manager
  // can still give).
  bool cudnn_deterministic = false;  // dmlrt.gpu.cudnn.deterministic
  bool allow_tf32 = false;           // dmlrt.gpu.allow.tf32
  bool cudnn_graph = true;           // dmlrt.gpu.cudnn.graph (graph-API engines for convolutions)
  std::string cudnn_cache_dir;       // dmlrt.gpu.cudnn.cache.dir
  bool persist_gemm_plans = true;    // dmlrt.gpu.gemm.plans.persist
  bool gpu_graphs = true;            // dmlrt.gpu.graphs: on | off (Note [CUDA graphs])
  int gpu_graph_cache = 64;          // dmlrt.gpu.graphs.cache: graphs kept per GPU session
  // dmlrt.gpu.graphs.chunk: always (0) | never (-1) | a byte count (Note [CUDA graphs])
  long long gpu_graph_chunk_bytes = 1LL << 20;
  // dmlrt.gpu.graphs.warmup: eager runs of an instruction list before it is captured
  int gpu_graph_warmup = 2;
  // dmlrt.gpu.graphs.device.bound: a list whose device time is this many times its host time
  // stays eager (Note [Device-bound lists]); 0 (off) never
  double gpu_graph_device_bound = 2.0;
  int parfor_workers_per_gpu = 1;    // dmlrt.gpu.parfor.workers.per.gpu (Note [PARFOR on GPUs])
  long long dnn_budget_bytes = -1;   // dmlrt.gpu.dnn.budget (4096, 512M, 8G, ...)
  // dmlrt.gpu.cudnn.fp32.tolerance: the norm-wise error an FP32 convolution algorithm may show
  // against a GEMM-ordered one before it is dropped ("off" = infinity: no check).
  double fp32_conv_tolerance = 1e-4;
  // Plan rewrites (runtime/plan_rewrites.h): fuse conv2d_bias_add with a following ReLU; run
  // chains of cell-wise lines as one GPU kernel each.
  bool rewrite_fuse_conv_relu = true;  // dmlrt.rewrite.fuse_conv_relu
  bool rewrite_fuse_cellwise = true;   // dmlrt.rewrite.fuse_cellwise
  bool rewrite_fold_transpose = true;  // dmlrt.rewrite.fold_transpose
};

// "double" | "single" (case-insensitive); throws ParseError naming `what` otherwise.
FloatPrecision parse_precision(const std::string& value, const std::string& what);
const char* precision_name(FloatPrecision p);

// A positive byte count with an optional K/M/G/T suffix (powers of 1024; "B", "KB", "KiB" also):
// "4096", "512M", "8G"; -1 when the text is not one (the caller names the key or option).
long long parse_byte_count_text(const std::string& text);

// Applies one key. Returns false for a key dmlrt does not act on (the caller reports it); throws
// ParseError "<key>: <what is wrong>" for a bad value of a key it honours. A recoverable value
// (sysds.gpu.availableGPUs, which SystemDS also falls back on) adds a warning instead.
bool apply_config_key(RuntimeConfig& config, const std::string& key, const std::string& value,
                      std::vector<std::string>* warnings = nullptr);

struct ConfigEntry {
  std::string key;
  std::string value;
  int line = 0;  // 1-based line of the element
};

// The <key>value</key> elements under the root element, in file order, with entities decoded and
// surrounding white space trimmed. Throws ParseError "<file>:<line>: ..." on malformed XML.
std::vector<ConfigEntry> parse_config_xml(const std::string& text, const std::string& file);

// Messages from reading a config: `warnings` for keys dmlrt does not know or values it replaced,
// `notes` for SystemDS keys that have no effect in dmlrt.
struct ConfigMessages {
  std::vector<std::string> warnings;
  std::vector<std::string> notes;
};

// Parses config text into `config` (keys not given keep their values). Errors name the file, line
// and key: "<file>:<line>: <key>: <what is wrong>".
void parse_config(const std::string& text, const std::string& file, RuntimeConfig& config,
                  ConfigMessages* messages = nullptr);
// Reads a config file into `config` (IoError naming the file when it cannot be read).
void read_config_file(const std::string& path, RuntimeConfig& config,
                      ConfigMessages* messages = nullptr);

}  // namespace dmlrt::runtime
