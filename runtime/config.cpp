// The -config reader; see config.h. The file format is a flat XML document, so a small reader
// here (prolog, comments, CDATA, entities) keeps XML libraries out of the runtime library.
#include "runtime/config.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "gpu_context/error.h"
#include "gpu_context/string_util.h"

namespace dmlrt::runtime {
namespace {

bool parse_bool(const std::string& key, const std::string& value) {
  const std::string v = to_lower(value);
  if (v == "true") return true;
  if (v == "false") return false;
  DMLRT_FAIL(ParseError, key << ": expected true or false, got '" << value << "'");
}

// A positive finite number, or "off" (case-insensitive) for infinity; `example` is quoted in the
// error.
double parse_positive_or_off(const std::string& key, const std::string& value,
                             const char* example) {
  std::string lower = value;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (lower == "off") return std::numeric_limits<double>::infinity();
  char* end = nullptr;
  const double v = value.empty() ? 0.0 : std::strtod(value.c_str(), &end);
  DMLRT_REQUIRE(!value.empty() && end != nullptr && *end == '\0' && std::isfinite(v) && v > 0,
                ParseError,
                key << ": expected a positive number such as " << example << ", or off, got '"
                    << value << "'");
  return v;
}

int64_t parse_positive_int(const std::string& key, const std::string& value, int64_t max) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  DMLRT_REQUIRE(
      !value.empty() && end != value.c_str() && *end == '\0' && errno == 0 && v > 0 && v <= max,
      ParseError, key << ": expected a positive integer, got '" << value << "'");
  return v;
}

// sysds.num.threads: a positive count, or a value <= 0 for every core (SystemDS's -1).
int parse_thread_count(const std::string& key, const std::string& value) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  DMLRT_REQUIRE(
      !value.empty() && end != value.c_str() && *end == '\0' && errno == 0 && v <= 1024,
      ParseError, key << ": expected a thread count (1 to 1024, or -1 for every core), got '"
                      << value << "'");
  return v <= 0 ? -1 : static_cast<int>(v);
}

// A configuration value that must be a byte count (parse_byte_count_text).
long long parse_byte_count(const std::string& key, const std::string& value) {
  const long long n = parse_byte_count_text(value);
  DMLRT_REQUIRE(
      n > 0, ParseError,
      key << ": expected a positive byte count such as 4096, 512M or 8G, got '" << value << "'");
  return n;
}

// SystemDS accepts -1 (all devices), a device count or id N, a range a-b, or a list a,b,c.
bool valid_gpu_list(const std::string& s) {
  if (s == "-1") return true;
  auto is_uint = [](const std::string& t) {
    return !t.empty() && t.size() < 10 &&
           std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); });
  };
  if (is_uint(s)) return true;
  const size_t dash = s.find('-');
  if (dash != std::string::npos) {
    const std::string a = s.substr(0, dash), b = s.substr(dash + 1);
    return is_uint(a) && is_uint(b) && std::stol(a) <= std::stol(b);
  }
  if (s.find(',') == std::string::npos) return false;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ',')) {
    if (!is_uint(trim(part))) return false;
  }
  return s.back() != ',';
}

// SystemDS keys (conf/DMLConfig.java) that configure parts of SystemDS dmlrt does not have.
const std::set<std::string>& keys_without_effect() {
  static const std::set<std::string> keys = {
      "sysds.localtmpdir",           "sysds.optlevel",
      "sysds.cp.parallel.ops",       "sysds.cp.parallel.io",
      "sysds.parallel.encode",       "sysds.native.blas",
      "sysds.native.blas.directory", "sysds.compressed.linalg",
      "sysds.codegen.enabled",       "sysds.codegen.api",
      "sysds.codegen.compiler",      "sysds.codegen.optimizer",
      "sysds.codegen.plancache",     "sysds.codegen.literals",
      "sysds.stats.finegrained",     "sysds.lineage.cache.spill",
      "sysds.gpu.memory.allocator",  "sysds.gpu.eviction.shadow.bufferSize",
      "sysds.gpu.print.memoryInfo",  "sysds.gpu.place.rulebased",
      "sysds.caching.bufferSize",    "sysds.federated.timeout",
  };
  return keys;
}

// ---- a minimal XML reader for flat config documents ----

class XmlReader {
 public:
  XmlReader(const std::string& text, const std::string& file) : s_(text), file_(file) {}

