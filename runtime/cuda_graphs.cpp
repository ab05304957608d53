// CUDA graphs for runs of GPU instructions; see the header and Note [CUDA graphs].
#include "runtime/cuda_graphs.h"

#ifdef DMLRT_WITH_CUDA
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gpu_context/cuda_check.h"
#include "gpu_context/host_sync_hook.h"
#include "instructions/gpu_placement.h"
#include "instructions/instruction.h"
#include "instructions/matrix_object.h"
#include "instructions/scalar_value.h"
#include "memory/gpu_session.h"
#include "memory/graph_hook.h"
#endif

namespace dmlrt::runtime {

// Note [CUDA graphs]
// A loop body of small GPU instructions is bound by launches: each instruction costs the host a
// few microseconds (symbol table, allocation, kernel launch) while its kernels run for less. With
// dmlrt.gpu.graphs on (the default), the interpreter hands each instruction list to
// run_with_graphs, which captures runs of consecutive instructions once and replays them:
// - A run starts at any instruction not marked as a boundary and extends until one of: the end
//   of the list; a GPU instruction that is not graph_safe (Instruction::graph_safe: its library
//   calls may synchronise, or an operand is sparse or host-only); a point where the host waits
//   for the device or copies data (gpu::before_host_sync: a scalar read, a download, a print of
//   a device value, cuDNN algorithm search, cudaFree); a nested instruction list (a function
//   call, the parts of a fused chain). The instruction where the run ended is marked a boundary
//   and runs eagerly from then on. Instructions that stay on the host (createvar, rmvar, cpvar,
//   scalar arithmetic) belong to the run: they are executed again on every replay. A run also
//   ends after kFirstChunk GPU instructions, the next after twice as many, up to kMaxChunk (the
//   count starts again after an eager instruction): a replay walks its whole run before it
//   launches, and short first graphs let the device start while the host walks the next. By
//   default a run is cut this way only once its buffers add up to 1 MiB (dmlrt.gpu.graphs.chunk:
//   a byte count; always; never): a loop of tiny instructions, whose device work is shorter than
//   a launch, stays one launch per iteration (bench/RESULTS.md, "Runs cut into chunks only from
//   1 MiB of buffers").
// - Scalar results of GPU instructions (a full sum, the cell of a 1x1) do not end a run: under
//   the DeferScope that run_with_graphs opens for each list run, their copy to a pinned host slot
//   is a memcpy node of the graph and the scalar is deferred until used (Note [Deferred
//   scalars] in instructions/scalar_value.cpp); a replay binds a new deferred scalar to the
//   same slot. The LeNet step's loss and L2 terms are read once, by the print at its end.
// - Capture is stream capture (relaxed mode) of the session's stream while the instructions run
//   as usual, on the list's third run (dmlrt.gpu.graphs.warmup, 2 eager runs: the first warms
//   up algorithm choices and GEMM plans; a capture costs about 0.1 ms of host time, which a list
//   run only twice, such as the blocks of a builtin called twice, would never win back), unless
//   the last eager run was device-bound (Note [Device-bound lists]).
//   Hooks record, per GPU instruction: the symbol-table names it read with their values (scalars)
//   or shapes (matrices), the device copies it read (acquire_device_read), the blocks it
//   allocated and returned, the dense results it bound (set_device_result), and the graph nodes
//   it added. Every kernel node's parameters (cuFuncGetParamInfo gives their layout), memcpy and
//   memset node are scanned for device pointers: each one must fall in a buffer of that
//   instruction (an input, an own allocation) or the session's cuBLAS workspace; a pointer into
//   any other live block makes the instruction a boundary (it read memory it did not declare).
//   When the run ends, the captured graph is instantiated and launched: that launch does the
//   run's work; if the run ended inside an instruction (a host read after some kernels), those
//   nodes run in that launch but are removed from the graph kept for replay (otherwise the
//   executable instance that ran is the one replays use: one instantiation per capture).
// - Replay: on a later run of the list, a kept graph whose key matches (the names the run's GPU
//   instructions read from outside the run: scalar values, matrix shapes) is replayed. The host
//   walks the run: host-side instructions execute as usual; for a GPU instruction, its recorded
//   reads are checked against the symbol table, its inputs' current device buffers are looked
//   up, its allocations are made again through the memory manager (same sizes, same order), its
//   results are bound to the recorded names and its temporaries returned; nothing is launched.
//   Then every graph node whose pointers changed (an input or allocation now at another address)
//   gets its parameters rewritten (cuGraphExecKernelNodeSetParams, cudaGraphExecMemcpy/Memset-
//   NodeSetParams: no re-capture), and the graph is launched once. The walk's allocations ask for
//   the blocks the same allocation got in the last two replays (MemoryManager::
//   allocate_preferring): a temporary gets its block back, a result that outlives the run (a
//   weight and its update) alternates between two. A variant keeps up to three
//   executable instances of its graph, each with the pointers it holds: buffers that alternate
//   between iterations repeat their pattern, and the instance that holds it needs no updates
//   (one driver call per node otherwise); a new instance is made while all need updates. A replay
//   that meets a mismatch or a host wait halfway launches the graph with the nodes of the
//   instructions not yet bound disabled (cudaGraphNodeSetEnabled), and runs the rest of the run
//   eagerly; an instruction that mismatches twice (a scalar operand that changes every iteration,
//   such as a batch offset) becomes a boundary, so the graphs around it replay. Shapes or scalar
//   values not seen before capture another graph for the same run (a variant); the graphs of a
//   session are bounded (dmlrt.gpu.graphs.cache, least recently used dropped). A list that keeps
//   capturing without replaying falls back to eager launches for a while (doubling, up to 1024
//   runs) and is tried again later; it is never given up for good.
// - Memory: a kept graph owns no device memory. Every buffer it touches is allocated again (or
//   looked up) for each replay and its pointer patched in, so eviction never has to respect a
//   graph, and the memory manager's accounting is that of the eager run. Within a walk nothing
//   is enqueued before the launch: a block freed during the walk and reused by a later
//   allocation is written by a later node of the same graph, in stream order as in the eager
//   run. Anything that would enqueue work during the walk (an upload, an eviction's write-back, a
//   GPU instruction outside the graph) is a host wait, which launches the prefix first.
// - Results are those of the eager run: the graph holds the same kernels with the same
//   parameters; only the pointers move. -stats counts captures, replays (and the instructions
//   they stood for), replays that updated node parameters, re-captures, evicted graphs and
//   fallbacks by reason, and the host time of replays and of captures (cudaGraphInstantiate's
//   among it); replayed instructions count in the heavy hitters without a time of their own,
//   and the launches are timed as gpu_graph.

#ifdef DMLRT_WITH_CUDA
namespace {

using inst::ExecutionContext;
using inst::Instruction;
using inst::MatrixObject;
using inst::ScalarValue;
using inst::Value;

constexpr uint32_t kNone = UINT32_MAX;
constexpr int kMinGpuInstructions = 2;  // shorter runs are not worth a graph
constexpr int kMismatchesToBoundary = 2;
constexpr int kCapturesBeforeBackoff = 4;
// A measured run is device-bound only from this much device time (Note [Device-bound lists]): a
// run of host instructions, or a few tiny kernels, measures microseconds either way.
constexpr double kDeviceBoundMinSeconds = 100e-6;
// A captured run holds at most this many GPU instructions, doubling from kFirstChunk after each
// eager instruction: a replay launches its graph only after walking it, and the device idles
// meanwhile; short graphs first let it start while the host walks the next.
constexpr int kFirstChunk = 4;
constexpr int kMaxChunk = 64;

// ---------------------------------------------------------------- driver entry points

// The driver calls for kernel-node parameters, through the runtime's entry-point lookup (no link
// dependency on libcuda).
struct Driver {
  CUresult (*node_get)(CUgraphNode, CUDA_KERNEL_NODE_PARAMS*) = nullptr;
  CUresult (*exec_set)(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS*) = nullptr;
  CUresult (*func_param)(CUfunction, size_t, size_t*, size_t*) = nullptr;
  CUresult (*kernel_param)(CUkernel, size_t, size_t*, size_t*) = nullptr;
  bool usable() const { return node_get && exec_set && (func_param || kernel_param); }
};

template <typename F>
void entry(const char* name, F* out) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, CUDART_VERSION, cudaEnableDefault, &q) ==
          cudaSuccess &&
      q == cudaDriverEntryPointSuccess)
    *out = reinterpret_cast<F>(fn);
}

