// Host memory accounting for the up-front size checks; see host_memory.h.
#include "kernels/host_memory.h"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "gpu_context/error.h"

namespace dmlrt::kernels {
namespace {

// Note [OpenBLAS under a memory limit]
// OpenBLAS (0.3.21 as Debian ships it, pthread build) takes its GEMM work buffers in
// blas_memory_alloc (driver/others/memory.c): BUFFER_SIZE bytes each, 128 MiB + one page in this
// build (seen in gdb: malloc(134221824)). Each pool thread takes one when it starts (at library
// load, before main), and a calling thread takes one at its first BLAS call (gemm, syrk, gemv,
// LAPACK through them); buffers are kept and reused until exit. When every allocator fails,
// blas_memory_alloc does not report it: it retries in a loop forever. Under `ulimit -v`
// (RLIMIT_AS) or RLIMIT_DATA that turns into
//  (a) a tsmm / ba+* / solve that spins at 100% CPU inside OpenBLAS (the calling thread's first
//      buffer does not fit), and
//  (b) a process that hangs at exit when a pool thread could not get its buffer at start-up: it
//      spins before main runs, and OpenBLAS's exit handler (gotoblas_quit) joins it forever.
// Without an address-space limit allocations of virtual memory do not fail (overcommit), so
// neither happens. dmlrt guards (a): under such a limit, check_blas_headroom runs right before each
// BLAS call (after the result is allocated) and, until one call has gone through (the calling
// thread's buffer then exists), requires kOpenBlasBufferBytes of address space to remain, failing
// with an OutOfMemory naming the instruction otherwise. The up-front size checks do not reserve
// the buffer: that would refuse plans that never call BLAS, and the guard at the call is what
// prevents the spin. Measured (2 cores, OpenBLAS 0.3.21, tsmm of a 2000x2000 matrix, ulimit -v
// 350000..400000 KB): before, a spin until killed; now, exit 1 at once with the message. A C
// program calling cblas_dgemm after mapping all but ~120 MiB of its limit spins the same way
// (gdb: cblas_dgemm -> blas_memory_alloc -> malloc(134221824), round and round).
// (b) cannot be caught from inside the process: the pool starts before any dmlrt code. The CLI
// therefore checks before any library starts (blas_threads_for_limit, from the executable's
// .preinit_array: Note [Restart before the libraries start] in runtime/cli/main.cpp; a check at
// the top of main came too late on 16 cores): under such a limit, with no thread
// count set by the user, it sets OPENBLAS_NUM_THREADS so that the buffers take at most a quarter
// of the limit and executes itself again (execv replaces every thread, a spinning one too). API
// users under a small limit set OPENBLAS_NUM_THREADS themselves (README, "Sizes and memory").
constexpr int64_t kOpenBlasBufferBytes = (int64_t{128} << 20) + 4096;

// Set once a BLAS call has gone through the check: the calling thread's buffer exists from then
// on (a process-wide approximation; concurrent API callers each take a buffer of their own).
std::atomic<bool> blas_buffer_taken{false};
// Set by keep_freed_host_memory(): a failing size check first returns kept memory to the OS.
std::atomic<bool> freed_memory_kept{false};

// Kept free by every up-front check: the small allocations that follow a large one (result
// objects, format bookkeeping, messages). Small on purpose: a check that keeps more free refuses
// plans that would run, and an allocation that still fails ends as an OutOfMemory through the
// interpreter's std::bad_alloc handler, not as a crash.
constexpr int64_t kHostHeadroomBytes = int64_t{16} << 20;

constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();

// "<key>: <n> kB" from a /proc file; -1 when absent.
int64_t proc_kb(const char* path, const char* key) {
  std::ifstream in(path);
  std::string line;
  const size_t klen = std::char_traits<char>::length(key);
  while (std::getline(in, line)) {
    if (line.compare(0, klen, key) != 0 || line.size() <= klen || line[klen] != ':') continue;
    std::istringstream is(line.substr(klen + 1));
    int64_t kb = -1;
    is >> kb;
    return kb < 0 ? -1 : kb * 1024;
  }
  return -1;
}

int64_t read_int(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  if (!(in >> s)) return -1;
  if (s == "max") return kUnlimited;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  return (end && *end == '\0' && v >= 0) ? static_cast<int64_t>(v) : -1;
}

// "<key> <n>" lines of a cgroup memory.stat.
int64_t stat_value(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string k;
  int64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return 0;
}

int64_t rlimit_bytes(int resource) {
  rlimit rl{};
  if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return kUnlimited;
  return rl.rlim_cur > static_cast<rlim_t>(kUnlimited) ? kUnlimited
                                                       : static_cast<int64_t>(rl.rlim_cur);
}

// Current address space (VmSize) from /proc/self/statm: one short read.
int64_t vm_size_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return -1;
  long long pages = -1;
  const int n = std::fscanf(f, "%lld", &pages);
  std::fclose(f);
  return n == 1 && pages >= 0 ? static_cast<int64_t>(pages) * sysconf(_SC_PAGESIZE) : -1;
}

// The cgroup's headroom: limit minus usage, with page cache counted as free (it is reclaimed
// before the OOM killer acts). kUnlimited when no limit is set or readable.
int64_t cgroup_headroom() {
  std::ifstream in("/proc/self/cgroup");
  std::string line, v1_path, v2_path;
  bool have_v2 = false;
  while (std::getline(in, line)) {
    if (line.compare(0, 3, "0::") == 0) {
      v2_path = line.substr(3);
      have_v2 = true;
    } else {
      const size_t a = line.find(':');
      const size_t b = a == std::string::npos ? a : line.find(':', a + 1);
      if (b != std::string::npos) {
        std::istringstream ctrls(line.substr(a + 1, b - a - 1));
        std::string c;
        while (std::getline(ctrls, c, ','))
          if (c == "memory") v1_path = line.substr(b + 1);
      }
    }
  }
  int64_t best = kUnlimited;
  auto consider = [&](int64_t limit, int64_t usage, int64_t file) {
    if (limit < 0 || limit >= (int64_t{1} << 60) || usage < 0) return;
    best = std::min(best, std::max<int64_t>(0, limit - std::max<int64_t>(0, usage - file)));
  };
  if (have_v2) {
    // The process's own cgroup, then the root view that containers usually mount.
    for (const std::string& dir : {"/sys/fs/cgroup" + v2_path, std::string("/sys/fs/cgroup")}) {
      const int64_t limit = read_int(dir + "/memory.max");
      if (limit < 0) continue;
      consider(limit, read_int(dir + "/memory.current"), stat_value(dir + "/memory.stat", "file"));
      break;
    }
  }
  if (!v1_path.empty()) {
    for (const std::string& dir :
         {"/sys/fs/cgroup/memory" + v1_path, std::string("/sys/fs/cgroup/memory")}) {
      const int64_t limit = read_int(dir + "/memory.limit_in_bytes");
      if (limit < 0) continue;
      consider(limit, read_int(dir + "/memory.usage_in_bytes"),
               stat_value(dir + "/memory.stat", "total_cache"));
      break;
    }
  }
  return best;
}

bool address_space_limited() {
  return rlimit_bytes(RLIMIT_AS) != kUnlimited || rlimit_bytes(RLIMIT_DATA) != kUnlimited;
}

std::string int128_string(__int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  if (neg) v = -v;
  std::string s;
  while (v > 0) {
    s += static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  }
  if (neg) s += '-';
  return std::string(s.rbegin(), s.rend());
}

[[noreturn]] void fail_too_big(const std::string& what, const std::string& shape, double bytes,
                               const HostMemory& mem) {
  if (mem.available_bytes < 0 || bytes >= 9.2e18)
    DMLRT_FAIL(OutOfMemory, what << ": " << shape << " needs " << bytes_string(bytes)
                                 << " of host memory, more than a 64-bit process can address");
  DMLRT_FAIL(
      OutOfMemory,
      what << ": " << shape << " needs " << bytes_string(bytes) << " of host memory, but only "
           << bytes_string(static_cast<double>(mem.available_bytes)) << " are available ("
           << mem.limited_by << (mem.limited_by == "MemAvailable" ? "" : " headroom")
           << ", keeping " << bytes_string(static_cast<double>(host_headroom_bytes())) << " free)");
}

}  // namespace