  std::vector<ConfigEntry> read() {
    std::vector<ConfigEntry> out;
    skip_misc();
    if (at_end()) fail("no root element (expected <root> ... </root>)");
    expect('<');
    const int root_line = line_;
    const std::string root = read_name("root element");
    bool empty_root = skip_attributes();
    if (!empty_root) {
      for (;;) {
        skip_misc();
        if (at_end()) fail_at(root_line, "element <" + root + "> is not closed");
        if (starts_with("</")) {
          pos_ += 2;
          const std::string closing = read_name("closing tag");
          if (closing != root) fail("</" + closing + "> does not close <" + root + ">");
          skip_ws();
          expect('>');
          break;
        }
        if (peek() != '<') fail("text outside an element: '" + snippet() + "'");
        ++pos_;
        out.push_back(read_entry());
      }
    }
    skip_misc();
    if (!at_end()) fail("content after the root element: '" + snippet() + "'");
    return out;
  }

 private:
  ConfigEntry read_entry() {
    ConfigEntry e;
    e.line = line_;
    e.key = read_name("element name");
    if (skip_attributes()) return e;  // <key/>
    std::string raw;
    for (;;) {
      if (at_end()) fail_at(e.line, "element <" + e.key + "> is not closed");
      if (starts_with("<!--")) {
        skip_comment();
      } else if (starts_with("<![CDATA[")) {
        const size_t end = s_.find("]]>", pos_ + 9);
        if (end == std::string::npos) fail("unterminated CDATA section");
        e.value += decode(raw) + s_.substr(pos_ + 9, end - pos_ - 9);  // CDATA is literal
        raw.clear();
        advance_to(end + 3);
      } else if (starts_with("</")) {
        pos_ += 2;
        const std::string closing = read_name("closing tag");
        if (closing != e.key) fail("</" + closing + "> does not close <" + e.key + ">");
        skip_ws();
        expect('>');
        break;
      } else if (peek() == '<') {
        fail("nested element inside <" + e.key + "> (config values are plain text)");
      } else {
        raw += s_[pos_];
        bump();
      }
    }
    e.value = trim(e.value + decode(raw));
    return e;
  }

  std::string decode(const std::string& raw) {
    std::string out;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        out += raw[i];
        continue;
      }
      const size_t semi = raw.find(';', i);
      if (semi == std::string::npos) fail("unterminated entity '" + raw.substr(i, 10) + "'");
      const std::string ent = raw.substr(i + 1, semi - i - 1);
      if (ent == "lt")
        out += '<';
      else if (ent == "gt")
        out += '>';
      else if (ent == "amp")
        out += '&';
      else if (ent == "quot")
        out += '"';
      else if (ent == "apos")
        out += '\'';
      else if (!ent.empty() && ent[0] == '#') {
        const bool hex = ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X');
        char* end = nullptr;
        const std::string digits = ent.substr(hex ? 2 : 1);
        const unsigned long cp = std::strtoul(digits.c_str(), &end, hex ? 16 : 10);
        if (digits.empty() || *end != '\0' || cp == 0 || cp > 0x10FFFF) {
          fail("bad character reference '&" + ent + ";'");
        }
        append_utf8(out, cp);
      } else {
        fail("unknown entity '&" + ent + ";'");
      }
      i = semi;
    }
    return out;
  }

  static void append_utf8(std::string& out, unsigned long cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // After an element name: attributes up to '>' (returns false) or '/>' (returns true).
  bool skip_attributes() {
    char quote = 0;
    while (!at_end()) {
      const char c = peek();
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        bump();
        return false;
      } else if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '>') {
        bump();
        bump();
        return true;
      } else if (c == '<') {
        fail("'<' inside a tag");
      }
      bump();
    }
    fail("unterminated tag");
  }

  std::string read_name(const char* what) {
    const size_t start = pos_;
    while (!at_end()) {
      const unsigned char c = static_cast<unsigned char>(peek());
      if (std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == ':' || c >= 0x80) {
        bump();
      } else {
        break;
      }
    }
    if (pos_ == start) fail(std::string("expected an ") + what + ", found '" + snippet() + "'");
    return s_.substr(start, pos_ - start);
  }

  // White space, comments, the XML declaration, processing instructions and DOCTYPE.
  void skip_misc() {
    for (;;) {
      skip_ws();
      if (starts_with("<!--")) {
        skip_comment();
      } else if (starts_with("<?")) {
        skip_past("?>", "unterminated processing instruction");
      } else if (starts_with("<!DOCTYPE")) {
        skip_past(">", "unterminated DOCTYPE");
      } else {
        return;
      }
    }
  }
  void skip_comment() { skip_past("-->", "unterminated comment"); }
  void skip_past(const char* end, const char* message) {
    const size_t at = s_.find(end, pos_);
    if (at == std::string::npos) fail(message);
    advance_to(at + std::char_traits<char>::length(end));
  }
  void advance_to(size_t p) {
    while (pos_ < p) bump();
  }
  void skip_ws() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(peek()))) bump();
  }
  void expect(char c) {
    if (at_end() || peek() != c)
      fail(std::string("expected '") + c + "', found '" + snippet() + "'");
    bump();
  }
  bool starts_with(const char* t) const {
    return s_.compare(pos_, std::char_traits<char>::length(t), t) == 0;
  }
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return s_[pos_]; }
  void bump() {
    if (s_[pos_] == '\n') ++line_;
    ++pos_;
  }
  std::string snippet() const {
    if (at_end()) return "end of file";
    std::string t = s_.substr(pos_, 20);
    const size_t nl = t.find('\n');
    return nl == std::string::npos ? t : t.substr(0, nl);
  }
  [[noreturn]] void fail(const std::string& msg) const { fail_at(line_, msg); }
  [[noreturn]] void fail_at(int line, const std::string& msg) const {
    DMLRT_FAIL(ParseError, file_ << ":" << line << ": malformed config XML: " << msg);
  }

  const std::string& s_;
  const std::string& file_;
  size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

