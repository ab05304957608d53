// rcm (rowClassMeet): the GPU run (fft_instructions.h). See Note [GPU rcm].
//
// Note [GPU rcm]
// SystemDS numbers each row's classes in the iteration order of a java.util.HashMap whose
// capacity carries over from row to row (Note [rcm label order] in kernels/cpu/row_class_meet.cpp):
// sequential, and decided by each row's distinct label pairs in first-occurrence order alone (a
// repeated pair adds a column, nothing else). So the device does the data-sized part: every cell's
// Java-int label pair, a radix sort by (row, pair, cell) that groups the cells into classes, each
// class's pair, first cell and size (kernels/cuda/row_class_meet.h). Only the classes' pairs and
// first cells come back (16 bytes a class, at most the participating cells, usually far fewer);
// the host orders each row's classes by first cell and replays the CPU's map over them
// (kernels::cpu::class_numbers), and the numbers (one a class) go up to be scattered into C and
// N, dense on the device.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "gpu_context/cuda_check.h"
#include "instructions/fft_instructions.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/row_class_meet.h"
#include "kernels/cuda/row_class_meet.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {

namespace kc = kernels::cuda;

void RowClassMeetInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead a = gpu_read(ec, gpu, a_);
  DeviceRead b = gpu_read(ec, gpu, b_);
  const int64_t ma = a->rows(), na = a->cols(), nb = b->cols();
  const int64_t nr = std::max(ma, b->rows()), nc = std::max(na, nb);
  const int64_t num_cols = std::min(na, nb), cells = ma * num_cols;
  auto output = [&](const char* what) {
    return mem::DeviceMatrix::dense(gpu.memory(), nr, nc, gpu.dtype(), gpu.stream(), what, true);
  };
  mem::DeviceMatrix out_c = output("gpu_rcm classes");
  mem::DeviceMatrix out_n = output("gpu_rcm class sizes");
  if (cells > 0) {
    const mem::DeviceMatrix& ad = a.dense(gpu);  // (ma, na) row-major
    const mem::DeviceMatrix& bd = b.dense(gpu);  // (mb, nb) row-major
    const bool b_one_row = b->rows() == 1;
    mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_" + opcode());
    kc::RcmClasses c;
    mem::with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      c = kc::rcm_classes<T>(ad.values_as<T>(), ma, na, bd.values_as<T>(), nb, b_one_row, num_cols,
                             scratch, gpu.stream());
    });
    int64_t d = 0;
    DMLRT_CHECK(cudaMemcpyAsync(&d, c.num, sizeof(d), cudaMemcpyDeviceToHost, gpu.stream()));
    gpu.synchronize("rcm class count");
    if (d > 0) {
      const size_t nd = static_cast<size_t>(d);
      std::vector<uint64_t> pair(nd);
      std::vector<int64_t> first(nd);
      DMLRT_CHECK(cudaMemcpyAsync(pair.data(), c.pair, nd * sizeof(uint64_t),
                                  cudaMemcpyDeviceToHost, gpu.stream()));
      DMLRT_CHECK(cudaMemcpyAsync(first.data(), c.first, nd * sizeof(int64_t),
                                  cudaMemcpyDeviceToHost, gpu.stream()));
      gpu.synchronize("rcm class pairs");
      // Counted with the session's transfers (-stats fromDev), as a download would be.
      gpu.stats().from_dev_n += 1;
      gpu.stats().from_dev_bytes += static_cast<int64_t>(nd * (sizeof(uint64_t) + sizeof(int64_t)));

      // Classes come grouped by row; within a row, order them by first cell.
      std::vector<int64_t> order(nd);
      std::iota(order.begin(), order.end(), 0);
      std::vector<int64_t> row_begin{0};
      for (size_t g = 0; g < nd;) {
        size_t e = g + 1;
        while (e < nd && first[e] / num_cols == first[g] / num_cols) ++e;
        std::sort(order.begin() + g, order.begin() + e,
                  [&](int64_t x, int64_t y) { return first[x] < first[y]; });
        row_begin.push_back(static_cast<int64_t>(e));
        g = e;
      }
      std::vector<int32_t> pa(nd), pb(nd);
      for (size_t k = 0; k < nd; ++k) {
        const uint64_t p = pair[order[k]];
        pa[k] = static_cast<int32_t>(static_cast<uint32_t>(p >> 32));
        pb[k] = static_cast<int32_t>(static_cast<uint32_t>(p & 0xffffffffULL));
      }
      const std::vector<int64_t> numbers = kernels::cpu::class_numbers(pa, pb, row_begin);
      std::vector<double> label(nd);
      for (size_t k = 0; k < nd; ++k) label[order[k]] = static_cast<double>(numbers[k]);
      const mem::DeviceMatrix labels =
          gpu.upload(kernels::MatrixBlock::dense(d, 1, std::move(label)), "gpu_rcm class numbers");
      mem::with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kc::launch_rcm_scatter<T>(c, cells, num_cols, labels.values_as<T>(), nc,
                                  out_c.values_as<T>(), out_n.values_as<T>(), gpu.stream());
      });
      out_c.set_nnz(-1);  // allocated zeroed (nnz 0); now holds the classes
      out_n.set_nnz(-1);
    }
  }
  set_gpu_output(ec, gpu, out_c_, std::move(out_c));
  set_gpu_output(ec, gpu, out_n_, std::move(out_n));
}

}  // namespace dmlrt::inst
