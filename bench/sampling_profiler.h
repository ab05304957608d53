// A minimal sampling profiler for the host side of dmlrt_bench's overhead loop (--profile FILE):
// SIGPROF every 50 us of process CPU time records the interrupted call stack (8 frames). Stop()
// writes one line per (frame depth 0 = self, module, offset) with its sample count:
//   <count> <depth> <module path> 0x<offset> <exported symbol or ->
// bench/profile_report.py symbolises the offsets of dmlrt's own binary with addr2line
// (here, against the carried executable) and prints self and inclusive time per function. The
// machine that runs the bench has no perf; this keeps the measurement inside the bench's run.
#pragma once

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/time.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>

namespace dmlrt_bench {

class SamplingProfiler {
 public:
  static constexpr int kDepth = 8;
  static constexpr int kMaxSamples = 1 << 17;

  void start() {
    count().store(0);
    struct sigaction sa = {};
    sa.sa_sigaction = &SamplingProfiler::on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPROF, &sa, nullptr);
    void* warm[2];
    backtrace(warm, 2);  // loads libgcc's unwinder outside the handler
    itimerval t = {};
    t.it_interval.tv_usec = 50;
    t.it_value.tv_usec = 50;
    setitimer(ITIMER_PROF, &t, nullptr);
  }

  // Stops sampling and writes the counts to `path`; returns the number of samples.
  int stop(const std::string& path) {
    itimerval off = {};
    setitimer(ITIMER_PROF, &off, nullptr);
    signal(SIGPROF, SIG_IGN);
    const int n = std::min(count().load(), kMaxSamples);
    std::map<std::tuple<int, std::string, uintptr_t, std::string>, int> counts;
    for (int i = 0; i < n; ++i)
      for (int d = 0; d < kDepth; ++d) {
        void* pc = samples()[i][d];
        if (pc == nullptr) break;
        Dl_info info = {};
        std::string module = "?", symbol = "-";
        uintptr_t offset = reinterpret_cast<uintptr_t>(pc);
        if (dladdr(pc, &info) != 0) {
          if (info.dli_fname != nullptr) module = info.dli_fname;
          if (info.dli_sname != nullptr) symbol = info.dli_sname;
          offset -= reinterpret_cast<uintptr_t>(info.dli_fbase);
        }
        // A return address points after the call: step back into it for the caller frames.
        if (d > 0 && offset > 0) --offset;
        ++counts[{d, module, offset, symbol}];
      }
    std::ofstream out(path);
    for (const auto& [key, c] : counts)
      out << c << ' ' << std::get<0>(key) << ' ' << std::get<1>(key) << " 0x" << std::hex
          << std::get<2>(key) << std::dec << ' ' << std::get<3>(key) << '\n';
    return n;
  }

 private:
  using Stack = void* [kDepth];
  static std::atomic<int>& count() {
    static std::atomic<int> c{0};
    return c;
  }
  static Stack* samples() {
    static Stack s[kMaxSamples];
    return s;
  }
  static void on_signal(int, siginfo_t*, void*) {
    const int i = count().fetch_add(1);
    if (i >= kMaxSamples) return;
    void* frames[kDepth + 2];
    const int got = backtrace(frames, kDepth + 2);  // [0] this handler, [1] the signal trampoline
    for (int d = 0; d < kDepth; ++d) samples()[i][d] = d + 2 < got ? frames[d + 2] : nullptr;
  }
};

}  // namespace dmlrt_bench