const Driver& driver() {
  static const Driver d = [] {
    Driver x;
    entry("cuGraphKernelNodeGetParams", &x.node_get);
    entry("cuGraphExecKernelNodeSetParams", &x.exec_set);
    entry("cuFuncGetParamInfo", &x.func_param);
    entry("cuKernelGetParamInfo", &x.kernel_param);
    return x;
  }();
  return d;
}

// The (offset, size) of each parameter of a kernel node's function. The driver has no count:
// indices are asked until one fails, once per function for the process (a failed call is an API
// error to compute-sanitizer, so the answers are kept).
std::vector<std::pair<size_t, size_t>> param_layout(const CUDA_KERNEL_NODE_PARAMS& k) {
  static std::mutex m;
  static std::unordered_map<const void*, std::vector<std::pair<size_t, size_t>>> known;
  const void* key =
      k.func != nullptr ? static_cast<const void*>(k.func) : static_cast<const void*>(k.kern);
  std::lock_guard<std::mutex> lock(m);
  auto it = known.find(key);
  if (it != known.end()) return it->second;
  const Driver& d = driver();
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0;; ++i) {
    size_t off = 0, size = 0;
    CUresult res = CUDA_ERROR_INVALID_VALUE;
    if (k.func != nullptr && d.func_param != nullptr)
      res = d.func_param(k.func, i, &off, &size);
    else if (k.kern != nullptr && d.kernel_param != nullptr)
      res = d.kernel_param(k.kern, i, &off, &size);
    if (res != CUDA_SUCCESS) break;
    out.emplace_back(off, size);
  }
  known.emplace(key, out);
  return out;
}

// ---------------------------------------------------------------- records

struct Region {  // a device buffer the graph uses, at capture
  uintptr_t base = 0;
  size_t bytes = 0;
};

struct Site {  // a pointer inside a node: region base + delta
  uint32_t region;
  uint32_t where;  // kernel: byte offset in the parameter blob; memcpy: 0 src, 1 dst; memset: 0
  uintptr_t delta;
  uintptr_t captured;  // its value in the captured graph
};

struct Node {
  cudaGraphNode_t node = nullptr;
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  CUDA_KERNEL_NODE_PARAMS kernel{};
  std::vector<std::pair<size_t, size_t>> layout;  // (offset, size) per parameter
  std::vector<unsigned char> blob;                // parameter values, flattened
  cudaMemcpy3DParms copy{};
  cudaMemsetParams set{};
  std::vector<Site> sites;
  size_t first_site = 0;  // of sites[0] in Exec::applied
};

// An executable instance of a variant's graph and the pointer values its nodes hold now. A
// variant keeps up to kExecsPerVariant of them: buffers that alternate between iterations (a
// loop-carried matrix and its update) give pointer patterns that repeat, and the instance that
// already holds a pattern launches with no node updates.
constexpr size_t kExecsPerVariant = 3;

struct Exec {
  cudaGraphExec_t exec = nullptr;
  std::vector<uintptr_t> applied;  // per site, in node order
  Exec() = default;
  Exec(const Exec&) = delete;
  Exec& operator=(const Exec&) = delete;
  ~Exec() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
  }
};

struct ReadRec {  // a symbol-table name an instruction looked up
  std::string name;
  int kind = 0;  // 0 unbound, 1 scalar, 2 matrix, 3 list
  ScalarValue scalar;
  int64_t rows = -1, cols = -1;
  bool external = false;  // not bound earlier in the run
};

struct MatrixRec {  // a variable's device matrix as an instruction read or bound it
  std::string name;
  int64_t rows = 0, cols = 0, nnz = -1;
  bool sparse = false;
  mem::DType dtype = mem::DType::kFloat64;

  static MatrixRec of(const std::string& name, const mem::DeviceMatrix& m) {
    return MatrixRec{name, m.rows(), m.cols(), m.nnz(), m.is_sparse(), m.dtype()};
  }
};

struct InputRec : MatrixRec {                  // a device copy an instruction read
  uint32_t region[3] = {kNone, kNone, kNone};  // values, row offsets, column indices
};

struct AllocRec {
  size_t bytes = 0;
  mem::AllocLabel label;
  uintptr_t captured = 0;
  // The blocks the last two replays got, asked for first (MemoryManager::allocate_preferring): a
  // temporary gets its block back every replay, a result that outlives the run alternates between
  // two, and the executable instances keep their pointers.
  uintptr_t recent[2] = {0, 0};
  bool released = false;
  bool output = false;
  uint32_t region = kNone;
};

struct OutputRec : MatrixRec {  // a dense result an instruction bound
  uint32_t alloc = kNone;       // its allocation among the instruction's
};

struct ScalarRec {  // a deferred scalar result (Note [Deferred scalars]): its name and pinned slot
  std::string name;
  std::shared_ptr<mem::HostSlot> slot;  // the graph's memcpy node writes here on every replay
};

struct InstrRec {
  bool gpu = false;
  std::vector<ReadRec> reads;
  std::vector<InputRec> inputs;
  std::vector<AllocRec> allocs;
  std::vector<OutputRec> outputs;
  std::vector<ScalarRec> scalars;
  size_t first_node = 0, end_node = 0;  // into Variant::nodes
};

// One captured run [begin, end) of a list, for one key.
struct Variant {
  size_t begin = 0, end = 0;
  std::vector<InstrRec> instrs;
  std::vector<Region> regions;
  std::vector<Node> nodes;
  std::vector<ReadRec> key;
  cudaGraph_t graph = nullptr;
  std::vector<std::unique_ptr<Exec>> execs;  // the first made when the capture ends
  size_t site_count = 0;
  uint64_t last_use = 0;
  int gpu_count = 0;
  Variant() = default;
  Variant(const Variant&) = delete;
  Variant& operator=(const Variant&) = delete;
  ~Variant() {
    execs.clear();
    if (graph != nullptr) cudaGraphDestroy(graph);
  }
};

// The device time and host time of one eager run of a list (Note [Device-bound lists]): events
// recorded on the session's stream around the run, read before the next run tries graphs.
struct RunProbe {
  cudaEvent_t start = nullptr, end = nullptr;
  double host_s = 0.0;
  bool pending = false;  // recorded, not yet read
  RunProbe() = default;
  RunProbe(const RunProbe&) = delete;
  RunProbe& operator=(const RunProbe&) = delete;
  ~RunProbe() {
    if (start != nullptr) cudaEventDestroy(start);
    if (end != nullptr) cudaEventDestroy(end);
  }
};

