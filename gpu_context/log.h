// The one small stderr logger of dmlrt. Level from DMLRT_LOG_LEVEL (error, warn, info, debug;
// default warn) or set_log_level(). stdout is never used for diagnostics.
#pragma once

#include <sstream>
#include <string>

namespace dmlrt {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

LogLevel log_level();
void set_log_level(LogLevel level);
// Parses "error|warn|info|debug" (case-insensitive); throws ParseError otherwise.
LogLevel parse_log_level(const std::string& name);
void log_message(LogLevel level, const std::string& msg);

}  // namespace dmlrt

#define DMLRT_LOG(level, stream_expr)                                \
  do {                                                               \
    if (static_cast<int>(level) <= static_cast<int>(::dmlrt::log_level())) { \
      std::ostringstream dmlrt_log_os_;                              \
      dmlrt_log_os_ << stream_expr;                                  \
      ::dmlrt::log_message(level, dmlrt_log_os_.str());              \
    }                                                                \
  } while (0)

#define DMLRT_WARN(stream_expr) DMLRT_LOG(::dmlrt::LogLevel::kWarn, stream_expr)
#define DMLRT_INFO(stream_expr) DMLRT_LOG(::dmlrt::LogLevel::kInfo, stream_expr)
#define DMLRT_DEBUG(stream_expr) DMLRT_LOG(::dmlrt::LogLevel::kDebug, stream_expr)
