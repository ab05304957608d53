// TuningFile: one persisted table of tuning results (a one-line key -> a one-line value), kept in
// memory and in one text file of the tuning cache directory, so that what dmlrt times once per
// shape (cuDNN convolution algorithms: ConvAlgoCache; small GEMM plans: kernels/cuda/
// gemm_planner.h) is timed once per machine and library version rather than once per run.
// Device-free (compiled in every build, unit-tested).
//
// Note [Tuning cache files]
// <dir>/<name>, where dir is dmlrt.gpu.cudnn.cache.dir, else $XDG_CACHE_HOME/dmlrt, else
// ~/.cache/dmlrt ("none": memory only). Text, one entry per line:
//   <magic> <format version> <library>=<library version>
//   <key>\t<value>
//   checksum <16 hex digits: FNV-1a 64 of every byte before this line>
// A file that is truncated, corrupt (bad checksum or line) or stale (another format or library
// version) is ignored with one warning and rewritten at the next save. Saves merge the entries
// the file holds now (another process may have added some) with ours, write a temporary file
// and rename it over the old one, so a reader never sees half a file. An unwritable directory
// gets one warning; the table then stays in memory. Values are the owner's to parse: one that
// does not parse is the owner's to ignore (and re-time).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dmlrt::gpu {

// What makes a file valid for this process: its first line.
struct TuningFileFormat {
  std::string magic;          // e.g. "dmlrt-conv-algo-cache"
  int format = 0;             // bumped at every change of the values' meaning
  std::string library;        // header field name, e.g. "cudnn"
  std::string library_label;  // in messages, e.g. "cuDNN"
  int64_t library_version = 0;
  std::string what;  // the table in messages, e.g. "cuDNN algorithm cache"
};

using TuningEntries = std::map<std::string, std::string>;

// What one kind of tuning cost in a run, for -stats (memory/gpu_stats.h): seconds spent timing
// candidates, shapes timed, shapes whose choice came from the persisted table instead.
struct TuningStats {
  double seconds = 0.0;
  int64_t timed = 0;
  int64_t from_file = 0;
};

// File text of `entries` (keys and values made line-safe), checksum included.
std::string serialize_tuning_file(const TuningFileFormat& fmt, const TuningEntries& entries);
// Parses file text written for `fmt` into `out`; false with `why` set when the text is truncated,
// corrupt or stale (out is then left empty).
bool parse_tuning_file(const std::string& text, const TuningFileFormat& fmt, TuningEntries* out,
                       std::string* why);
// FNV-1a 64 of `text` as 16 lower-case hex digits.
std::string tuning_checksum(const std::string& text);
// $XDG_CACHE_HOME/dmlrt, else $HOME/.cache/dmlrt; "" when neither variable is set.
std::string default_tuning_dir();
// Tabs and line ends replaced by '_': a key or value that fits on its line.
std::string line_safe(std::string s);

class TuningFile {
 public:
  // dir: "" = default_tuning_dir(), "none" = memory only; file_name within it.
  TuningFile(const std::string& dir, const std::string& file_name, TuningFileFormat fmt);

  // The file the table persists to; "" when memory only.
  const std::string& path() const { return path_; }
  const TuningFileFormat& format() const { return fmt_; }

  // Every entry; the file is read on the first call.
  const TuningEntries& entries();
  // Entries in memory (the file's once read).
  size_t size() const { return entries_.size(); }
  // The value of `key`, or null.
  const std::string* find(const std::string& key);
  // Sets `key` to `value` in memory and saves the file.
  void put(const std::string& key, const std::string& value);
  // Sets several entries with one save.
  void put_all(const TuningEntries& entries);

  // Every warning logged (tests read them).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void load();
  void save();
  void warn(const std::string& msg);
  // The file's entries, or false (with `why`) when it is missing, unreadable or invalid.
  bool read_file(TuningEntries* out, std::string* why, bool* missing) const;

  std::string path_;
  TuningFileFormat fmt_;
  bool loaded_ = false;
  bool writable_ = true;
  TuningEntries entries_;
  std::vector<std::string> warnings_;
};

}  // namespace dmlrt::gpu