HostMemory host_memory() {
  HostMemory m;
  auto take = [&](int64_t bytes, const char* source) {
    if (bytes < 0 || bytes == kUnlimited) return;
    if (m.available_bytes < 0 || bytes < m.available_bytes) {
      m.available_bytes = bytes;
      m.limited_by = source;
    }
  };
  take(proc_kb("/proc/meminfo", "MemAvailable"), "MemAvailable");
  const int64_t as_limit = rlimit_bytes(RLIMIT_AS);
  if (as_limit != kUnlimited) {
    m.address_space_limited = true;
    const int64_t used = vm_size_bytes();
    if (used >= 0) take(std::max<int64_t>(0, as_limit - used), "RLIMIT_AS");
  }
  const int64_t data_limit = rlimit_bytes(RLIMIT_DATA);
  if (data_limit != kUnlimited) {
    m.address_space_limited = true;
    const int64_t used = proc_kb("/proc/self/status", "VmData");
    if (used >= 0) take(std::max<int64_t>(0, data_limit - used), "RLIMIT_DATA");
  }
  take(cgroup_headroom(), "cgroup memory limit");
  return m;
}

int64_t host_headroom_bytes() { return kHostHeadroomBytes; }

int blas_threads_for_limit(const char* const* envp) {
  for (const char* var : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"}) {
    const char* v = nullptr;
    if (envp == nullptr) {
      v = std::getenv(var);
    } else {
      const size_t len = std::strlen(var);
      for (const char* const* e = envp; *e != nullptr && v == nullptr; ++e)
        if (std::strncmp(*e, var, len) == 0 && (*e)[len] == '=') v = *e + len + 1;
    }
    if (v != nullptr && *v != '\0') return 0;  // the user chose
  }
  rlim_t limit = RLIM_INFINITY;
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit rl{};
    if (::getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
      limit = std::min(limit, rl.rlim_cur);
  }
  if (limit == RLIM_INFINITY) return 0;
  const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  const int64_t fit = static_cast<int64_t>(limit / 4) / kOpenBlasBufferBytes;
  const int64_t threads = std::max<int64_t>(1, fit);
  return cores > 0 && threads < cores ? static_cast<int>(threads) : 0;
}

