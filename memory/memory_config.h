// GPU memory-manager settings as SystemDS names them (sysds.gpu.* config keys). Parsed and
// validated here, where the manager that uses them lives, so the CLI and the API share one reading.
#pragma once

#include <string>

namespace dmlrt::mem {

enum class EvictionPolicy { kLru, kMinEvict };

struct MemoryConfig {
  double util_factor = 0.9;        // sysds.gpu.memory.util.factor: fraction of free device memory
  long long budget_bytes = -1;     // -gpu-mem-budget; -1 = use util_factor
  EvictionPolicy policy = EvictionPolicy::kLru;  // sysds.gpu.eviction.policy
  std::string available_gpus = "-1";             // sysds.gpu.availableGPUs
};

// "lru" | "min_evict" (case-insensitive); throws ParseError naming the key otherwise.
EvictionPolicy parse_eviction_policy(const std::string& value);
const char* eviction_policy_name(EvictionPolicy policy);
// A fraction in (0, 1]; throws ParseError naming the key otherwise.
double parse_util_factor(const std::string& value);

}  // namespace dmlrt::mem
