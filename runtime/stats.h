// Run statistics for -stats: totals and the heavy-hitter table in SystemDS's layout.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace dmlrt::mem {
struct GpuStats;
}

namespace dmlrt::runtime {

class Statistics {
 public:
  // Adds one execution of the instruction named `name` (opcode, gpu_<opcode> or function name).
  void record(const std::string& name, double seconds);
  struct Entry {
    double seconds = 0.0;
    int64_t count = 0;
  };
  // The entry of `name`, created empty: it stays at this address for the life of these
  // statistics (the interpreter keeps it per instruction instead of looking the name up per run).
  Entry& entry(const std::string& name) { return entries_[name]; }
  // Adds time to an instruction already counted by record (GPU event times arrive later).
  void add_seconds(const std::string& name, double seconds);
  // The GPU session's counters: printed as SystemDS's GPU block when set (a run with a GPU).
  void set_gpu_stats(const mem::GpuStats* gpu) { gpu_ = gpu; }
  // One input read (Note [Read time] in interpreter.cpp): its seconds and the bytes of its file(s).
  void add_read(double seconds, int64_t bytes) {
    read_seconds_ += seconds;
    read_bytes_ += bytes;
    ++reads_;
  }
  // A PARFOR run on worker threads (Note [Parallel PARFOR] in interpreter.cpp): its worker count,
  // iterations and each worker's seconds.
  void add_parfor(int workers, int64_t tasks, int64_t iterations,
                  const std::vector<double>& worker_seconds);
  // A paramserv call: its workers (this process's), the server's model updates and their time.
  void add_paramserv(int workers, int64_t updates, double update_seconds, double seconds);
  // Adds a worker's instruction entries and reads to these.
  void merge(const Statistics& worker);
  void set_parse_seconds(double s) { parse_seconds_ = s; }
  void set_execute_seconds(double s) { execute_seconds_ = s; }
  // sysds.stats.maxWrapLength: longer instruction names wrap onto continuation lines.
  void set_max_wrap_length(int n) { max_wrap_length_ = n > 0 ? n : 1; }

  // "SystemDS Statistics:"-style block; top_n rows of the heavy-hitter table sorted by time.
  void print(std::ostream& os, int top_n) const;

  const std::map<std::string, Entry>& entries() const { return entries_; }

 private:
  std::map<std::string, Entry> entries_;
  double parse_seconds_ = 0.0;
  double execute_seconds_ = 0.0;
  double read_seconds_ = 0.0;
  int64_t read_bytes_ = 0, reads_ = 0;
  int64_t parfor_loops_ = 0, parfor_workers_ = 0, parfor_tasks_ = 0, parfor_iterations_ = 0;
  double parfor_min_worker_s_ = 0.0, parfor_max_worker_s_ = 0.0;
  int64_t ps_calls_ = 0, ps_workers_ = 0, ps_updates_ = 0;
  double ps_update_s_ = 0.0, ps_s_ = 0.0;
  int max_wrap_length_ = 30;  // SystemDS's default
  const mem::GpuStats* gpu_ = nullptr;
};

}  // namespace dmlrt::runtime
