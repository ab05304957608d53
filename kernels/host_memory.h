// Host memory checks made before an allocation whose size comes from a plan (rand, seq, reshape,
// outer ops, ctable, groupedagg, the readers' declared dims...): the size is checked for overflow
// and against the memory the process can still get, so an impossible size fails at once with an
// OutOfMemory that names what, the shape and the bytes, instead of a late std::bad_alloc.
#pragma once

#include <cstdint>
#include <string>

namespace dmlrt::kernels {

// What the process can still allocate on the host, and which limit decides it.
struct HostMemory {
  int64_t available_bytes = -1;  // -1: unknown (no source could be read)
  std::string limited_by;  // "MemAvailable", "RLIMIT_AS", "RLIMIT_DATA", "cgroup memory limit"
  bool address_space_limited = false;  // RLIMIT_AS or RLIMIT_DATA is set
};

// The smallest of: /proc/meminfo MemAvailable; RLIMIT_AS minus the current address space
// (VmSize); RLIMIT_DATA minus the current data segment (VmData); the cgroup's memory.max (v2) or
// memory.limit_in_bytes (v1) minus its non-file usage. Reads /proc and /sys on every call (a few
// microseconds): callers use it for large allocations only, see check_host_alloc.
HostMemory host_memory();

// Allocations below this many bytes are only checked for overflow: the /proc reads would cost
// more than they save, and a failure of a small allocation still ends as an OutOfMemory through
// the interpreter's std::bad_alloc handler.
inline constexpr int64_t kHostCheckMinBytes = int64_t{16} << 20;

// Checks `rows` x `cols` cells of `bytes_per_cell` (plus `extra_bytes`) for int64 overflow and
// against host_memory(), keeping host_headroom_bytes() free. Throws OutOfMemory:
//   "rand: a 46341x46341 dense matrix needs 17179906248 bytes (16.0 GiB) of host memory, but only
//    1736622080 bytes (1.6 GiB) are available (RLIMIT_AS headroom, keeping ... free)".
// `what` names the op ("rand", "reshape", "ctable output"); the interpreter puts the plan
// location and instruction in front.
void check_host_alloc(const std::string& what, int64_t rows, int64_t cols, int64_t bytes_per_cell,
                      int64_t extra_bytes = 0);
// The same for a byte count computed by the caller (as a double, so it cannot overflow);
// `shape` describes it for the message ("a 10x3 CSR with 7 nonzeros").
void check_host_bytes(const std::string& what, const std::string& shape, double bytes);

// Memory left free by the checks for the small allocations that follow a large one.
int64_t host_headroom_bytes();

// Right before a call into OpenBLAS: when an address-space limit (RLIMIT_AS / RLIMIT_DATA) is set
// and less than the work buffer OpenBLAS may still take remains, throws OutOfMemory naming `what`
// instead of letting OpenBLAS retry forever (see Note [OpenBLAS under a memory limit] in
// host_memory.cpp). Without such a limit, or once a call has gone through, it costs one cached
// flag test.
void check_blas_headroom(const std::string& what);

// Under an address-space limit (RLIMIT_AS / RLIMIT_DATA) with no thread count chosen by the user
// (OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS, OMP_NUM_THREADS unset): the number of OpenBLAS threads
// whose work buffers take at most a quarter of the limit, when that is fewer than the cores
// OpenBLAS would start; 0 otherwise (nothing to change). The CLI restarts itself with that count
// before any work, case (b) of Note [OpenBLAS under a memory limit]. It calls the C library only:
// the CLI calls it before the C++ runtime and the shared libraries have started, when getenv does
// not work yet, and passes the process's environment as `envp` (null: getenv).
int blas_threads_for_limit(const char* const* envp = nullptr);

// Note [Freed host memory is kept]
// glibc serves large blocks (above a threshold of at most 32 MiB) with mmap and unmaps them when
// they are freed, so every data-sized result started on fresh pages that the kernel faults in and
// zeroes 4 KiB at a time: on the 2-core machine about 130 ms of a 160 ms transpose of 50000x400,
// and a like share of every cell-wise op on such operands. SystemDS's JVM reuses its heap;
// keep_freed_host_memory() makes malloc do the same: large blocks come from the one heap
// (M_ARENA_MAX 1, M_MMAP_MAX 0) and freed memory stays with the process (M_TRIM_THRESHOLD: only
// a free top above 1 GiB goes back). /proc/meminfo does not count kept memory as available, so a
// size check that fails gives it back first (malloc_trim) and looks again. It does nothing under
// an address-space limit (RLIMIT_AS / RLIMIT_DATA), whose headroom kept memory would eat. The
// CLI calls it at start-up; embedding programs choose.
void keep_freed_host_memory();

// "17179906248 bytes (16.0 GiB)" for messages (the count exact up to 2^53).
std::string bytes_string(double bytes);

}  // namespace dmlrt::kernels
