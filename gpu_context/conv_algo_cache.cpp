// ConvAlgoCache; see conv_algo_cache.h and Note [Conv algorithm cache file].
#include "gpu_context/conv_algo_cache.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "gpu_context/log.h"

namespace dmlrt::gpu {
namespace {

constexpr const char* kFileName = "conv_algos.txt";

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

TuningFileFormat conv_algo_file_format(int64_t cudnn_version) {
  return {"dmlrt-conv-algo-cache", kConvAlgoCacheFormat, "cudnn", "cuDNN", cudnn_version,
          "cuDNN algorithm cache"};
}

std::string format_conv_algo_list(const ConvAlgoList& list) {
  std::string out;
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out += ' ';
    out += list[i].to_string();
  }
  return out;
}

bool parse_conv_algo_list(const std::string& text, ConvAlgoList* out) {
  out->clear();
  for (const std::string& tok : split(text, ' ')) {
    ConvAlgoChoice c;
    if (!ConvAlgoChoice::parse(tok, &c)) {
      out->clear();
      return false;
    }
    out->push_back(c);
  }
  return true;
}

std::string serialize_conv_algo_cache(const ConvAlgoMap& entries, int64_t cudnn_version) {
  TuningEntries text;
  for (const auto& [key, list] : entries) text[key] = format_conv_algo_list(list);
  return serialize_tuning_file(conv_algo_file_format(cudnn_version), text);
}

bool parse_conv_algo_cache(const std::string& text, int64_t cudnn_version, ConvAlgoMap* out,
                           std::string* why) {
  out->clear();
  TuningEntries entries;
  if (!parse_tuning_file(text, conv_algo_file_format(cudnn_version), &entries, why)) return false;
  for (const auto& [key, value] : entries) {
    if (!parse_conv_algo_list(value, &(*out)[key])) {
      out->clear();
      *why = "corrupt (the entry of '" + key + "')";
      return false;
    }
  }
  return true;
}

ConvAlgoCache::ConvAlgoCache(const std::string& dir, int64_t cudnn_version)
    : file_(dir, kFileName, conv_algo_file_format(cudnn_version)) {}

std::vector<std::string> ConvAlgoCache::warnings() const {
  std::vector<std::string> all = file_.warnings();
  all.insert(all.end(), warnings_.begin(), warnings_.end());
  return all;
}

const ConvAlgoList* ConvAlgoCache::find(const ConvAlgoKey& key) {
  const std::string k = key.to_string();
  auto it = lists_.find(k);
  if (it == lists_.end()) {
    const std::string* text = file_.find(k);
    ConvAlgoList list;
    if (text != nullptr && !parse_conv_algo_list(*text, &list)) {
      const std::string msg = "cuDNN algorithm cache " + file() + ": the entry of '" + k +
                              "' is corrupt; timing that shape again";
      warnings_.push_back(msg);
      DMLRT_WARN(msg);
    }
    if (list.empty()) {
      ++misses_;
      return nullptr;
    }
    if (stats_ != nullptr) ++stats_->from_file;
    it = lists_.emplace(k, std::move(list)).first;
  }
  ++hits_;
  return &it->second;
}

void ConvAlgoCache::record_tuning(double seconds) {
  if (stats_ == nullptr) return;
  stats_->seconds += seconds;
  ++stats_->timed;
}

const ConvAlgoList& ConvAlgoCache::insert(const ConvAlgoKey& key, const ConvAlgoList& choices) {
  const std::string k = key.to_string();
  ConvAlgoList& list = lists_[k];
  if (list.empty()) {
    const std::string* text = file_.find(k);
    if (text == nullptr || !parse_conv_algo_list(*text, &list)) list.clear();
  }
  for (const ConvAlgoChoice& c : choices) {
    auto same = std::find_if(list.begin(), list.end(),
                             [&](const ConvAlgoChoice& o) { return o.same_algorithm(c); });
    if (same != list.end())
      *same = c;
    else
      list.push_back(c);
  }
  sort_by_time(list);
  file_.put(k, format_conv_algo_list(list));
  return list;
}

}  // namespace dmlrt::gpu