struct ListState {
  uint64_t runs = 0;
  std::vector<uint8_t> boundary;
  std::vector<uint8_t> mismatches;
  // By first instruction. Shared: a replay keeps its variant alive while a nested run of the same
  // list (a recursive function) may drop it from here.
  std::map<size_t, std::vector<std::shared_ptr<Variant>>> variants;
  int captures_without_replay = 0;
  int backoff = 0;
  uint64_t eager_until = 0;
  RunProbe probe;
};

struct GraphState final : mem::GpuSession::Extension {
  std::unordered_map<const InstructionList*, ListState> lists;
  uint64_t clock = 0;
  size_t count = 0;
};

GraphState& state_of(mem::GpuSession& gpu) {
  auto& ext = gpu.graph_state();
  if (!ext) ext = std::make_unique<GraphState>();
  return static_cast<GraphState&>(*ext);
}

bool same_scalar(const ScalarValue& a, const ScalarValue& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case inst::ValueType::kFP64:
    case inst::ValueType::kFP32: {
      const double x = a.to_double(), y = b.to_double();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case inst::ValueType::kINT64:
    case inst::ValueType::kINT32:
      return a.to_int() == b.to_int();
    case inst::ValueType::kBoolean:
      return a.to_bool() == b.to_bool();
    default:
      return a.to_string() == b.to_string();
  }
}

ReadRec read_of(const std::string& name, const Value* v) {
  ReadRec r;
  r.name = name;
  if (v == nullptr) return r;
  if (const auto* s = std::get_if<ScalarValue>(v)) {
    r.kind = 1;
    r.scalar = *s;
  } else if (const auto* m = std::get_if<std::shared_ptr<MatrixObject>>(v)) {
    r.kind = 2;
    r.rows = (*m)->meta().rows;
    r.cols = (*m)->meta().cols;
  } else {
    r.kind = 3;
  }
  return r;
}

// Whether the symbol table still gives what `r` recorded (lists never match: they are not
// tracked).
bool read_matches(const ReadRec& r, ExecutionContext& ec) {
  const ReadRec now = read_of(r.name, ec.find(r.name));
  if (now.kind != r.kind || r.kind == 3) return false;
  if (r.kind == 1) return same_scalar(now.scalar, r.scalar);
  if (r.kind == 2) return now.rows == r.rows && now.cols == r.cols;
  return true;
}

// The device buffers of a matrix: values, row offsets, column indices (bytes 0 when absent).
void parts_of(const mem::DeviceMatrix& m, const void* ptr[3], size_t bytes[3]) {
  const size_t es = mem::dtype_size(m.dtype());
  const size_t is = m.index_width() == mem::IndexWidth::k32 ? 4 : 8;
  ptr[0] = m.values();
  ptr[1] = m.row_ptr();
  ptr[2] = m.col_idx();
  if (m.is_sparse()) {
    bytes[0] = static_cast<size_t>(std::max<int64_t>(m.nnz(), 0)) * es;
    bytes[1] = static_cast<size_t>(m.rows() + 1) * is;
    bytes[2] = static_cast<size_t>(std::max<int64_t>(m.nnz(), 0)) * is;
  } else {
    bytes[0] = static_cast<size_t>(m.size()) * es;
    bytes[1] = bytes[2] = 0;
  }
  for (int k = 0; k < 3; ++k)
    if (ptr[k] == nullptr) bytes[k] = 0;
}

// Keeps the thread's hooks for the life of a capture or replay and puts back the previous ones.
class Hooks {
 public:
  Hooks(gpu::HostSyncHook* h, mem::GraphHook* g, inst::GraphWatch* w)
      : h_(gpu::t_host_sync_hook), g_(mem::t_graph_hook), w_(inst::t_graph_watch) {
    gpu::t_host_sync_hook = h;
    mem::t_graph_hook = g;
    inst::t_graph_watch = w;
  }
  ~Hooks() {
    gpu::t_host_sync_hook = h_;
    mem::t_graph_hook = g_;
    inst::t_graph_watch = w_;
  }
  Hooks(const Hooks&) = delete;
  Hooks& operator=(const Hooks&) = delete;

 private:
  gpu::HostSyncHook* h_;
  mem::GraphHook* g_;
  inst::GraphWatch* w_;
};

// Note [Device-bound lists]
// A graph saves the host its launches; where the device's work dwarfs them (lmCG's loop body: a
// 0.4 ms product with an 800 MB matrix, launched in a few microseconds) the launches are hidden
// behind it and a replay gains next to nothing, while the capture costs about 0.1 ms of host time
// per graph, which a loop of 20 iterations does not win back (bench/RESULTS.md, "Device-bound
// lists"). So the last eager run before a list tries graphs is measured: CUDA events around it on
// the session's stream give the device's time from its first instruction's work to its last; the
// steady clock gives the host's, summed over the instructions that did not wait for the device
// (a hook counts gpu::before_host_sync calls: lmCG's body waits twice, for scalars that kernels
// take as parameters, and those waits are device time). Before the next run the host waits for
// the second event (once per measurement); a device time dmlrt.gpu.graphs.device.bound (default
// 2) or more times the host's, and at least 0.1 ms, keeps the list eager for 1, 2, 4, ... runs,
// after which it is measured again: a list whose data shrinks, or whose host work grows, is
// captured then. -stats counts each decision as a fallback, "device-bound: ...". A host-bound run
// (small instructions, LeNet's step) measures a device time close to its host time and is
// captured. lmCG's body measures between 2 and 4 times: with a ratio of 4 it was captured in 8
// of 11 processes and its first call was 1.6 ms slower than without graphs (mean of 25); with 2
// it stays eager in every process, both calls within run-to-run noise of graphs off
// (bench/RESULTS.md, "Device-bound lists").

void record_probe(mem::GpuSession& gpu, cudaEvent_t& ev) {
  if (ev == nullptr) DMLRT_CHECK_CTX(cudaEventCreate(&ev), "CUDA graphs: run probe event");
  DMLRT_CHECK_CTX(cudaEventRecord(ev, gpu.stream()), "CUDA graphs: run probe event");
}

// Counts the host waits of a measured run (Note [Device-bound lists]).
struct WaitCounter final : gpu::HostSyncHook {
  int64_t waits = 0;
  void host_sync(const char*) override { ++waits; }
};

// Runs the list's n instructions eagerly, measured into `p`: the host's time counts only the
// instructions that did not wait for the device.
void measured_run(mem::GpuSession& gpu, RunProbe& p, size_t n, const GraphCallbacks& cb) {
  WaitCounter counter;
  Hooks hooks(&counter, nullptr, nullptr);
  record_probe(gpu, p.start);
  double host_s = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t waits = counter.waits;
    const auto t0 = std::chrono::steady_clock::now();
    cb.run(i);
    if (counter.waits == waits)
      host_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  record_probe(gpu, p.end);
  p.host_s = host_s;
  p.pending = true;
}

// Reads a pending probe of `st`: true when its device time was at least the configured multiple
// of its host time.
bool device_bound(mem::GpuSession& gpu, ListState& st) {
  RunProbe& p = st.probe;
  if (!p.pending) return false;
  p.pending = false;
  const double ratio = gpu.options().graph_device_bound;
  if (ratio <= 0) return false;
  DMLRT_CHECK_CTX(cudaEventSynchronize(p.end), "CUDA graphs: run probe event");
  float ms = 0.0f;
  DMLRT_CHECK_CTX(cudaEventElapsedTime(&ms, p.start, p.end), "CUDA graphs: run probe event");
  const double device_s = 1e-3 * ms;
  return device_s >= kDeviceBoundMinSeconds && device_s >= ratio * p.host_s;
}