long long parse_byte_count_text(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  std::string suffix = text.substr(i);
  std::transform(suffix.begin(), suffix.end(), suffix.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  long long mult = 0;
  if (suffix.empty() || suffix == "B")
    mult = 1;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB")
    mult = 1LL << 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB")
    mult = 1LL << 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB")
    mult = 1LL << 30;
  else if (suffix == "T" || suffix == "TB" || suffix == "TIB")
    mult = 1LL << 40;
  errno = 0;
  const long long n = i == 0 || i > 18 ? 0 : std::strtoll(text.substr(0, i).c_str(), nullptr, 10);
  if (i == 0 || mult == 0 || errno != 0 || n <= 0 || n > (1LL << 62) / mult) return -1;
  return n * mult;
}

FloatPrecision parse_precision(const std::string& value, const std::string& what) {
  const std::string v = to_lower(value);
  if (v == "double") return FloatPrecision::kDouble;
  if (v == "single") return FloatPrecision::kSingle;
  DMLRT_FAIL(ParseError, what << ": expected double or single, got '" << value << "'");
}

const char* precision_name(FloatPrecision p) {
  return p == FloatPrecision::kDouble ? "double" : "single";
}

bool apply_config_key(RuntimeConfig& config, const std::string& key, const std::string& value,
                      std::vector<std::string>* warnings) {
  if (key == "sysds.floating.point.precision") {
    config.precision = parse_precision(value, key);
  } else if (key == "sysds.gpu.availableGPUs") {
    if (valid_gpu_list(value)) {
      config.memory.available_gpus = value;
    } else {
      // SystemDS falls back on all devices here too, with a warning.
      config.memory.available_gpus = "-1";
      if (warnings) {
        warnings->push_back(key + ": invalid device list '" + value +
                            "' (expected -1, N, a-b or a,b,c); using all devices");
      }
    }
  } else if (key == "sysds.gpu.eviction.policy") {
    config.memory.policy = mem::parse_eviction_policy(value);
  } else if (key == "sysds.gpu.memory.util.factor") {
    config.memory.util_factor = mem::parse_util_factor(value);
  } else if (key == "sysds.gpu.sync.postProcess") {
    config.gpu_sync_post_process = parse_bool(key, value);
  } else if (key == "dmlrt.stats.gpu.events") {
    config.stats_gpu_events = parse_bool(key, value);
  } else if (key == "sysds.gpu.eager.cudaFree") {
    config.gpu_eager_cuda_free = parse_bool(key, value);
  } else if (key == "sysds.stats.maxWrapLength") {
    config.stats_max_wrap_length = static_cast<int>(parse_positive_int(key, value, 1 << 20));
  } else if (key == "sysds.num.threads") {
    config.num_threads = parse_thread_count(key, value);
  } else if (key == "sysds.defaultblocksize") {
    config.default_block_size = parse_positive_int(key, value, int64_t{1} << 31);
  } else if (key == "sysds.scratch") {
    DMLRT_REQUIRE(!value.empty(), ParseError, key << ": expected a directory name, got ''");
    config.scratch = value;
  } else if (key == "dmlrt.gpu.cudnn.deterministic") {
    config.cudnn_deterministic = parse_bool(key, value);
  } else if (key == "dmlrt.gpu.allow.tf32") {
    config.allow_tf32 = parse_bool(key, value);
  } else if (key == "dmlrt.gpu.cudnn.graph") {
    config.cudnn_graph = parse_bool(key, value);
  } else if (key == "dmlrt.gpu.cudnn.cache.dir") {
    DMLRT_REQUIRE(!value.empty(), ParseError, key << ": expected a directory name or none, got ''");
    config.cudnn_cache_dir = value;
  } else if (key == "dmlrt.gpu.gemm.plans.persist") {
    config.persist_gemm_plans = parse_bool(key, value);
  } else if (key == "dmlrt.gpu.graphs") {
    const std::string v = to_lower(value);
    DMLRT_REQUIRE(v == "on" || v == "off" || v == "true" || v == "false", ParseError,
                  key << ": expected on or off, got '" << value << "'");
    config.gpu_graphs = v == "on" || v == "true";
  } else if (key == "dmlrt.gpu.graphs.cache") {
    config.gpu_graph_cache = static_cast<int>(parse_positive_int(key, value, 1 << 16));
  } else if (key == "dmlrt.gpu.graphs.chunk") {
    const std::string v = to_lower(value);
    if (v == "always")
      config.gpu_graph_chunk_bytes = 0;
    else if (v == "never")
      config.gpu_graph_chunk_bytes = -1;
    else {
      const long long n = parse_byte_count_text(value);
      DMLRT_REQUIRE(n > 0, ParseError,
                    key << ": expected always, never or a positive byte count such as 1M, got '"
                        << value << "'");
      config.gpu_graph_chunk_bytes = n;
    }
  } else if (key == "dmlrt.gpu.graphs.device.bound") {
    const double r = parse_positive_or_off(key, value, "2");
    config.gpu_graph_device_bound = std::isinf(r) ? 0.0 : r;
  } else if (key == "dmlrt.gpu.graphs.warmup") {
    config.gpu_graph_warmup = static_cast<int>(parse_positive_int(key, value, 1 << 20));
  } else if (key == "dmlrt.gpu.parfor.workers.per.gpu") {
    config.parfor_workers_per_gpu = static_cast<int>(parse_positive_int(key, value, 64));
  } else if (key == "dmlrt.gpu.cudnn.fp32.tolerance") {
    config.fp32_conv_tolerance = parse_positive_or_off(key, value, "1e-4");
  } else if (key == "dmlrt.gpu.dnn.budget") {
    config.dnn_budget_bytes = parse_byte_count(key, value);
  } else if (key == "dmlrt.rewrite.fuse_conv_relu") {
    config.rewrite_fuse_conv_relu = parse_bool(key, value);
  } else if (key == "dmlrt.rewrite.fuse_cellwise") {
    config.rewrite_fuse_cellwise = parse_bool(key, value);
  } else if (key == "dmlrt.rewrite.fold_transpose") {
    config.rewrite_fold_transpose = parse_bool(key, value);
  } else {
    return false;
  }
  return true;
}

std::vector<ConfigEntry> parse_config_xml(const std::string& text, const std::string& file) {
  return XmlReader(text, file).read();
}

void parse_config(const std::string& text, const std::string& file, RuntimeConfig& config,
                  ConfigMessages* messages) {
  std::vector<std::string> scratch_warnings;
  std::vector<std::string>* warnings = messages ? &messages->warnings : &scratch_warnings;
  std::set<std::string> seen;
  for (const ConfigEntry& e : parse_config_xml(text, file)) {
    const std::string where = file + ":" + std::to_string(e.line) + ": ";
    if (!seen.insert(e.key).second) {
      warnings->push_back(where + e.key + ": given more than once; the last value wins");
    }
    std::vector<std::string> key_warnings;
    bool known = false;
    try {
      known = apply_config_key(config, e.key, e.value, &key_warnings);
    } catch (const ParseError& err) {
      throw ParseError(where + err.what());
    }
    for (const std::string& w : key_warnings) warnings->push_back(where + w);
    if (known) continue;
    if (keys_without_effect().count(e.key)) {
      if (messages) messages->notes.push_back(where + e.key + ": has no effect in dmlrt; ignored");
    } else if (e.key.rfind("sysds.", 0) == 0) {
      warnings->push_back(where + "unknown key '" + e.key + "'; ignored");
    } else {
      warnings->push_back(where + "'" + e.key + "' is not a sysds.* key; ignored");
    }
  }
}

void read_config_file(const std::string& path, RuntimeConfig& config, ConfigMessages* messages) {
  std::ifstream in(path, std::ios::binary);
  DMLRT_REQUIRE(in.good(), IoError, path << ": cannot read the config file");
  std::ostringstream ss;
  ss << in.rdbuf();
  DMLRT_REQUIRE(!in.bad(), IoError, path << ": error while reading the config file");
  parse_config(ss.str(), path, config, messages);
}

}  // namespace dmlrt::runtime
