// ConvAlgoCache; see conv_algo_cache.h and Note [Conv algorithm cache file].
#include "gpu_context/conv_algo_cache.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpu_context/log.h"

namespace dmlrt::gpu {
namespace {

constexpr const char* kMagic = "dmlrt-conv-algo-cache";
constexpr const char* kFileName = "conv_algos.txt";

std::string line_safe(std::string s) {
  for (char& ch : s)
    if (ch == '\t' || ch == '\n' || ch == '\r') ch = '_';
  return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

bool parse_int(const std::string& s, long long* v) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  *v = std::strtoll(s.c_str(), &end, 10);
  return errno == 0 && end == s.c_str() + s.size();
}

std::string header_line(int64_t cudnn_version) {
  std::ostringstream os;
  os << kMagic << ' ' << kConvAlgoCacheFormat << " cudnn=" << cudnn_version;
  return os.str();
}

void sort_by_time(ConvAlgoList& list) {
  std::stable_sort(list.begin(), list.end(), [](const ConvAlgoChoice& a, const ConvAlgoChoice& b) {
    return a.time_ms < b.time_ms;
  });
}

}  // namespace

const char* conv_pass_name(ConvPass pass) {
  switch (pass) {
    case ConvPass::kForward:
      return "fwd";
    case ConvPass::kBackwardData:
      return "bwd_data";
    case ConvPass::kBackwardFilter:
      return "bwd_filter";
  }
  return "?";
}

std::string ConvAlgoKey::to_string() const {
  std::ostringstream os;
  os << conv_pass_name(pass) << " n=" << n << " c=" << c << " h=" << h << " w=" << w << " k=" << k
     << " r=" << r << " s=" << s << " stride=" << stride_h << "," << stride_w << " pad=" << pad_h
     << "," << pad_w << " " << dtype << " math=" << math_type << " det=" << (deterministic ? 1 : 0)
     << " graph=" << (graph_engines ? 1 : 0) << " acc=" << accuracy << " cudnn=" << cudnn_version
     << " dev=" << device;
  return line_safe(os.str());
}

std::string ConvAlgoChoice::to_string() const {
  char time[32];
  std::snprintf(time, sizeof time, "%.6g", time_ms);
  std::ostringstream os;
  os << (kind == ConvAlgoKind::kLegacy ? 'L' : 'E') << ':' << algo << ':' << math_type << ':'
     << workspace_bytes << ':' << time;
  if (kind == ConvAlgoKind::kEngine) {
    os << ':';
    if (knobs.empty()) os << '-';
    for (size_t i = 0; i < knobs.size(); ++i)
      os << (i > 0 ? "," : "") << knobs[i].type << '=' << knobs[i].value;
  }
  return os.str();
}

bool ConvAlgoChoice::parse(const std::string& text, ConvAlgoChoice* out) {
  const std::vector<std::string> f = split(text, ':');
  if (f.empty() || (f[0] != "L" && f[0] != "E")) return false;
  const bool engine = f[0] == "E";
  if (f.size() != (engine ? 6u : 5u)) return false;
  long long algo = 0, math = 0, ws = 0;
  if (!parse_int(f[1], &algo) || !parse_int(f[2], &math) || !parse_int(f[3], &ws)) return false;
  if (algo < 0 || algo > (1 << 30) || math < 0 || math > 255 || ws < 0) return false;
  char* end = nullptr;
  const double t = std::strtod(f[4].c_str(), &end);
  if (f[4].empty() || end != f[4].c_str() + f[4].size() || !(t >= 0)) return false;
  std::vector<ConvKnob> knobs;
  if (engine && f[5] != "-") {
    for (const std::string& kv : split(f[5], ',')) {
      const size_t eq = kv.find('=');
      long long type = 0, value = 0;
      if (eq == std::string::npos || !parse_int(kv.substr(0, eq), &type) ||
          !parse_int(kv.substr(eq + 1), &value) || type < 0 || type > 1023)
        return false;
      knobs.push_back({type, value});
    }
  }
  out->kind = engine ? ConvAlgoKind::kEngine : ConvAlgoKind::kLegacy;
  out->algo = static_cast<int>(algo);
  out->math_type = static_cast<int>(math);
  out->workspace_bytes = static_cast<uint64_t>(ws);
  out->time_ms = t;
  out->knobs = std::move(knobs);
  return true;
}

std::string conv_algo_checksum(const std::string& text) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string serialize_conv_algo_cache(const ConvAlgoMap& entries, int64_t cudnn_version) {
  std::string body = header_line(cudnn_version) + "\n";
  for (const auto& [key, list] : entries) {
    body += line_safe(key);
    body += '\t';
    for (size_t i = 0; i < list.size(); ++i) {
      if (i > 0) body += ' ';
      body += list[i].to_string();
    }
    body += '\n';
  }
  return body + "checksum " + conv_algo_checksum(body) + "\n";
}

bool parse_conv_algo_cache(const std::string& text, int64_t cudnn_version, ConvAlgoMap* out,
                           std::string* why) {
  out->clear();
  auto fail = [&](const std::string& w) {
    out->clear();
    *why = w;
    return false;
  };
  // The checksum line is the last one and covers everything before it.
  if (text.size() < 2 || text.back() != '\n') return fail("truncated (no final line end)");
  const size_t last = text.rfind('\n', text.size() - 2);
  const std::string body = last == std::string::npos ? "" : text.substr(0, last + 1);
  const std::string sum_line = text.substr(body.size(), text.size() - body.size() - 1);
  if (sum_line.rfind("checksum ", 0) != 0) return fail("truncated or corrupt (no checksum line)");
  if (sum_line.substr(9) != conv_algo_checksum(body)) return fail("corrupt (checksum mismatch)");
  std::vector<std::string> lines = split(body, '\n');
  lines.pop_back();  // body ends with '\n'
  if (lines.empty()) return fail("corrupt (no header)");
  std::istringstream header(lines[0]);
  std::string magic, cudnn_field;
  long long format = -1;
  header >> magic >> format >> cudnn_field;
  if (magic != kMagic) return fail("corrupt (not a dmlrt algorithm cache)");
  if (format != kConvAlgoCacheFormat) {
    std::ostringstream os;
    os << "stale (format version " << format << ", expected " << kConvAlgoCacheFormat << ")";
    return fail(os.str());
  }
  long long file_cudnn = -1;
  if (cudnn_field.rfind("cudnn=", 0) != 0 || !parse_int(cudnn_field.substr(6), &file_cudnn))
    return fail("corrupt (bad header '" + lines[0] + "')");
  if (file_cudnn != cudnn_version) {
    std::ostringstream os;
    os << "stale (written for cuDNN " << file_cudnn << ", this is cuDNN " << cudnn_version << ")";
    return fail(os.str());
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t tab = lines[i].find('\t');
    if (tab == std::string::npos || tab == 0)
      return fail("corrupt (line " + std::to_string(i + 1) + ")");
    ConvAlgoList list;
    for (const std::string& tok : split(lines[i].substr(tab + 1), ' ')) {
      ConvAlgoChoice c;
      if (!ConvAlgoChoice::parse(tok, &c))
        return fail("corrupt (line " + std::to_string(i + 1) + ")");
      list.push_back(c);
    }
    (*out)[lines[i].substr(0, tab)] = std::move(list);
  }
  return true;
}

ConvAlgoCache::ConvAlgoCache(const std::string& dir, int64_t cudnn_version)
    : cudnn_version_(cudnn_version) {
  if (dir == "none") return;
  const std::string d = dir.empty() ? default_dir() : dir;
  if (!d.empty()) file_ = (std::filesystem::path(d) / kFileName).string();
}

std::string ConvAlgoCache::default_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && *xdg != '\0') return (std::filesystem::path(xdg) / "dmlrt").string();
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0')
    return (std::filesystem::path(home) / ".cache" / "dmlrt").string();
  return "";
}

