// The -stats GPU block; labels verbatim from SystemDS (reference/systemds-format.md §5.3).
#include "memory/gpu_stats.h"

#include <iomanip>
#include <sstream>

namespace dmlrt::mem {

std::string format_gpu_stats(const GpuStats& s) {
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
  return os.str();
}

}  // namespace dmlrt::mem
