// The sampling profiler of sampling_profiler.h for any process: built by `scripts/gpu-test.sh
// build` as build-gpu/carry/libhostprof.so, preloaded into the dmlrt CLI on the GPU machine
// (which has no perf) to see where the host time of a whole run goes:
//   DMLRT_HOSTPROF=prof.txt LD_PRELOAD=$PWD/build-gpu/carry/libhostprof.so build-gpu/carry/dmlrt ...
//   python3 bench/profile_report.py prof.txt --binary build-gpu/carry/dmlrt
// Samples every 50 us of process CPU time from load to exit (the first 6.5 s of CPU time).
#include <cstdlib>

#include "sampling_profiler.h"

namespace {

struct Preloaded {
  dmlrt_bench::SamplingProfiler profiler;
  const char* path = std::getenv("DMLRT_HOSTPROF");
  Preloaded() {
    if (path != nullptr) profiler.start();
  }
  ~Preloaded() {
    if (path != nullptr) profiler.stop(path);
  }
};

Preloaded preloaded;

}  // namespace
