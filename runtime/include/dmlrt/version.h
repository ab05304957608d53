// The version of the dmlrt library (the CMake project version, e.g. "0.1.0").
#pragma once

#include <string>

namespace dmlrt {

std::string version();

}  // namespace dmlrt
