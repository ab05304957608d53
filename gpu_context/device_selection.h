// sysds.gpu.availableGPUs: which devices a run may use. Host-only parsing, so it is unit-tested
// without a device.
#pragma once

#include <string>
#include <vector>

namespace dmlrt::gpu {

// Parses SystemDS's forms against `device_count` devices: "-1" = all, "N" = device N, "a-b" = the
// inclusive range, "a,b,c" = a list (white space around numbers is ignored). As in SystemDS's
// GPUContextPool, an invalid value, or one naming a device that does not exist, selects all devices;
// `warning` (may be null) then receives a message naming the value. Devices are returned sorted and
// without duplicates; with device_count == 0 the result is empty.
std::vector<int> parse_available_gpus(const std::string& value, int device_count,
                                      std::string* warning = nullptr);

}  // namespace dmlrt::gpu
