// The CPU backend's thread pool: one fixed pool, created at first use and sized by the configured
// thread count (-threads / sysds.num.threads, default every core), that the host kernels split
// their data-sized loops over. See Note [Deterministic parallel reductions] for why reductions go
// through parallel_chunks with a fixed chunk size.
#pragma once

#include <cstdint>
#include <functional>

namespace dmlrt::kernels::cpu {

// Loops below this many cells (or cell-sized work items) run on the calling thread: waking the
// pool costs more than they take.
constexpr int64_t kParallelGrain = int64_t{1} << 16;

// The grain, in rows, of a loop over the rows of a matrix with `cols` columns.
inline int64_t row_grain(int64_t cols) {
  return cols > 0 ? (kParallelGrain + cols - 1) / cols : kParallelGrain;
}

// Sets the pool's thread count (the caller included); n <= 0 means every core
// (std::thread::hardware_concurrency). The workers are replaced at the next parallel call. Not to
// be called while another thread runs a parallel loop.
void set_num_threads(int n);
// The thread count the pool runs with (>= 1).
int num_threads();
// The thread count n <= 0 stands for: every core, at least 1.
int default_num_threads();

// Runs fn(lo, hi) over subranges that cover [begin, end) exactly once, on the pool's threads and
// the caller's. Ranges shorter than 2 * grain run inline as one call, as do calls made from inside
// a parallel loop (nesting) or while another thread holds the pool. How the range is split depends
// on the thread count, so fn must give the same result for any split (cell-wise work, disjoint
// rows); an exception thrown by fn is rethrown here after every running subrange has ended.
void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t lo, int64_t hi)>& fn);

// Runs fn(chunk, lo, hi) for every chunk [begin + chunk*chunk_size, min(end, ...)) of [begin, end):
// the boundaries depend on chunk_size only, never on the thread count, so per-chunk partial results
// combined in chunk order give bit-identical results for any thread count. Returns the number of
// chunks (0 for an empty range). Chunks run in parallel (in any order) when there are at least two.
int64_t parallel_chunks(int64_t begin, int64_t end, int64_t chunk_size,
                        const std::function<void(int64_t chunk, int64_t lo, int64_t hi)>& fn);

// While alive, parallel calls made on the constructing thread run inline on it (a PARFOR worker:
// the loop's workers already have the cores). Results do not change: see parallel_for and
// parallel_chunks.
class InlineScope {
 public:
  InlineScope();
  ~InlineScope();
  InlineScope(const InlineScope&) = delete;
  InlineScope& operator=(const InlineScope&) = delete;

 private:
  bool saved_;
};

// While alive, OpenBLAS runs each call on the calling thread only (the workers of a parallel PARFOR
// call it at once; its own pool would serialise them); the count before the first of such scopes
// (of any thread) is restored when the last one ends.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;
};

// The number of chunks parallel_chunks makes of [begin, end).
inline int64_t chunk_count(int64_t begin, int64_t end, int64_t chunk_size) {
  return end > begin ? (end - begin + chunk_size - 1) / chunk_size : 0;
}

}  // namespace dmlrt::kernels::cpu
