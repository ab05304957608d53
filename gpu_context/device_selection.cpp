// sysds.gpu.availableGPUs parsing; see device_selection.h.
#include "gpu_context/device_selection.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "gpu_context/string_util.h"

namespace dmlrt::gpu {
namespace {

// A non-negative decimal integer, or -2 when `s` is not one.
long parse_index(const std::string& raw) {
  const std::string s = trim(raw);
  if (s.empty() || s.size() > 9) return -2;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -2;
  return std::strtol(s.c_str(), nullptr, 10);
}

std::vector<int> all_devices(int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}

}  // namespace

std::vector<int> parse_available_gpus(const std::string& value, int device_count,
                                      std::string* warning) {
  const std::string v = trim(value);
  if (v == "-1" || device_count <= 0) return all_devices(device_count);
  std::vector<int> out;
  bool ok = true;
  if (v.find(',') != std::string::npos) {
    std::stringstream ss(v);
    std::string part;
    while (std::getline(ss, part, ',')) {
      const long i = parse_index(part);
      if (i < 0) ok = false;
      else out.push_back(static_cast<int>(i));
    }
  } else if (v.find('-') != std::string::npos) {
    const size_t dash = v.find('-');
    const long a = parse_index(v.substr(0, dash));
    const long b = parse_index(v.substr(dash + 1));
    if (a < 0 || b < 0 || a > b) ok = false;
    else
      for (long i = a; i <= b; ++i) out.push_back(static_cast<int>(i));
  } else {
    const long i = parse_index(v);
    if (i < 0) ok = false;
    else out.push_back(static_cast<int>(i));
  }
  for (int i : out)
    if (i >= device_count) ok = false;
  if (!ok || out.empty()) {
    if (warning) {
      std::ostringstream os;
      os << "sysds.gpu.availableGPUs: invalid value '" << value << "' for " << device_count
         << " device(s) (expected -1, N, a-b or a,b,c); using all devices";
      *warning = os.str();
    }
    return all_devices(device_count);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace dmlrt::gpu