std::string bytes_string(double bytes) {
  std::ostringstream os;
  if (bytes < 1.7e38)
    os << int128_string(static_cast<__int128>(bytes));
  else
    os << bytes;
  constexpr double kKiB = 1024.0, kMiB = kKiB * 1024.0, kGiB = kMiB * 1024.0;
  char buf[32];
  if (bytes < kMiB)
    std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / kKiB);
  else if (bytes < kGiB)
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / kMiB);
  else if (bytes < 1e6 * kGiB)
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / kGiB);
  else
    std::snprintf(buf, sizeof buf, "%.3g GiB", bytes / kGiB);
  os << " bytes (" << buf << ")";
  return os.str();
}

void check_host_bytes(const std::string& what, const std::string& shape, double bytes) {
  if (!(bytes >= static_cast<double>(kHostCheckMinBytes))) return;  // small (or NaN: caller's bug)
  // Beyond int64 no allocator can serve it; no need to read /proc.
  if (bytes >= 9.2e18) fail_too_big(what, shape, bytes, HostMemory{});
  HostMemory mem = host_memory();
  if (mem.available_bytes < 0) return;  // nothing readable: let the allocator decide
  auto usable = [&] {
    return std::max(0.0, static_cast<double>(mem.available_bytes) -
                             static_cast<double>(host_headroom_bytes()));
  };
  if (bytes > usable() && freed_memory_kept.load(std::memory_order_relaxed)) {
    ::malloc_trim(0);  // See Note [Freed host memory is kept]
    mem = host_memory();
    if (mem.available_bytes < 0) return;
  }
  if (bytes > usable()) fail_too_big(what, shape, bytes, mem);
}

void keep_freed_host_memory() {
  if (address_space_limited()) return;
  // One arena: the interpreter runs on a thread of its own (Note [Interpreter stack]), and a
  // thread arena serves large blocks with mmap whatever M_MMAP_MAX says.
  ::mallopt(M_ARENA_MAX, 1);
  ::mallopt(M_MMAP_MAX, 0);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  freed_memory_kept.store(true, std::memory_order_relaxed);
}

void check_host_alloc(const std::string& what, int64_t rows, int64_t cols, int64_t bytes_per_cell,
                      int64_t extra_bytes) {
  DMLRT_REQUIRE(rows >= 0 && cols >= 0, ShapeError,
                what << ": invalid matrix dimensions " << rows << "x" << cols);
  // Exact in 128 bits: rows, cols < 2^63 and bytes_per_cell is small.
  const __int128 bytes = static_cast<__int128>(rows) * cols * bytes_per_cell + extra_bytes;
  if (bytes < kHostCheckMinBytes) return;
  std::ostringstream shape;
  shape << "a " << rows << "x" << cols << " dense matrix";
  if (bytes_per_cell != 8) shape << " of " << bytes_per_cell << "-byte cells";
  check_host_bytes(what, shape.str(), static_cast<double>(bytes));
}

void check_blas_headroom(const std::string& what) {
  static const bool limited = address_space_limited();
  if (!limited || blas_buffer_taken.load(std::memory_order_relaxed)) return;
  const HostMemory mem = host_memory();
  DMLRT_REQUIRE(mem.available_bytes < 0 || mem.available_bytes >= kOpenBlasBufferBytes, OutOfMemory,
                what << ": OpenBLAS needs "
                     << bytes_string(static_cast<double>(kOpenBlasBufferBytes))
                     << " of address space for its work buffer, but only "
                     << bytes_string(static_cast<double>(mem.available_bytes)) << " remain under "
                     << mem.limited_by
                     << " (OpenBLAS would retry forever; see Note [OpenBLAS under a memory "
                        "limit] in kernels/host_memory.cpp)");
  blas_buffer_taken.store(true, std::memory_order_relaxed);
}

}  // namespace dmlrt::kernels
