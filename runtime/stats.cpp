// Statistics: heavy-hitter table in SystemDS's -stats layout.
#include "runtime/stats.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <vector>

#include "memory/gpu_stats.h"

namespace dmlrt::runtime {

void Statistics::record(const std::string& name, double seconds) {
  Entry& e = entries_[name];
  e.seconds += seconds;
  e.count += 1;
}

void Statistics::add_seconds(const std::string& name, double seconds) {
  entries_[name].seconds += seconds;
}

void Statistics::add_parfor(int workers, int64_t tasks, int64_t iterations,
                            const std::vector<double>& worker_seconds) {
  for (size_t i = 0; i < worker_seconds.size(); ++i) {
    const double w = worker_seconds[i];
    parfor_min_worker_s_ =
        parfor_loops_ == 0 && i == 0 ? w : std::min(parfor_min_worker_s_, w);
    parfor_max_worker_s_ = std::max(parfor_max_worker_s_, w);
  }
  ++parfor_loops_;
  parfor_workers_ += workers;
  parfor_tasks_ += tasks;
  parfor_iterations_ += iterations;
}

void Statistics::add_paramserv(int workers, int64_t updates, double update_seconds,
                               double seconds) {
  ++ps_calls_;
  ps_workers_ += workers;
  ps_updates_ += updates;
  ps_update_s_ += update_seconds;
  ps_s_ += seconds;
}

void Statistics::merge(const Statistics& worker) {
  for (const auto& [name, e] : worker.entries_) {
    Entry& mine = entries_[name];
    mine.seconds += e.seconds;
    mine.count += e.count;
  }
  read_seconds_ += worker.read_seconds_;
  read_bytes_ += worker.read_bytes_;
  reads_ += worker.reads_;
  // a paramserv call inside a PARFOR worker
  ps_calls_ += worker.ps_calls_;
  ps_workers_ += worker.ps_workers_;
  ps_updates_ += worker.ps_updates_;
  ps_update_s_ += worker.ps_update_s_;
  ps_s_ += worker.ps_s_;
}

void Statistics::print(std::ostream& os, int top_n) const {
  std::ios old(nullptr);
  old.copyfmt(os);
  os << std::fixed << std::setprecision(3);
  os << "SystemDS Statistics:\n";
  os << "Total elapsed time:\t\t" << (parse_seconds_ + execute_seconds_) << " sec.\n";
  os << "Total compilation time:\t\t" << parse_seconds_ << " sec.\n";
  os << "Total execution time:\t\t" << execute_seconds_ << " sec.\n";
  // dmlrt's line (Note [Read time]): inputs read, part of the execution time but of no
  // instruction's.
  if (reads_ > 0)
    os << "Input read time:\t\t" << read_seconds_ << " sec (" << reads_
       << (reads_ == 1 ? " input, " : " inputs, ") << read_bytes_ << " bytes).\n";
  // dmlrt's line (Note [Parallel PARFOR]): loops run on worker threads, with their balance.
  if (parfor_loops_ > 0)
    os << "ParFor (loops / workers / tasks / iterations):\t" << parfor_loops_ << " / "
       << parfor_workers_ << " / " << parfor_tasks_ << " / " << parfor_iterations_ << "; worker time min / max: " << parfor_min_worker_s_
       << " / " << parfor_max_worker_s_ << " sec.\n";
  // dmlrt's paramserv line (SystemDS prints a "Paramserv" block of its own timers).
  if (ps_calls_ > 0)
    os << "Paramserv (calls / workers / model updates):\t" << ps_calls_ << " / " << ps_workers_
       << " / " << ps_updates_ << "; time: " << ps_s_ << " sec, of it model updates "
       << ps_update_s_ << " sec.\n";
  if (gpu_ != nullptr) os << mem::format_gpu_stats(*gpu_);  // SystemDS prints it here

  std::vector<std::pair<std::string, Entry>> rows(entries_.begin(), entries_.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.seconds > b.second.seconds;
  });
  if (top_n >= 0 && rows.size() > static_cast<size_t>(top_n)) rows.resize(static_cast<size_t>(top_n));

  size_t wname = std::string("Instruction").size();
  for (const auto& r : rows) wname = std::max(wname, r.first.size());
  wname = std::min(wname, static_cast<size_t>(max_wrap_length_));
  const int wnum = std::max<int>(1, static_cast<int>(std::to_string(rows.size()).size()));
  os << "Heavy hitter instructions:\n";
  os << ' ' << std::setw(wnum + 1) << "#" << "  " << std::left << std::setw(static_cast<int>(wname))
     << "Instruction" << std::right << "  " << std::setw(7) << "Time(s)" << "  " << std::setw(5)
     << "Count" << '\n';
  int i = 1;
  for (const auto& r : rows) {
    // As SystemDS: a name longer than the column continues on the next lines.
    os << ' ' << std::setw(wnum + 1) << i++ << "  " << std::left
       << std::setw(static_cast<int>(wname)) << r.first.substr(0, wname) << std::right << "  "
       << std::setw(7) << r.second.seconds << "  " << std::setw(5) << r.second.count << '\n';
    for (size_t at = wname; at < r.first.size(); at += wname) {
      os << ' ' << std::setw(wnum + 1) << "" << "  " << r.first.substr(at, wname) << '\n';
    }
  }
  os.copyfmt(old);
}

}  // namespace dmlrt::runtime
