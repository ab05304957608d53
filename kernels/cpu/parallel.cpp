// The CPU thread pool; see parallel.h. One job at a time: the caller publishes a task count, the
// workers and the caller take task indices from one atomic counter, and the caller waits until
// every worker has checked out of the job before it returns (so a job never outlives its frame).
//
// Note [Deterministic parallel reductions]
// A result must not depend on the thread count (DESIGN.md, CPU backend). Cell-wise kernels write
// disjoint cells, so any split gives the same bits. Reductions are different: floating-point
// addition is not associative, so a reduction splits its input with parallel_chunks into chunks
// of a FIXED size (never "one range per thread"), keeps one partial accumulator per chunk, and
// combines the partials in chunk order on the calling thread. The summation order is then a
// function of the input size alone. Each partial keeps the sequential loop's numerics (Kahan sums,
// four interleaved ones per chunk for sums and sums of squares, kernels/cpu/aggregate.cpp;
// SystemDS's incremental mean and variance) and the partials are merged the way SystemDS merges
// partial aggregates (KahanPlus with corrections; the CM merge for mean and variance). Inputs of
// one chunk or less (64K cells) are reduced exactly as before the pool existed; larger ones may
// differ from one sequential pass, and from SystemDS, in the last bits (SystemDS's own parallel
// aggregates split the rows by its thread count, so its digits depend on the thread count).
// Row aggregates (one accumulator per row) and column aggregates (one per column, rows visited in
// order) are split over rows or column blocks instead, which leaves their order unchanged.
#include "kernels/cpu/parallel.h"

#include <cblas.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace dmlrt::kernels::cpu {
namespace {

// True on a thread while it runs tasks of a job: a parallel call from there runs inline.
thread_local bool t_in_job = false;

struct Job {
  int64_t tasks = 0;
  const std::function<void(int64_t)>* task = nullptr;
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::exception_ptr error;
};

// Runs tasks of `job` until none is left (or one has failed).
void work_on(Job& job) {
  const bool outer = t_in_job;
  t_in_job = true;
  for (;;) {
    const int64_t i = job.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= job.tasks || job.failed.load(std::memory_order_relaxed)) break;
    try {
      (*job.task)(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.error_mutex);
      if (!job.error) job.error = std::current_exception();
      job.failed.store(true, std::memory_order_relaxed);
    }
  }
  t_in_job = outer;
}

class Pool {
 public:
  ~Pool() { stop_workers(); }

  void set_threads(int n) {
    n = n <= 0 ? default_num_threads() : n;
    wanted_.store(n);
    // OpenBLAS keeps its own threads for gemm/gemv/syrk; the thread count caps those as well,
    // below what OpenBLAS started with (OPENBLAS_NUM_THREADS, or the count the CLI restarts with
    // under an address-space limit: Note [OpenBLAS under a memory limit]).
    static const int blas_start = openblas_get_num_threads();
    openblas_set_num_threads(std::max(1, std::min(n, blas_start)));
  }
  int threads() const { return wanted_.load(); }