// A capture or replay in progress on this thread: a nested list interrupts it.
class Activity {
 public:
  virtual ~Activity() = default;
  virtual void interrupt(const char* why) = 0;
};
thread_local Activity* t_activity = nullptr;

class ActivityScope {
 public:
  explicit ActivityScope(Activity* a) : saved_(t_activity) { t_activity = a; }
  ~ActivityScope() { t_activity = saved_; }
  ActivityScope(const ActivityScope&) = delete;
  ActivityScope& operator=(const ActivityScope&) = delete;

 private:
  Activity* saved_;
};

void note_fallback(mem::GpuSession& gpu, const std::string& why) {
  ++gpu.stats().graph_fallbacks[why];
}

// Instantiates `graph` (throws on failure), counted and timed for -stats.
cudaGraphExec_t instantiate(mem::GpuStats& stats, cudaGraph_t graph) {
  const auto t0 = std::chrono::steady_clock::now();
  cudaGraphExec_t exec = nullptr;
  DMLRT_CHECK_CTX(cudaGraphInstantiate(&exec, graph, 0), "CUDA graph instantiation");
  ++stats.graph_instantiations;
  stats.graph_instantiate_s +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return exec;
}

// A new executable instance of v's graph, holding the captured pointers.
std::unique_ptr<Exec> new_exec(mem::GpuStats& stats, const Variant& v) {
  auto e = std::make_unique<Exec>();
  e->exec = instantiate(stats, v.graph);
  e->applied.reserve(v.site_count);
  for (const Node& n : v.nodes)
    for (const Site& x : n.sites) e->applied.push_back(x.captured);
  return e;
}

// Launches `exec` on the session's stream, timed for -stats as gpu_graph.
void launch(mem::GpuSession& gpu, cudaGraphExec_t exec, const GraphCallbacks& cb) {
  gpu.begin_instruction();
  DMLRT_CHECK_CTX(cudaGraphLaunch(exec, gpu.stream()), "CUDA graph launch");
  if (gpu.uses_instruction_names()) gpu.end_instruction("gpu_graph");
  if (cb.launched) cb.launched();
}

// ---------------------------------------------------------------- capture

