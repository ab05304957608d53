// ConvAlgoCache: the timed cuDNN convolution algorithms of every shape seen, in memory and
// persisted in one text file per cache directory, so that a shape is timed once per machine and
// cuDNN version rather than once per run (reference/peers-and-perf.md §1a: a find costs 72 ms
// median and up to 1.6 s per pass). Device-free (compiled in every build, unit-tested).
//
// Note [Conv algorithm cache file]
// <dir>/conv_algos.txt, a TuningFile (Note [Tuning cache files] in tuning_file.h: header with
// cudnn=<version>, checksum, merge-on-save, atomic rename, one warning for a bad file), one entry
// per line: <key>\t<choice> <choice> ... (choices fastest first; see ConvAlgoChoice::to_string).
// An entry whose choices do not parse is a miss (re-timed and rewritten), with one warning.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpu_context/tuning_file.h"

namespace dmlrt::gpu {

enum class ConvPass { kForward, kBackwardData, kBackwardFilter };
const char* conv_pass_name(ConvPass pass);  // "fwd", "bwd_data", "bwd_filter"

// Everything the timing of one convolution depends on.
struct ConvAlgoKey {
  ConvPass pass = ConvPass::kForward;
  int64_t n = 0, c = 0, h = 0, w = 0;  // the batch chunk's images (NCHW)
  int64_t k = 0, r = 0, s = 0;         // filters (K x C x R x S)
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  std::string dtype;           // "fp64" | "fp32"
  int math_type = 0;           // the cudnnMathType_t requested on the convolution descriptor
  bool deterministic = false;  // deterministic algorithms only
  bool graph_engines = false;  // graph-API engines timed along with the legacy algorithms
  // The FP32 accuracy check the list passed ("1e-04"; "off" where nothing was checked: FP64,
  // TF32, or dmlrt.gpu.cudnn.fp32.tolerance off).
  std::string accuracy = "off";
  std::string device;         // device name and compute capability
  int64_t cudnn_version = 0;  // cudnnGetVersion()
  // One line-safe token (no tab or newline), the map key and the key column of the file.
  std::string to_string() const;
};

// What ran: a legacy algorithm (cudnnConvolution*Algo_t) or a graph-API engine configuration
// (global engine index plus knob choices; kernels/cuda/dnn_conv_graph.h rebuilds its plan).
enum class ConvAlgoKind { kLegacy, kEngine };

// One knob choice of an engine configuration: cudnnBackendKnobType_t and its value.
struct ConvKnob {
  int64_t type = 0;
  int64_t value = 0;
  bool operator==(const ConvKnob& o) const { return type == o.type && value == o.value; }
};

struct ConvAlgoChoice {
  ConvAlgoKind kind = ConvAlgoKind::kLegacy;
  int algo = 0;  // the legacy enum value, or the engine's global index
  // Legacy: the cudnnMathType_t the algorithm ran with. Engine: CUDNN_TENSOR_OP_MATH (1) when the
  // engine carries CUDNN_NUMERICAL_NOTE_TENSOR_CORE, else CUDNN_DEFAULT_MATH (0); informative only.
  int math_type = 0;
  uint64_t workspace_bytes = 0;
  double time_ms = 0.0;         // as measured by the find
  std::vector<ConvKnob> knobs;  // engine only, in the order cuDNN reported them
  // Legacy "L:<algo>:<math>:<workspace>:<time>"; engine "E:<engine>:<math>:<workspace>:<time>:
  // <knobs>" with knobs "<type>=<value>,..." or "-" when there are none.
  std::string to_string() const;
  // Parses to_string's form; false when malformed.
  static bool parse(const std::string& text, ConvAlgoChoice* out);
  bool same_algorithm(const ConvAlgoChoice& o) const {
    return kind == o.kind && algo == o.algo && math_type == o.math_type && knobs == o.knobs;
  }
};

using ConvAlgoList = std::vector<ConvAlgoChoice>;
using ConvAlgoMap = std::map<std::string, ConvAlgoList>;

// The bumped version invalidates every file written before a format change (2: engine choices
// with knobs; lists of format 1 hold legacy algorithms only and would never be re-timed; 3: FP32
// lists hold accuracy-checked choices only, Note [FP32 algorithm accuracy] in
// kernels/cuda/dnn_conv_op.cpp, where lists of format 2 may hold inaccurate ones; 4:
// every candidate timed back to back on a busy stream, Note [Timing candidates warm] in
// kernels/cuda/dnn_conv.cpp, where lists of format 3 were sorted by cold or isolated runs that
// put the r50.s4 FP32 forward's Winograd behind a 1.26x slower engine, and found within a 4 GiB
// workspace cap that left out VGG conv1_2's FP32 FFT backward filter).
constexpr int kConvAlgoCacheFormat = 4;

// The file's first line for cuDNN `cudnn_version`.
TuningFileFormat conv_algo_file_format(int64_t cudnn_version);
// A list as one line ("<choice> <choice> ..."), and back (false when a choice is malformed).
std::string format_conv_algo_list(const ConvAlgoList& list);
bool parse_conv_algo_list(const std::string& text, ConvAlgoList* out);
// File text of `entries` for cuDNN `cudnn_version`, checksum included.
std::string serialize_conv_algo_cache(const ConvAlgoMap& entries, int64_t cudnn_version);
// Parses file text written for `cudnn_version` into `out`; false with `why` set when the text
// is truncated, corrupt or stale (out is then left empty).
bool parse_conv_algo_cache(const std::string& text, int64_t cudnn_version, ConvAlgoMap* out,
                           std::string* why);

class ConvAlgoCache {
 public:
  // dir: "" = the default directory (default_dir()), "none" = memory only.
  ConvAlgoCache(const std::string& dir, int64_t cudnn_version);

  // $XDG_CACHE_HOME/dmlrt, else $HOME/.cache/dmlrt; "" when neither variable is set.
  static std::string default_dir() { return default_tuning_dir(); }

  // The file the cache persists to; "" when memory only.
  const std::string& file() const { return file_.path(); }

  // The cached list of `key` (fastest first), or null. The file is read on the first lookup.
  // Counts a hit or a miss.
  const ConvAlgoList* find(const ConvAlgoKey& key);
  // Sets key's list to `choices` merged with what it held (one entry per algorithm, the newer
  // timing wins), time-sorted, saves the file, and returns the merged list.
  const ConvAlgoList& insert(const ConvAlgoKey& key, const ConvAlgoList& choices);

  // -stats counters (null: none): a shape first answered by the file counts as from_file;
  // record_tuning adds the time of a find.
  void set_stats(TuningStats* stats) { stats_ = stats; }
  void record_tuning(double seconds);

  // Entries in the table (the file's once read, at the first lookup).
  size_t size() const { return file_.size(); }
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }
  // Every warning this cache logged (tests read them).
  std::vector<std::string> warnings() const;

 private:
  TuningFile file_;
  ConvAlgoMap lists_;  // the entries parsed so far
  int64_t hits_ = 0, misses_ = 0;
  std::vector<std::string> warnings_;  // entries that did not parse
  TuningStats* stats_ = nullptr;
};

}  // namespace dmlrt::gpu
