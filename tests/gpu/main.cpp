// Catch2 main for the device tests: exits 77 (ctest SKIP_RETURN_CODE) when no device is usable.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <iostream>

#include "gpu_context/device.h"

int main(int argc, char** argv) {
  if (dmlrt::gpu::usable_device_count() == 0) {
    std::cout << "skipped: " << dmlrt::gpu::device_summary() << "\n";
    return 77;
  }
  std::cout << dmlrt::gpu::device_summary() << "\n";
  return Catch::Session().run(argc, argv);
}