class Recorder final : public gpu::HostSyncHook,
                       public mem::GraphHook,
                       public inst::GraphWatch,
                       public Activity {
 public:
  Recorder(mem::GpuSession& gpu, ListState& st, Variant& v, const GraphCallbacks& cb)
      : gpu_(gpu), st_(st), v_(v), cb_(cb), timing_(gpu.timing()) {
    DMLRT_CHECK_CTX(cudaStreamBeginCapture(gpu_.stream(), cudaStreamCaptureModeRelaxed),
                    "CUDA graph capture");
    gpu_.set_timing(false);  // no timing events inside the capture
    capturing_ = true;
  }
  ~Recorder() override {
    if (capturing_) {  // an error unwinds: run what was captured, keep nothing
      try {
        finish_capture(/*keep_upto=*/0, /*keep=*/false);
      } catch (...) {
      }
    }
    gpu_.set_timing(timing_);
  }

  bool capturing() const { return capturing_; }

  void start(size_t i) {
    cur_ = i;
    v_.instrs.emplace_back();
    bound_here_.clear();
  }

  // After the instruction started by start() ran under capture: its nodes, and whether it can be
  // replayed.
  void finish_instruction() {
    InstrRec& r = v_.instrs.back();
    const std::vector<cudaGraphNode_t> added = new_nodes();
    std::string why;
    if (!r.gpu) {
      r.first_node = r.end_node = v_.nodes.size();
      if (!added.empty() || !r.allocs.empty() || !r.outputs.empty())
        why = "a host instruction used the device";
    } else {
      why = check_instruction(r, added);
    }
    if (!why.empty()) {
      flush(why);  // keeps [begin, i); this instruction's nodes ran in the flush's launch
      return;
    }
    if (r.gpu) ++v_.gpu_count;
  }

  // End of the run at instruction `end` (exclusive): the graph runs once now, and is kept.
  void end(size_t end) {
    if (!capturing_) return;
    finish_capture(end, /*keep=*/true);
  }

  // The variant worth keeping: [begin, kept_end_) with its graph, or null.
  bool kept() const { return kept_; }

  // gpu::HostSyncHook
  void host_sync(const char* what) override {
    if (capturing_) flush(std::string("host wait: ") + what);
  }
  // Activity
  void interrupt(const char* why) override {
    if (capturing_) flush(why);
  }
  // inst::GraphWatch
  void read(const std::string& name, const Value* value) override {
    if (!capturing_ || v_.instrs.empty() || bound_here_.count(name) != 0) return;
    InstrRec& r = v_.instrs.back();
    for (const ReadRec& x : r.reads)
      if (x.name == name) return;
    ReadRec rec = read_of(name, value);
    rec.external = written_.count(name) == 0;
    r.reads.push_back(std::move(rec));
  }
  void wrote(const std::string& name) override {
    if (!capturing_) return;
    written_.insert(name);
    bound_here_.insert(name);
  }
  void gpu_instruction(const Instruction& i, ExecutionContext& ec) override {
    if (!capturing_ || v_.instrs.empty()) return;
    // Off the hook while the instruction inspects its operands.
    inst::GraphWatch* saved = inst::t_graph_watch;
    inst::t_graph_watch = nullptr;
    const bool safe = i.graph_safe(ec);
    inst::t_graph_watch = saved;
    if (!safe) {
      flush("not graph-safe: " + i.opcode());
      return;
    }
    v_.instrs.back().gpu = true;
  }
  // mem::GraphHook
  void allocated(void* ptr, size_t bytes, const mem::AllocLabel& what, bool zero) override {
    (void)zero;  // a zero fill is a memset node of the graph
    if (!capturing_ || v_.instrs.empty()) return;
    AllocRec a;
    a.bytes = bytes;
    a.label = what;
    a.captured = reinterpret_cast<uintptr_t>(ptr);
    a.recent[0] = a.captured;
    v_.instrs.back().allocs.push_back(std::move(a));
  }
  void released(void* ptr) override {
    if (!capturing_ || v_.instrs.empty()) return;
    for (AllocRec& a : v_.instrs.back().allocs)
      if (a.captured == reinterpret_cast<uintptr_t>(ptr) && !a.released && !a.output) {
        a.released = true;
        return;
      }
  }
  void input(const std::string& name, const mem::DeviceMatrix& m) override {
    if (!capturing_ || v_.instrs.empty()) return;
    InputRec in;
    static_cast<MatrixRec&>(in) = MatrixRec::of(name, m);
    const void* ptr[3];
    size_t bytes[3];
    parts_of(m, ptr, bytes);
    for (int k = 0; k < 3; ++k) {
      if (bytes[k] == 0) continue;
      in.region[k] = static_cast<uint32_t>(v_.regions.size());
      v_.regions.push_back(Region{reinterpret_cast<uintptr_t>(ptr[k]), bytes[k]});
    }
    v_.instrs.back().inputs.push_back(std::move(in));
  }
  void output(const std::string& name, const mem::DeviceMatrix& m) override {
    if (!capturing_ || v_.instrs.empty()) return;
    InstrRec& r = v_.instrs.back();
    OutputRec o;
    static_cast<MatrixRec&>(o) = MatrixRec::of(name, m);
    if (!m.is_sparse() && m.values() != nullptr) {
      for (size_t a = 0; a < r.allocs.size(); ++a)
        if (r.allocs[a].captured == reinterpret_cast<uintptr_t>(m.values()) &&
            !r.allocs[a].released && !r.allocs[a].output) {
          o.alloc = static_cast<uint32_t>(a);
          r.allocs[a].output = true;
          break;
        }
    }
    r.outputs.push_back(std::move(o));  // alloc kNone: refused in check_instruction
  }
  void deferred_scalar(const std::string& name,
                       const std::shared_ptr<mem::HostSlot>& slot) override {
    if (!capturing_ || v_.instrs.empty()) return;
    v_.instrs.back().scalars.push_back(ScalarRec{name, slot});
  }

 private:
  // The nodes the capture added since the last call.
  std::vector<cudaGraphNode_t> new_nodes() {
    std::vector<cudaGraphNode_t> out;
    cudaStreamCaptureStatus status{};
    cudaGraph_t g = nullptr;
    DMLRT_CHECK_CTX(cudaStreamGetCaptureInfo(gpu_.stream(), &status, nullptr, &g),
                    "CUDA graph capture");
    if (status != cudaStreamCaptureStatusActive || g == nullptr) return out;
    size_t n = 0;
    DMLRT_CHECK(cudaGraphGetNodes(g, nullptr, &n));
    if (n == seen_.size()) return out;
    std::vector<cudaGraphNode_t> all(n);
    DMLRT_CHECK(cudaGraphGetNodes(g, all.data(), &n));
    for (cudaGraphNode_t x : all)
      if (seen_.insert(x).second) out.push_back(x);
    return out;
  }

  // The region of instruction r's buffers that holds address a, or kNone.
  uint32_t region_of(const InstrRec& r, uintptr_t a) const {
    auto in = [&](uint32_t id) {
      return id != kNone && a >= v_.regions[id].base &&
             a < v_.regions[id].base + v_.regions[id].bytes;
    };
    for (const InputRec& x : r.inputs)
      for (uint32_t id : x.region)
        if (in(id)) return id;
    for (const AllocRec& x : r.allocs)
      if (in(x.region)) return x.region;
    return kNone;
  }

  // A pointer-sized value a node holds: a site when it points into the instruction's buffers;
  // fine when it is not device memory of the manager or is the session's own; else an error.
  std::string classify(const InstrRec& r, uintptr_t value, Node& node, uint32_t where) {
    const uint32_t id = region_of(r, value);
    if (id != kNone) {
      node.sites.push_back(Site{id, where, value - v_.regions[id].base, value});
      return "";
    }
    const void* p = reinterpret_cast<const void*>(value);
    if (value != 0 && gpu_.memory().in_live_block(p) && !gpu_.is_session_buffer(p))
      return "reads device memory it did not acquire";
    return "";
  }

  std::string check_instruction(InstrRec& r, const std::vector<cudaGraphNode_t>& added) {
    for (const OutputRec& o : r.outputs)
      if (o.alloc == kNone) return "a result it did not allocate (sparse or in place)";
    for (AllocRec& a : r.allocs) {
      if (!a.released && !a.output) return "keeps a device buffer past its end";
      a.region = static_cast<uint32_t>(v_.regions.size());
      v_.regions.push_back(Region{a.captured, a.bytes});
    }
    r.first_node = v_.nodes.size();
    for (cudaGraphNode_t x : added) {
      Node node;
      node.node = x;
      DMLRT_CHECK(cudaGraphNodeGetType(x, &node.type));
      std::string why;
      switch (node.type) {
        case cudaGraphNodeTypeKernel:
          why = scan_kernel(r, node);
          break;
        case cudaGraphNodeTypeMemcpy: {
          DMLRT_CHECK(cudaGraphMemcpyNodeGetParams(x, &node.copy));
          if (node.copy.srcArray != nullptr || node.copy.dstArray != nullptr)
            return "a memcpy node with a CUDA array";
          why = classify(r, reinterpret_cast<uintptr_t>(node.copy.srcPtr.ptr), node, 0);
          if (why.empty())
            why = classify(r, reinterpret_cast<uintptr_t>(node.copy.dstPtr.ptr), node, 1);
          break;
        }
        case cudaGraphNodeTypeMemset:
          DMLRT_CHECK(cudaGraphMemsetNodeGetParams(x, &node.set));
          why = classify(r, reinterpret_cast<uintptr_t>(node.set.dst), node, 0);
          break;
        case cudaGraphNodeTypeEmpty:
        case cudaGraphNodeTypeWaitEvent:
        case cudaGraphNodeTypeEventRecord:
          break;
        default:
          why = "a graph node of type " + std::to_string(static_cast<int>(node.type));
      }
      if (!why.empty()) return why;
      v_.nodes.push_back(std::move(node));
    }
    r.end_node = v_.nodes.size();
    return "";
  }

  std::string scan_kernel(const InstrRec& r, Node& node) {
    const Driver& d = driver();
    if (!d.usable()) return "the driver cannot read kernel parameters";
    if (d.node_get(reinterpret_cast<CUgraphNode>(node.node), &node.kernel) != CUDA_SUCCESS)
      return "kernel parameters unreadable";
    CUDA_KERNEL_NODE_PARAMS& k = node.kernel;
    if (k.kernelParams == nullptr) {
      if (k.extra != nullptr) return "kernel parameters in a launch buffer";
    } else {
      node.layout = param_layout(k);
    }
    size_t total = 0;
    for (const auto& [off, size] : node.layout) total = std::max(total, off + size);
    node.blob.assign(total, 0);
    for (size_t i = 0; i < node.layout.size(); ++i)
      std::memcpy(node.blob.data() + node.layout[i].first, k.kernelParams[i],
                  node.layout[i].second);
    for (size_t off = 0; off + sizeof(uintptr_t) <= total; off += sizeof(uintptr_t)) {
      uintptr_t w = 0;
      std::memcpy(&w, node.blob.data() + off, sizeof w);
      const std::string why = classify(r, w, node, static_cast<uint32_t>(off));
      if (!why.empty()) return why;
    }
    k.kernelParams = nullptr;  // the captured graph's storage; replays pass their own
    k.extra = nullptr;
    return "";
  }

  // Ends the capture now (instruction cur_ caused it, or was refused after it ran): the work
  // captured so far runs, [begin, cur_) is kept, cur_ becomes a boundary.
  void flush(const std::string& why) {
    note_fallback(gpu_, why);
    st_.boundary[cur_] = 1;
    finish_capture(cur_, /*keep=*/true);
  }

  // Ends the capture, launches everything captured, and keeps the nodes of [begin, keep_upto).
  void finish_capture(size_t keep_upto, bool keep) {
    capturing_ = false;
    cudaGraph_t g = nullptr;
    const cudaError_t err = cudaStreamEndCapture(gpu_.stream(), &g);
    if (err != cudaSuccess || g == nullptr) {
      if (g != nullptr) cudaGraphDestroy(g);
      DMLRT_CHECK_CTX(err, "CUDA graph capture");
      return;
    }
    // Run everything captured once: this is the run's work (timed as a replay is).
    gpu_.set_timing(timing_);
    size_t n = 0;
    DMLRT_CHECK(cudaGraphGetNodes(g, nullptr, &n));
    auto ran = std::make_unique<Exec>();  // destroyed (once the launch completes) unless kept
    if (n > 0) {
      ran->exec = instantiate(gpu_.stats(), g);
      launch(gpu_, ran->exec, cb_);
    }
    const size_t kept_instrs = keep_upto > v_.begin ? keep_upto - v_.begin : 0;
    if (!keep || v_.gpu_count < kMinGpuInstructions || kept_instrs == 0) {
      cudaGraphDestroy(g);
      return;
    }
    // Drop the nodes of instructions past the kept ones (recorded or not).
    v_.instrs.resize(kept_instrs);
    const size_t kept_nodes = v_.instrs.back().end_node;
    std::unordered_set<cudaGraphNode_t> keep_set;
    for (size_t i = 0; i < kept_nodes; ++i) keep_set.insert(v_.nodes[i].node);
    v_.nodes.resize(kept_nodes);
    std::vector<cudaGraphNode_t> all(n);
    DMLRT_CHECK(cudaGraphGetNodes(g, all.data(), &n));
    bool dropped = false;
    for (cudaGraphNode_t x : all)
      if (keep_set.count(x) == 0) {
        DMLRT_CHECK(cudaGraphDestroyNode(x));
        dropped = true;
      }
    v_.graph = g;
    size_t sites = 0;
    for (Node& node : v_.nodes) {
      node.first_site = sites;
      sites += node.sites.size();
    }
    v_.site_count = sites;
    if (dropped || ran->exec == nullptr) {
      v_.execs.push_back(new_exec(gpu_.stats(), v_));
    } else {  // the instance that just ran holds exactly the kept nodes: replays reuse it
      for (const Node& node : v_.nodes)
        for (const Site& x : node.sites) ran->applied.push_back(x.captured);
      v_.execs.push_back(std::move(ran));
    }
    v_.end = keep_upto;
    kept_ = true;
  }

  mem::GpuSession& gpu_;
  ListState& st_;
  Variant& v_;
  const GraphCallbacks& cb_;
  bool timing_;
  bool capturing_ = false;
  bool kept_ = false;
  size_t cur_ = 0;
  std::unordered_set<cudaGraphNode_t> seen_;
  std::unordered_set<std::string> written_;     // names bound or removed in the run so far
  std::unordered_set<std::string> bound_here_;  // ... by the instruction running now
};

