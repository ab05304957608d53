// TuningFile; see tuning_file.h and Note [Tuning cache files].
#include "gpu_context/tuning_file.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "gpu_context/log.h"

namespace dmlrt::gpu {
namespace {

bool parse_int(const std::string& s, long long* v) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  *v = std::strtoll(s.c_str(), &end, 10);
  return errno == 0 && end == s.c_str() + s.size();
}

std::string header_line(const TuningFileFormat& fmt) {
  std::ostringstream os;
  os << fmt.magic << ' ' << fmt.format << ' ' << fmt.library << '=' << fmt.library_version;
  return os.str();
}

}  // namespace

std::string line_safe(std::string s) {
  for (char& ch : s)
    if (ch == '\t' || ch == '\n' || ch == '\r') ch = '_';
  return s;
}

std::string tuning_checksum(const std::string& text) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string serialize_tuning_file(const TuningFileFormat& fmt, const TuningEntries& entries) {
  std::string body = header_line(fmt) + "\n";
  for (const auto& [key, value] : entries) {
    body += line_safe(key);
    body += '\t';
    body += line_safe(value);
    body += '\n';
  }
  return body + "checksum " + tuning_checksum(body) + "\n";
}

bool parse_tuning_file(const std::string& text, const TuningFileFormat& fmt, TuningEntries* out,
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
  if (sum_line.substr(9) != tuning_checksum(body)) return fail("corrupt (checksum mismatch)");
  std::istringstream lines(body);
  std::string line;
  if (!std::getline(lines, line) || line.empty()) return fail("corrupt (no header)");
  std::istringstream header(line);
  std::string magic, library_field;
  long long format = -1;
  header >> magic >> format >> library_field;
  if (magic != fmt.magic) return fail("corrupt (not a dmlrt " + fmt.what + ")");
  if (format != fmt.format) {
    std::ostringstream os;
    os << "stale (format version " << format << ", expected " << fmt.format << ")";
    return fail(os.str());
  }
  long long file_version = -1;
  const std::string prefix = fmt.library + "=";
  if (library_field.rfind(prefix, 0) != 0 ||
      !parse_int(library_field.substr(prefix.size()), &file_version))
    return fail("corrupt (bad header '" + line + "')");
  if (file_version != fmt.library_version) {
    std::ostringstream os;
    os << "stale (written for " << fmt.library_label << " " << file_version << ", this is "
       << fmt.library_label << " " << fmt.library_version << ")";
    return fail(os.str());
  }
  for (int number = 2; std::getline(lines, line); ++number) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos || tab == 0)
      return fail("corrupt (line " + std::to_string(number) + ")");
    (*out)[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return true;
}

std::string default_tuning_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && *xdg != '\0') return (std::filesystem::path(xdg) / "dmlrt").string();
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0')
    return (std::filesystem::path(home) / ".cache" / "dmlrt").string();
  return "";
}

TuningFile::TuningFile(const std::string& dir, const std::string& file_name,
                       TuningFileFormat fmt)
    : fmt_(std::move(fmt)) {
  if (dir == "none") return;
  const std::string d = dir.empty() ? default_tuning_dir() : dir;
  if (!d.empty()) path_ = (std::filesystem::path(d) / file_name).string();
}

void TuningFile::warn(const std::string& msg) {
  warnings_.push_back(msg);
  DMLRT_WARN(msg);
}

bool TuningFile::read_file(TuningEntries* out, std::string* why, bool* missing) const {
  out->clear();
  *missing = false;
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) {
    *missing = true;
    return false;
  }
  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    *why = std::string("unreadable (") + std::strerror(errno) + ")";
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_tuning_file(ss.str(), fmt_, out, why);
}

void TuningFile::load() {
  loaded_ = true;
  if (path_.empty()) return;
  std::string why;
  bool missing = false;
  TuningEntries from_file;
  if (read_file(&from_file, &why, &missing)) {
    entries_ = std::move(from_file);
    DMLRT_DEBUG(fmt_.what << " " << path_ << ": " << entries_.size() << " entries");
  } else if (!missing) {
    warn(fmt_.what + " " + path_ + " is " + why +
         "; ignoring it (it is rewritten at the next save)");
  }
}

const TuningEntries& TuningFile::entries() {
  if (!loaded_) load();
  return entries_;
}

const std::string* TuningFile::find(const std::string& key) {
  if (!loaded_) load();
  const auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

void TuningFile::put(const std::string& key, const std::string& value) {
  put_all({{key, value}});
}

void TuningFile::put_all(const TuningEntries& entries) {
  if (!loaded_) load();
  for (const auto& [key, value] : entries) entries_[line_safe(key)] = line_safe(value);
  save();
}

void TuningFile::save() {
  if (path_.empty() || !writable_) return;
  // Entries another process saved meanwhile are kept; ours win on the same key.
  TuningEntries merged;
  std::string why;
  bool missing = false;
  if (!read_file(&merged, &why, &missing)) merged.clear();
  for (const auto& [key, value] : entries_) merged[key] = value;
  const std::string text = serialize_tuning_file(fmt_, merged);

  const std::filesystem::path path(path_);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  // pid and a process-wide counter: two GPU sessions of one process (Connections on threads)
  // never write the same temporary.
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = path_ + ".tmp." + std::to_string(static_cast<long>(getpid())) + "." +
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
  if (error.empty() && std::rename(tmp.c_str(), path_.c_str()) != 0) error = std::strerror(errno);
  if (!error.empty()) {
    std::filesystem::remove(tmp, ec);
    writable_ = false;
    warn("cannot write " + fmt_.what + " " + path_ + ": " + error +
         "; keeping it in memory for this run");
  }
}

}  // namespace dmlrt::gpu
