// The -stats GPU block; labels verbatim from SystemDS (reference/systemds-format.md §5.3).
#include "memory/gpu_stats.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <vector>

namespace dmlrt::mem {

std::string format_gpu_stats(const GpuStats& s, int top_ops) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3);
  os << "CUDA/CuLibraries init time:\t" << s.cuda_init_s << "/" << s.libraries_init_s << " sec.\n";
  os << "Number of executed GPU inst:\t" << s.executed_instructions << ".\n";
  os << "GPU mem alloc time  (alloc(success/fail) / dealloc / set0):\t"
     << (s.alloc_success_s + s.alloc_fail_s) << "(" << s.alloc_success_s << "/" << s.alloc_fail_s
     << ") / " << s.dealloc_s << " / " << s.set0_s << " sec.\n";
  os << "GPU mem alloc count (alloc(success/fail/reuse) / dealloc / set0):\t"
     << (s.alloc_success_n + s.alloc_fail_n + s.alloc_reuse_n) << "(" << s.alloc_success_n << "/"
     << s.alloc_fail_n << "/" << s.alloc_reuse_n << ") / " << s.dealloc_n << " / " << s.set0_n
     << ".\n";
  os << "GPU mem tx time  (toDev(d2f/s2d) / fromDev(f2d/s2h) / evict(d2s/size)):\t" << s.to_dev_s
     << "(" << s.d2f_s << "/" << s.s2d_s << ") / " << s.from_dev_s << "(" << s.f2d_s << "/"
     << s.s2h_s << ") / " << s.evict_s << "(" << s.d2s_s << "/" << s.evict_size_s << ") sec.\n";
  os << "GPU mem tx count (toDev(d2f/s2d) / fromDev(f2d/s2h) / evict(d2s/size)):\t" << s.to_dev_n
     << "(" << s.d2f_n << "/" << s.s2d_n << ") / " << s.from_dev_n << "(" << s.f2d_n << "/"
     << s.s2h_n << ") / " << s.evict_n << "(" << s.d2s_n << "/" << s.evict_size_n << ").\n";
  os << "GPU conversion time  (sparseConv / sp2dense / dense2sp):\t" << s.sparse_conv_s << " / "
     << s.sparse_to_dense_s << " / " << s.dense_to_sparse_s << " sec.\n";
  os << "GPU conversion count (sparseConv / sp2dense / dense2sp):\t" << s.sparse_conv_n << " / "
     << s.sparse_to_dense_n << " / " << s.dense_to_sparse_n << ".\n";
  os << "GPU mem tx bytes (toDev / fromDev / evict):\t" << s.to_dev_bytes << " / "
     << s.from_dev_bytes << " / " << s.evict_bytes << ".\n";
  // dmlrt's own line: time spent timing candidates, not computing (already inside the heavy
  // hitters' times of the instructions that asked), and how much the tuning cache saved.
  os << "GPU autotuning time (conv find / gemm plans):\t" << s.tune_conv.seconds << " / "
     << s.tune_gemm.seconds << " sec, shapes timed " << s.tune_conv.timed << " / "
     << s.tune_gemm.timed << ", from the tuning cache " << s.tune_conv.from_file << " / "
     << s.tune_gemm.from_file << ".\n";
  if (s.graph_captures > 0 || !s.graph_fallbacks.empty()) {
    int64_t fallbacks = 0;
    for (const auto& kv : s.graph_fallbacks) fallbacks += kv.second;
    os << "CUDA graphs (captures / replays / updated / recaptures / evicted / fallbacks):\t"
       << s.graph_captures << " / " << s.graph_replays << " (" << s.graph_replayed_instructions
       << " inst) / " << s.graph_updated_replays << " (" << s.graph_node_updates << " nodes) / "
       << s.graph_recaptures << " / " << s.graph_evictions << " / " << fallbacks << ".\n";
    if (s.graph_walked_instructions > 0)
      os << "  graph replay host time:\t" << s.graph_replay_host_s << " sec for "
         << s.graph_walked_instructions << " instructions ("
         << 1e6 * s.graph_replay_host_s / static_cast<double>(s.graph_walked_instructions)
         << " us each).\n";
    if (s.graph_capture_runs > 0)
      os << "  graph capture host time:\t" << s.graph_capture_host_s << " sec for "
         << s.graph_capture_runs << " runs captured (" << s.graph_instantiations
         << " instantiations: " << s.graph_instantiate_s << " sec).\n";
    for (const auto& [reason, n] : s.graph_fallbacks)
      os << "  graph fallback: " << reason << ":\t" << n << ".\n";
  }
  // dmlrt's own lines (Note [Transfers by instruction]): one per instruction, most bytes first.
  std::vector<std::pair<std::string, GpuStats::OpTransfers>> rows(s.by_op.begin(), s.by_op.end());
  auto total = [](const GpuStats::OpTransfers& t) { return t.to_dev_bytes + t.from_dev_bytes; };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const auto& a, const auto& b) { return total(a.second) > total(b.second); });
  if (top_ops >= 0 && rows.size() > static_cast<size_t>(top_ops))
    rows.resize(static_cast<size_t>(top_ops));
  if (!rows.empty())
    os << "GPU mem tx by instruction (toDev bytes/count / fromDev bytes/count / largest fromDev):\n";
  for (const auto& [name, t] : rows) {
    os << "  " << (name.empty() ? "(outside instructions)" : name) << ":\t" << t.to_dev_bytes << "/"
       << t.to_dev_n << " / " << t.from_dev_bytes << "/" << t.from_dev_n << " / "
       << t.largest_from_dev << ".\n";
  }
  return os.str();
}

}  // namespace dmlrt::mem