void ConvAlgoCache::warn(const std::string& msg) {
  warnings_.push_back(msg);
  DMLRT_WARN(msg);
}

bool ConvAlgoCache::read_file(ConvAlgoMap* out, std::string* why, bool* missing) const {
  out->clear();
  *missing = false;
  std::error_code ec;
  if (!std::filesystem::exists(file_, ec)) {
    *missing = true;
    return false;
  }
  std::ifstream in(file_, std::ios::binary);
  if (!in) {
    *why = std::string("unreadable (") + std::strerror(errno) + ")";
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_conv_algo_cache(ss.str(), cudnn_version_, out, why);
}

void ConvAlgoCache::load() {
  loaded_ = true;
  if (file_.empty()) return;
  std::string why;
  bool missing = false;
  ConvAlgoMap from_file;
  if (read_file(&from_file, &why, &missing)) {
    entries_ = std::move(from_file);
    DMLRT_DEBUG("cuDNN algorithm cache " << file_ << ": " << entries_.size() << " shapes");
  } else if (!missing) {
    warn("cuDNN algorithm cache " + file_ + " is " + why +
         "; ignoring it (it is rewritten at the next save)");
  }
}

const ConvAlgoList* ConvAlgoCache::find(const ConvAlgoKey& key) {
  if (!loaded_) load();
  const auto it = entries_.find(key.to_string());
  if (it == entries_.end() || it->second.empty()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  return &it->second;
}

const ConvAlgoList& ConvAlgoCache::insert(const ConvAlgoKey& key, const ConvAlgoList& choices) {
  if (!loaded_) load();
  ConvAlgoList& list = entries_[key.to_string()];
  for (const ConvAlgoChoice& c : choices) {
    auto same = std::find_if(list.begin(), list.end(),
                             [&](const ConvAlgoChoice& o) { return o.same_algorithm(c); });
    if (same != list.end())
      *same = c;
    else
      list.push_back(c);
  }
  sort_by_time(list);
  save();
  return list;
}

void ConvAlgoCache::save() {
  if (file_.empty() || !writable_) return;
  // Entries another process saved meanwhile are kept; ours win on the same key.
  ConvAlgoMap merged;
  std::string why;
  bool missing = false;
  if (!read_file(&merged, &why, &missing)) merged.clear();
  for (const auto& [key, list] : entries_) merged[key] = list;
  const std::string text = serialize_conv_algo_cache(merged, cudnn_version_);

  const std::filesystem::path path(file_);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  // pid and a process-wide counter: two GPU sessions of one process (Connections on threads)
  // never write the same temporary.
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = file_ + ".tmp." + std::to_string(static_cast<long>(getpid())) + "." +
                          std::to_string(counter++);
  std::string error;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      error = ec ? ec.message() : std::strerror(errno);
    } else {
      out << text;
      out.flush();
      if (!out) error = "write failed";
    }
  }
  if (error.empty() && std::rename(tmp.c_str(), file_.c_str()) != 0) error = std::strerror(errno);
  if (!error.empty()) {
    std::filesystem::remove(tmp, ec);
    writable_ = false;
    warn("cannot write cuDNN algorithm cache " + file_ + ": " + error +
         "; keeping it in memory for this run");
  }
}

}  // namespace dmlrt::gpu
