// stderr logger; see log.h.
#include "gpu_context/log.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <mutex>

#include "gpu_context/error.h"

namespace dmlrt {
namespace {

LogLevel level_from_env() {
  const char* env = std::getenv("DMLRT_LOG_LEVEL");
  if (env == nullptr || *env == '\0') return LogLevel::kWarn;
  try {
    return parse_log_level(env);
  } catch (const ParseError&) {
    std::cerr << "[dmlrt] warning: ignoring DMLRT_LOG_LEVEL='" << env
              << "' (expected error, warn, info or debug)\n";
    return LogLevel::kWarn;
  }
}

std::atomic<int>& level_slot() {
  static std::atomic<int> level{static_cast<int>(level_from_env())};
  return level;
}

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarn: return "warning";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
  }
  return "log";
}

}  // namespace

LogLevel log_level() { return static_cast<LogLevel>(level_slot().load()); }

void set_log_level(LogLevel level) { level_slot().store(static_cast<int>(level)); }

LogLevel parse_log_level(const std::string& name) {
  std::string s = name;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s == "error") return LogLevel::kError;
  if (s == "warn" || s == "warning") return LogLevel::kWarn;
  if (s == "info") return LogLevel::kInfo;
  if (s == "debug") return LogLevel::kDebug;
  throw ParseError("unknown log level '" + name + "' (expected error, warn, info or debug)");
}

void log_message(LogLevel level, const std::string& msg) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::cerr << "[dmlrt] " << level_name(level) << ": " << msg << '\n';
}

}  // namespace dmlrt