// ---------------------------------------------------------------- replay

class Replayer final : public gpu::HostSyncHook,
                       public mem::GraphHook,
                       public inst::GraphWatch,
                       public Activity {
 public:
  Replayer(mem::GpuSession& gpu, Variant& v, const GraphCallbacks& cb)
      : gpu_(gpu), v_(v), cb_(cb), base_(v.regions.size()) {
    for (size_t i = 0; i < v.regions.size(); ++i) base_[i] = v.regions[i].base;
  }

  // An error unwinding through the walk: the bound instructions' work still runs.
  ~Replayer() override {
    if (flushed_ || launched_) return;
    try {
      launch_upto(cur_);
    } catch (...) {
    }
  }
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  bool flushed() const { return flushed_; }
  void at(size_t k) { cur_ = k; }  // index into v_.instrs

  // Binds GPU instruction k's results without running it; false (nothing bound) when the
  // symbol table differs from the capture or the walk was flushed meanwhile.
  bool bind(size_t k, Instruction& instr, ExecutionContext& ec, std::string* why) {
    InstrRec& r = v_.instrs[k];
    for (const ReadRec& x : r.reads)
      if (!read_matches(x, ec)) {
        *why = "'" + x.name + "' differs from the capture";
        return false;
      }
    instr.graph_host_effects(ec, /*before=*/true);
    for (const InputRec& in : r.inputs) {
      const Value* v = ec.find(in.name);
      const auto* mo = v != nullptr ? std::get_if<std::shared_ptr<MatrixObject>>(v) : nullptr;
      const mem::DeviceMatrix* d = mo != nullptr ? (*mo)->device_copy() : nullptr;
      if (d == nullptr) {
        *why = "input '" + in.name + "' is not on the GPU";
        return false;
      }
      if (d->rows() != in.rows || d->cols() != in.cols || d->is_sparse() != in.sparse ||
          d->dtype() != in.dtype || (in.sparse && d->nnz() != in.nnz)) {
        *why = "input '" + in.name + "' differs from the capture";
        return false;
      }
      const void* ptr[3];
      size_t bytes[3];
      parts_of(*d, ptr, bytes);
      for (int p = 0; p < 3; ++p)
        if (in.region[p] != kNone) base_[in.region[p]] = reinterpret_cast<uintptr_t>(ptr[p]);
    }
    std::vector<mem::DeviceAllocation> allocs;
    allocs.reserve(r.allocs.size());
    for (AllocRec& a : r.allocs) {
      allocs.push_back(
          gpu_.memory().allocate_preferring(a.bytes, a.label, gpu_.stream(), a.recent, 2));
      if (flushed_) {  // an eviction's write-back launched the prefix
        *why = "an allocation waited for the device";
        return false;
      }
      const auto got = reinterpret_cast<uintptr_t>(allocs.back().data());
      base_[a.region] = got;
      if (got != a.recent[0]) {
        a.recent[1] = a.recent[0];
        a.recent[0] = got;
      }
    }
    for (const OutputRec& o : r.outputs) {
      const Value* v = ec.find(o.name);
      const auto* mo = v != nullptr ? std::get_if<std::shared_ptr<MatrixObject>>(v) : nullptr;
      if (mo == nullptr) {  // the eager run that follows binds every result again
        *why = "result '" + o.name + "' has no matrix object";
        return false;
      }
      (*mo)->set_device_result(gpu_,
                               mem::DeviceMatrix::adopt_dense(o.rows, o.cols, o.dtype, o.nnz,
                                                              std::move(allocs[o.alloc])),
                               o.name);
    }
    // The launch writes the slot again; the scope of this list run computes the scalar before
    // the next replay can (Note [Deferred scalars]).
    for (const ScalarRec& x : r.scalars)
      ec.set_scalar(x.name, inst::deferred_slot_scalar(gpu_, x.slot));
    instr.graph_host_effects(ec, /*before=*/false);
    return true;  // temporaries return to the manager here (stream order)
  }

  // Launches the graph for instructions [0, upto) of the variant (all: upto = size), on the
  // executable instance that needs the fewest node updates (a new instance, up to
  // kExecsPerVariant, when the kept ones all need some).
  void launch_upto(size_t upto) {
    const size_t cut = upto < v_.instrs.size() ? v_.instrs[upto].first_node : v_.nodes.size();
    Exec* e = nullptr;
    size_t need = SIZE_MAX;
    for (const auto& x : v_.execs) {
      const size_t n = updates_needed(*x, cut);
      if (n < need) {
        need = n;
        e = x.get();
      }
    }
    if (need > 0 && v_.execs.size() < kExecsPerVariant) {
      v_.execs.push_back(new_exec(gpu_.stats(), v_));
      const size_t n = updates_needed(*v_.execs.back(), cut);
      if (n < need) {
        need = n;
        e = v_.execs.back().get();
      }
    }
    int64_t updated = 0;
    for (size_t i = 0; i < cut; ++i) updated += patch(*e, v_.nodes[i]) ? 1 : 0;
    std::vector<cudaGraphNode_t> disabled;
    for (size_t i = cut; i < v_.nodes.size(); ++i) {
      const cudaGraphNodeType t = v_.nodes[i].type;
      if (t == cudaGraphNodeTypeKernel || t == cudaGraphNodeTypeMemcpy ||
          t == cudaGraphNodeTypeMemset) {
        DMLRT_CHECK(cudaGraphNodeSetEnabled(e->exec, v_.nodes[i].node, 0));
        disabled.push_back(v_.nodes[i].node);
      }
    }
    launched_ = true;
    launch(gpu_, e->exec, cb_);
    for (cudaGraphNode_t x : disabled) DMLRT_CHECK(cudaGraphNodeSetEnabled(e->exec, x, 1));
    mem::GpuStats& s = gpu_.stats();
    if (updated > 0) {
      ++s.graph_updated_replays;
      s.graph_node_updates += updated;
    }
  }

  // Ends the replay at instruction cur_ (not bound): the bound prefix runs now.
  void flush(const std::string& why) {
    if (flushed_) return;
    flushed_ = true;
    note_fallback(gpu_, why);
    launch_upto(cur_);
  }

  // gpu::HostSyncHook
  void host_sync(const char* what) override { flush(std::string("host wait: ") + what); }
  // Activity
  void interrupt(const char* why) override { flush(why); }
  // inst::GraphWatch
  void read(const std::string&, const Value*) override {}
  void wrote(const std::string&) override {}
  void gpu_instruction(const Instruction& i, ExecutionContext&) override {
    flush("a GPU instruction outside the graph: " + i.opcode());
  }
  // mem::GraphHook
  void allocated(void*, size_t, const mem::AllocLabel&, bool) override {}
  void released(void*) override {}
  void input(const std::string&, const mem::DeviceMatrix&) override {}
  void output(const std::string&, const mem::DeviceMatrix&) override {}

 private:
  // Whether node n of instance e holds pointers other than this replay's.
  bool stale(const Exec& e, const Node& n) const {
    for (size_t k = 0; k < n.sites.size(); ++k) {
      const Site& s = n.sites[k];
      if (base_[s.region] + s.delta != e.applied[n.first_site + k]) return true;
    }
    return false;
  }

  // The nodes of [0, cut) that instance e would have to update.
  size_t updates_needed(const Exec& e, size_t cut) const {
    size_t n = 0;
    for (size_t i = 0; i < cut; ++i) n += stale(e, v_.nodes[i]) ? 1 : 0;
    return n;
  }

  // Rewrites node n's pointers in instance e where their buffers moved; true when it did.
  bool patch(Exec& e, const Node& n) {
    if (!stale(e, n)) return false;
    uintptr_t* applied = e.applied.data() + n.first_site;
    for (size_t k = 0; k < n.sites.size(); ++k)
      applied[k] = base_[n.sites[k].region] + n.sites[k].delta;
    switch (n.type) {
      case cudaGraphNodeTypeKernel: {
        std::vector<unsigned char> blob = n.blob;
        for (size_t k = 0; k < n.sites.size(); ++k)
          std::memcpy(blob.data() + n.sites[k].where, &applied[k], sizeof applied[k]);
        std::vector<void*> args(n.layout.size());
        for (size_t i = 0; i < n.layout.size(); ++i) args[i] = blob.data() + n.layout[i].first;
        CUDA_KERNEL_NODE_PARAMS k = n.kernel;
        k.kernelParams = args.data();
        const CUresult res = driver().exec_set(reinterpret_cast<CUgraphExec>(e.exec),
                                               reinterpret_cast<CUgraphNode>(n.node), &k);
        DMLRT_REQUIRE(res == CUDA_SUCCESS, RuntimeError,
                      "CUDA graph replay: updating a kernel node failed (CUresult "
                          << static_cast<int>(res) << ")");
        break;
      }
      case cudaGraphNodeTypeMemcpy: {
        cudaMemcpy3DParms p = n.copy;
        for (size_t k = 0; k < n.sites.size(); ++k)
          (n.sites[k].where == 0 ? p.srcPtr.ptr : p.dstPtr.ptr) =
              reinterpret_cast<void*>(applied[k]);
        DMLRT_CHECK(cudaGraphExecMemcpyNodeSetParams(e.exec, n.node, &p));
        break;
      }
      case cudaGraphNodeTypeMemset: {
        cudaMemsetParams p = n.set;
        for (size_t k = 0; k < n.sites.size(); ++k) p.dst = reinterpret_cast<void*>(applied[k]);
        DMLRT_CHECK(cudaGraphExecMemsetNodeSetParams(e.exec, n.node, &p));
        break;
      }
      default:
        break;
    }
    return true;
  }

  mem::GpuSession& gpu_;
  Variant& v_;
  const GraphCallbacks& cb_;
  std::vector<uintptr_t> base_;  // regions' buffers in this replay
  size_t cur_ = 0;
  bool flushed_ = false;
  bool launched_ = false;
};

