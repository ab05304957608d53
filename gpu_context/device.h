// Device discovery. In a CPU-only build, or on a machine without a usable CUDA device, every query
// answers "no device" instead of failing, so callers can fall back to the CPU backend.
#pragma once

#include <string>

namespace dmlrt::gpu {

// True when this binary was built with the CUDA backend.
bool built_with_cuda();

// Number of usable CUDA devices (0 when none, when the driver is missing, or in a CPU-only build).
int usable_device_count();

// One line describing why no device is usable, or the first device when one is.
std::string device_summary();

}  // namespace dmlrt::gpu
