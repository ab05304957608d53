// Parsing of the sysds.gpu.* memory settings; see memory_config.h.
#include "memory/memory_config.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "gpu_context/error.h"

namespace dmlrt::mem {

EvictionPolicy parse_eviction_policy(const std::string& value) {
  std::string s = value;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s == "lru") return EvictionPolicy::kLru;
  if (s == "min_evict") return EvictionPolicy::kMinEvict;
  DMLRT_FAIL(ParseError, "sysds.gpu.eviction.policy: unsupported policy '"
                             << value << "' (expected lru or min_evict)");
}

const char* eviction_policy_name(EvictionPolicy policy) {
  return policy == EvictionPolicy::kLru ? "lru" : "min_evict";
}

double parse_util_factor(const std::string& value) {
  char* end = nullptr;
  const double f = std::strtod(value.c_str(), &end);
  DMLRT_REQUIRE(end != value.c_str() && *end == '\0' && f > 0.0 && f <= 1.0, ParseError,
                "sysds.gpu.memory.util.factor: expected a number in (0, 1], got '" << value << "'");
  return f;
}

}  // namespace dmlrt::mem
