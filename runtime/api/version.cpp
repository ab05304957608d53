// dmlrt::version(): the CMake project version, passed in as DMLRT_VERSION_STRING.
#include "dmlrt/version.h"

#ifndef DMLRT_VERSION_STRING
#error "DMLRT_VERSION_STRING is set by the top-level CMakeLists.txt (install section)"
#endif

namespace dmlrt {

std::string version() { return DMLRT_VERSION_STRING; }

}  // namespace dmlrt
