// GemmPlanKey / GemmPlanChoice text; see gemm_plan_cache.h and Note [Persisted GEMM plans].
#include "gpu_context/gemm_plan_cache.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace dmlrt::gpu {

std::string GemmPlanKey::to_string() const {
  std::ostringstream os;
  os << (fp64 ? "fp64" : "fp32") << " ta=" << (trans_a ? 1 : 0) << " tb=" << (trans_b ? 1 : 0)
     << " m=" << m << " n=" << n << " k=" << k << " ws=" << max_workspace << " dev=" << device;
  return line_safe(os.str());
}

std::string GemmPlanChoice::to_string() const {
  char us[32];
  std::snprintf(us, sizeof us, "%.6g", us_per_call);
  if (!cublaslt) return std::string("cublas ") + us;
  std::string hex;
  for (uint64_t w : algo) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(w));
    hex += buf;
  }
  return "lt " + std::to_string(index) + " " + hex + " " + std::to_string(workspace_bytes) + " " +
         us;
}

bool GemmPlanChoice::parse(const std::string& text, GemmPlanChoice* out) {
  std::istringstream in(text);
  std::string kind, index, hex, ws, us, extra;
  in >> kind;
  GemmPlanChoice c;
  const auto number = [](const std::string& s, double* v) {
    char* end = nullptr;
    *v = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size() && *v >= 0;
  };
  if (kind == "cublas") {
    if (!(in >> us) || (in >> extra) || !number(us, &c.us_per_call)) return false;
    *out = c;
    return true;
  }
  if (kind != "lt" || !(in >> index >> hex >> ws >> us) || (in >> extra)) return false;
  c.cublaslt = true;
  double idx = 0, bytes = 0;
  if (!number(index, &idx) || idx != static_cast<int>(idx) || idx > 1024) return false;
  if (!number(ws, &bytes) || bytes != static_cast<double>(static_cast<uint64_t>(bytes)))
    return false;
  if (!number(us, &c.us_per_call) || hex.size() != 128) return false;
  for (size_t w = 0; w < 8; ++w) {
    uint64_t v = 0;
    for (size_t i = 0; i < 16; ++i) {
      const char ch = hex[w * 16 + i];
      const int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
      if (d < 0) return false;
      v = v << 4 | static_cast<uint64_t>(d);
    }
    c.algo[w] = v;
  }
  c.index = static_cast<int>(idx);
  c.workspace_bytes = static_cast<uint64_t>(bytes);
  *out = c;
  return true;
}

TuningFileFormat gemm_plan_file_format(int64_t cublaslt_version) {
  return {"dmlrt-gemm-plans", kGemmPlanCacheFormat, "cublaslt", "cuBLASLt", cublaslt_version,
          "GEMM plan cache"};
}

}  // namespace dmlrt::gpu