// ---------------------------------------------------------------- the list driver

bool key_matches(const Variant& v, ExecutionContext& ec) {
  for (const ReadRec& r : v.key)
    if (!read_matches(r, ec)) return false;
  return true;
}

std::shared_ptr<Variant> pick(GraphState& gs, ListState& st, size_t i, ExecutionContext& ec) {
  auto it = st.variants.find(i);
  if (it == st.variants.end()) return nullptr;
  for (auto& v : it->second)
    if (key_matches(*v, ec)) {
      v->last_use = ++gs.clock;
      return v;
    }
  return nullptr;
}

// Drops the variants that contain instruction j (it became a boundary).
void drop_containing(GraphState& gs, ListState& st, size_t j) {
  for (auto it = st.variants.begin(); it != st.variants.end();) {
    auto& vs = it->second;
    const size_t before = vs.size();
    vs.erase(std::remove_if(vs.begin(), vs.end(),
                            [&](const auto& v) { return v->begin <= j && j < v->end; }),
             vs.end());
    gs.count -= before - vs.size();
    it = vs.empty() ? st.variants.erase(it) : std::next(it);
  }
}

// Keeps the session's graphs within dmlrt.gpu.graphs.cache: drops the least recently used.
void bound_cache(mem::GpuSession& gpu, GraphState& gs) {
  const size_t limit = static_cast<size_t>(std::max(1, gpu.options().graph_cache));
  while (gs.count > limit) {
    ListState* where = nullptr;
    size_t start = 0, index = 0;
    uint64_t oldest = UINT64_MAX;
    for (auto& [list, st] : gs.lists)
      for (auto& [s, vs] : st.variants)
        for (size_t k = 0; k < vs.size(); ++k)
          if (vs[k]->last_use < oldest) {
            oldest = vs[k]->last_use;
            where = &st;
            start = s;
            index = k;
          }
    if (where == nullptr) return;
    auto& vs = where->variants[start];
    vs.erase(vs.begin() + static_cast<std::ptrdiff_t>(index));
    if (vs.empty()) where->variants.erase(start);
    --gs.count;
    ++gpu.stats().graph_evictions;
  }
}

// Whether a run that holds its chunk's count of GPU instructions ends here
// (dmlrt.gpu.graphs.chunk): always, never, or once its buffers add up to the given bytes (a loop
// of tiny instructions gains nothing from an early launch and pays one more per chunk).
bool chunk_due(const mem::GpuSession& gpu, const Variant& v) {
  const int64_t min_bytes = gpu.options().graph_chunk_bytes;
  if (min_bytes <= 0) return min_bytes == 0;
  size_t bytes = 0;
  for (const Region& r : v.regions) bytes += r.bytes;
  return bytes >= static_cast<size_t>(min_bytes);
}

