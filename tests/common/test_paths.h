// Where the test fixtures are: $DMLRT_TEST_DATA_DIR when set (a build carried to another machine,
// e.g. the GPU machine, finds the source tree there), else the source tree this build came from.
// The dmlrt executable the CLI tests run: $DMLRT_TEST_BINARY when set (the carried build's), else
// the one built beside the tests.
#pragma once

#include <cstdlib>
#include <string>

namespace dmlrt::test {

inline std::string test_data_dir() {
  const char* env = std::getenv("DMLRT_TEST_DATA_DIR");
  return (env != nullptr && *env != '\0') ? std::string(env) : std::string(DMLRT_TEST_DATA_DIR);
}

#ifdef DMLRT_BINARY
inline std::string dmlrt_binary() {
  const char* env = std::getenv("DMLRT_TEST_BINARY");
  return (env != nullptr && *env != '\0') ? std::string(env) : std::string(DMLRT_BINARY);
}
#endif

}  // namespace dmlrt::test