  // Runs task(i) for every i in [0, tasks) on the workers and the caller. Returns false, having
  // run nothing, when the caller must run the work itself: one thread configured, a call from
  // inside a job, or another thread holding the pool.
  bool try_run(int64_t tasks, const std::function<void(int64_t)>& task) {
    if (t_in_job || threads() <= 1) return false;
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    resize(threads());
    Job job;
    job.tasks = tasks;
    job.task = &task;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      ++generation_;
      pending_ = static_cast<int>(workers_.size());
    }
    wake_.notify_all();
    work_on(job);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return pending_ == 0; });
      job_ = nullptr;
    }
    if (job.error) std::rethrow_exception(job.error);
    return true;
  }

 private:
  // Makes n - 1 workers (the caller is the n-th thread); called with busy_ held.
  void resize(int n) {
    if (sized_for_ == n) return;
    stop_workers();
    sized_for_ = n;
    uint64_t start;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = false;
      start = generation_;
    }
    for (int i = 0; i < n - 1; ++i) {
      pthread_t t;
      if (!start_thread(&t, [this, start] { worker(start); })) break;  // run with those started
      workers_.push_back(t);
    }
  }

  // Note [Pool thread stacks]
  // A worker runs kernel loops, never deep recursion; the default stack (ulimit -s, 8 MiB) is
  // mapped privately and counts against RLIMIT_DATA. On the 16-core H200 host, 15 workers took
  // 120 MB of a `ulimit -d` run's room, leaving 73 MB where OpenBLAS's work buffer needs 128 MB
  // (test_size_checks). Workers get kWorkerStack instead. False when no thread could be started (a
  // process limit): the pool runs with the workers it has.
  static constexpr size_t kWorkerStack = size_t{2} << 20;
  static bool start_thread(pthread_t* t, std::function<void()> body) {
    auto* fn = new std::function<void()>(std::move(body));
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kWorkerStack);
    const int rc = pthread_create(
        t, &attr,
        [](void* arg) -> void* {
          std::unique_ptr<std::function<void()>> f(static_cast<std::function<void()>*>(arg));
          (*f)();
          return nullptr;
        },
        fn);
    pthread_attr_destroy(&attr);
    if (rc != 0) delete fn;
    return rc == 0;
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (pthread_t t : workers_) pthread_join(t, nullptr);
    workers_.clear();
  }

  void worker(uint64_t seen) {
    for (;;) {
      Job* job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      work_on(*job);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (--pending_ == 0) done_.notify_one();
      }
    }
  }

  std::atomic<int> wanted_{default_num_threads()};
  std::mutex busy_;    // held by the thread whose job runs
  int sized_for_ = 0;  // the thread count the workers were made for (guarded by busy_)
  std::vector<pthread_t> workers_;
  std::mutex mutex_;  // guards what follows
  std::condition_variable wake_, done_;
  Job* job_ = nullptr;
  uint64_t generation_ = 0;
  int pending_ = 0;  // workers not yet done with the current job
  bool stop_ = false;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

int default_num_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void set_num_threads(int n) { pool().set_threads(n); }

int num_threads() { return pool().threads(); }

void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t lo, int64_t hi)>& fn) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  if (n < 2 * grain || t_in_job || num_threads() <= 1) {
    fn(begin, end);
    return;
  }
  // A few tasks per thread balance uneven rows and a busy core; never smaller than the grain.
  const int64_t tasks = std::min<int64_t>(n / grain, int64_t{4} * num_threads());
  const int64_t size = (n + tasks - 1) / tasks;
  const std::function<void(int64_t)> task = [&](int64_t t) {
    const int64_t lo = begin + t * size;
    if (lo < end) fn(lo, std::min(end, lo + size));
  };
  if (!pool().try_run(tasks, task)) fn(begin, end);
}

int64_t parallel_chunks(int64_t begin, int64_t end, int64_t chunk_size,
                        const std::function<void(int64_t chunk, int64_t lo, int64_t hi)>& fn) {
  chunk_size = std::max<int64_t>(chunk_size, 1);
  const int64_t chunks = chunk_count(begin, end, chunk_size);
  const std::function<void(int64_t)> task = [&](int64_t c) {
    const int64_t lo = begin + c * chunk_size;
    fn(c, lo, std::min(end, lo + chunk_size));
  };
  if (chunks >= 2 && pool().try_run(chunks, task)) return chunks;
  for (int64_t c = 0; c < chunks; ++c) task(c);
  return chunks;
}

InlineScope::InlineScope() : saved_(t_in_job) { t_in_job = true; }
InlineScope::~InlineScope() { t_in_job = saved_; }

// Scopes of several threads (API connections running PARFORs at once) nest: the first one in
// saves OpenBLAS's count, the last one out restores it.
namespace {
std::mutex g_blas_scope_mutex;
int g_blas_scopes = 0;
int g_blas_saved = 1;
}  // namespace

SingleThreadedBlas::SingleThreadedBlas() {
  std::lock_guard<std::mutex> lock(g_blas_scope_mutex);
  if (g_blas_scopes++ == 0) {
    g_blas_saved = openblas_get_num_threads();
    openblas_set_num_threads(1);
  }
}
SingleThreadedBlas::~SingleThreadedBlas() {
  std::lock_guard<std::mutex> lock(g_blas_scope_mutex);
  if (--g_blas_scopes == 0) openblas_set_num_threads(g_blas_saved);
}

}  // namespace dmlrt::kernels::cpu