// Captures from instruction i; returns the index after the last instruction it ran.
size_t capture(mem::GpuSession& gpu, GraphState& gs, ListState& st, const InstructionList& list,
               size_t i, int max_gpu, ExecutionContext& ec, const GraphCallbacks& cb) {
  // No kept graph matched: a scalar read from outside that changed since the newest one marks the
  // GPU instruction that read it, as a replay's mismatch does (a batch offset becomes a
  // boundary, so the graphs around it are captured without it).
  if (auto it = st.variants.find(i); it != st.variants.end() && !it->second.empty()) {
    const std::shared_ptr<Variant> last = it->second.front();  // kept while variants drop
    for (size_t k = 0; k < last->instrs.size(); ++k)
      for (const ReadRec& x : last->instrs[k].reads)
        if (x.external && x.kind == 1 && !read_matches(x, ec) &&
            ++st.mismatches[last->begin + k] >= kMismatchesToBoundary)
          st.boundary[last->begin + k] = 1;
    for (size_t k = last->begin; k < last->end; ++k)
      if (st.boundary[k]) drop_containing(gs, st, k);
  }
  if (st.boundary[i]) {
    cb.run(i);
    return i + 1;
  }
  auto v = std::make_shared<Variant>();
  v->begin = i;
  size_t j = i;
  const auto t0 = std::chrono::steady_clock::now();
  struct CaptureTime {  // counted however the capture ends (kept, dropped, thrown)
    mem::GpuStats& s;
    std::chrono::steady_clock::time_point t0;
    ~CaptureTime() {
      ++s.graph_capture_runs;
      s.graph_capture_host_s +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
  } timed{gpu.stats(), t0};
  {
    Recorder rec(gpu, st, *v, cb);
    Hooks hooks(&rec, &rec, &rec);
    ActivityScope active(&rec);
    for (; j < list.size() && rec.capturing(); ++j) {
      if (j > i && (st.boundary[j] || (v->gpu_count >= max_gpu && chunk_due(gpu, *v)))) break;
      rec.start(j);
      cb.run(j);
      if (rec.capturing()) rec.finish_instruction();
    }
    if (rec.capturing()) rec.end(j);
    if (!rec.kept()) {
      // Too few GPU instructions between boundaries for a graph: eager from now on.
      for (size_t k = i; k < j; ++k) st.boundary[k] = 1;
      return j;
    }
  }
  ++gpu.stats().graph_captures;
  auto& slot = st.variants[i];
  if (!slot.empty()) ++gpu.stats().graph_recaptures;
  // The key: what the run's GPU instructions read from outside it.
  std::unordered_set<std::string> seen;
  for (const InstrRec& r : v->instrs)
    if (r.gpu)
      for (const ReadRec& x : r.reads)
        if (x.external && seen.insert(x.name).second) v->key.push_back(x);
  v->last_use = ++gs.clock;
  slot.insert(slot.begin(), std::move(v));
  ++gs.count;
  bound_cache(gpu, gs);
  return j;
}

// Replays `v` (its key matched); returns the index after its last instruction.
size_t replay(mem::GpuSession& gpu, GraphState& gs, ListState& st, Variant& v,
              const InstructionList& list, ExecutionContext& ec, const GraphCallbacks& cb) {
  const auto t0 = std::chrono::steady_clock::now();
  Replayer rep(gpu, v, cb);
  size_t mismatch = SIZE_MAX;
  {
    Hooks hooks(&rep, &rep, &rep);
    ActivityScope active(&rep);
    for (size_t j = v.begin; j < v.end; ++j) {
      const size_t k = j - v.begin;
      if (rep.flushed()) {
        cb.run(j);
        continue;
      }
      rep.at(k);
      if (!v.instrs[k].gpu) {
        cb.run(j);
        continue;
      }
      std::string why;
      if (!rep.bind(k, *list[j], ec, &why)) {
        if (!rep.flushed()) mismatch = j;  // not an eviction's wait
        rep.flush("replay mismatch: " + why);
        cb.run(j);
        continue;
      }
      cb.replayed(j);
    }
    if (!rep.flushed()) {
      rep.launch_upto(v.instrs.size());
      mem::GpuStats& s = gpu.stats();
      ++s.graph_replays;
      for (const InstrRec& r : v.instrs) s.graph_replayed_instructions += r.gpu ? 1 : 0;
      s.graph_walked_instructions += static_cast<int64_t>(v.end - v.begin);
      s.graph_replay_host_s +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
  }
  const size_t end = v.end;  // v may be dropped below
  if (mismatch != SIZE_MAX && ++st.mismatches[mismatch] >= kMismatchesToBoundary) {
    st.boundary[mismatch] = 1;
    drop_containing(gs, st, mismatch);
  }
  return end;
}

}  // namespace

bool graphs_enabled(const mem::GpuSession* gpu) {
  return gpu != nullptr && gpu->options().graphs && !gpu->options().sync_each_instruction;
}

void run_with_graphs(mem::GpuSession& gpu, const InstructionList& list, ExecutionContext& ec,
                     const GraphCallbacks& cb) {
  if (t_activity != nullptr) t_activity->interrupt("a nested block or function call");
  // The nested list runs with hooks of its own (or none).
  Hooks clear(nullptr, nullptr, nullptr);
  ActivityScope none(nullptr);
  // GPU scalar results of this run may stay on the device until used (Note [Deferred scalars]);
  // all are read by the end of the run.
  inst::DeferScope defer(&gpu);
  GraphState& gs = state_of(gpu);
  ListState& st = gs.lists[&list];
  const size_t n = list.size();
  if (st.boundary.size() != n) {
    st.boundary.assign(n, 0);
    st.mismatches.assign(n, 0);
  }
  ++st.runs;
  const uint64_t warmup = static_cast<uint64_t>(gpu.options().graph_warmup);
  if (st.runs > warmup && st.runs > st.eager_until && device_bound(gpu, st)) {
    // Note [Device-bound lists]: eager for a while (doubling), then measured again.
    st.eager_until = st.runs + (uint64_t{1} << std::min(st.backoff, 10)) - 1;
    st.backoff = std::min(st.backoff + 1, 10);
    note_fallback(gpu, "device-bound: launches hidden behind the device's work");
  }
  if (st.runs <= warmup || st.runs <= st.eager_until) {
    // The last eager run before graphs are tried is measured.
    const bool measure =
        gpu.options().graph_device_bound > 0 && (st.runs == warmup || st.runs == st.eager_until);
    if (measure) {
      measured_run(gpu, st.probe, n, cb);
    } else {
      for (size_t i = 0; i < n; ++i) cb.run(i);
    }
    defer.finish();
    return;
  }
  size_t i = 0;
  bool captured = false, replayed = false;
  int chunk = kFirstChunk;
  while (i < n) {
    if (st.boundary[i]) {
      cb.run(i++);
      chunk = kFirstChunk;
      continue;
    }
    if (const std::shared_ptr<Variant> v = pick(gs, st, i, ec)) {
      i = replay(gpu, gs, st, *v, list, ec, cb);
      replayed = true;
      continue;
    }
    const int64_t before = gpu.stats().graph_captures;
    i = capture(gpu, gs, st, list, i, chunk, ec, cb);
    captured = captured || gpu.stats().graph_captures != before;
    chunk = std::min(2 * chunk, kMaxChunk);
  }
  // A list that captures on run after run without replaying waits a while (doubling) before it
  // tries again.
  if (replayed) {
    st.captures_without_replay = 0;
    st.backoff = 0;
  } else if (captured && ++st.captures_without_replay >= kCapturesBeforeBackoff) {
    st.eager_until = st.runs + (uint64_t{1} << std::min(st.backoff, 10));
    st.backoff = std::min(st.backoff + 1, 10);
    st.captures_without_replay = 0;
    note_fallback(gpu, "captured again and again: eager for a while");
  }
  defer.finish();
}

#else  // CPU-only build: no graphs

bool graphs_enabled(const mem::GpuSession*) { return false; }

void run_with_graphs(mem::GpuSession&, const InstructionList& list, inst::ExecutionContext&,
                     const GraphCallbacks& cb) {
  for (size_t i = 0; i < list.size(); ++i) cb.run(i);
}

#endif  // DMLRT_WITH_CUDA

}  // namespace dmlrt::runtime
