// Host <-> device transfers of GpuSession: chunked through a double-buffered pinned staging area
// (cudaMemcpyAsync needs page-locked memory to be asynchronous and to run at full PCIe speed;
// copying whole matrices into pinned memory would pin unbounded host memory), with the float
// conversions of -precision single. See gpu_session.h.
#ifdef DMLRT_WITH_CUDA
#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "gpu_context/cuda_check.h"
#include "gpu_context/host_sync_hook.h"
#include "kernels/cuda/convert.h"
#include "memory/gpu_session.h"

namespace dmlrt::mem {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Host CSR keeps column indices sorted within rows; a library result (SpGEMM) need not promise it.
void sort_rows(const std::vector<int64_t>& rp, std::vector<int32_t>& ci, std::vector<double>& v) {
  std::vector<std::pair<int32_t, double>> row;
  for (size_t r = 0; r + 1 < rp.size(); ++r) {
    const size_t a = static_cast<size_t>(rp[r]), b = static_cast<size_t>(rp[r + 1]);
    if (std::is_sorted(ci.begin() + a, ci.begin() + b)) continue;
    row.clear();
    for (size_t i = a; i < b; ++i) row.emplace_back(ci[i], v[i]);
    std::sort(row.begin(), row.end());
    for (size_t i = a; i < b; ++i) {
      ci[i] = row[i - a].first;
      v[i] = row[i - a].second;
    }
  }
}

}  // namespace

void GpuSession::copy_h2d(void* dst, const void* src, size_t bytes) {
  const size_t half = staging_.bytes() / 2;
  char* stg = static_cast<char*>(staging_.data());
  for (size_t off = 0, i = 0; off < bytes; off += half, ++i) {
    const size_t n = std::min(half, bytes - off);
    const int h = static_cast<int>(i % 2);
    // The previous copy out of this half must be done before it is overwritten.
    DMLRT_CHECK(cudaEventSynchronize(staging_ready_[h].get()));
    std::memcpy(stg + h * half, static_cast<const char*>(src) + off, n);
    DMLRT_CHECK_CTX(cudaMemcpyAsync(static_cast<char*>(dst) + off, stg + h * half, n,
                                    cudaMemcpyHostToDevice, stream()),
                    n << " bytes");
    DMLRT_CHECK(cudaEventRecord(staging_ready_[h].get(), stream()));
  }
}

// Copies `bytes` from the device in chunks and hands each chunk (pinned host memory, offset, size)
// to `consume`; chunk i+1 is in flight while chunk i is consumed.
template <typename Consume>
static void d2h_chunks(GpuSession& s, PinnedBuffer& staging, gpu::UniqueEvent* ready,
                       const void* src, size_t bytes, Consume consume) {
  const size_t half = staging.bytes() / 2;
  char* stg = static_cast<char*>(staging.data());
  const size_t chunks = (bytes + half - 1) / half;
  auto issue = [&](size_t i) {
    const size_t off = i * half, n = std::min(half, bytes - off);
    const int h = static_cast<int>(i % 2);
    DMLRT_CHECK_CTX(cudaMemcpyAsync(stg + h * half, static_cast<const char*>(src) + off, n,
                                    cudaMemcpyDeviceToHost, s.stream()),
                    n << " bytes");
    DMLRT_CHECK(cudaEventRecord(ready[h].get(), s.stream()));
  };
  auto drain = [&](size_t i) {
    const size_t off = i * half, n = std::min(half, bytes - off);
    const int h = static_cast<int>(i % 2);
    DMLRT_CHECK_CTX(cudaEventSynchronize(ready[h].get()), "device to host copy");
    consume(stg + h * half, off, n);
  };
  for (size_t i = 0; i < chunks; ++i) {
    issue(i);
    if (i > 0) drain(i - 1);
  }
  if (chunks > 0) drain(chunks - 1);
}

void GpuSession::copy_d2h(void* dst, const void* src, size_t bytes) {
  d2h_chunks(*this, staging_, staging_ready_, src, bytes,
             [&](const char* chunk, size_t off, size_t n) {
               std::memcpy(static_cast<char*>(dst) + off, chunk, n);
             });
}

void GpuSession::upload_values(void* dst, const double* src, int64_t n, DType dtype) {
  if (n == 0) return;
  if (dtype == DType::kFloat64) {
    copy_h2d(dst, src, static_cast<size_t>(n) * sizeof(double));
    return;
  }
  // Single precision: doubles go up in chunks and a kernel narrows them (DESIGN.md §6: the
  // conversion runs on the device).
  const auto t0 = Clock::now();
  const int64_t chunk = static_cast<int64_t>(staging_.bytes() / 2 / sizeof(double));
  const int64_t tmp_n = std::min(n, chunk);
  DeviceAllocation tmp =
      scratch(static_cast<size_t>(tmp_n) * sizeof(double), "upload staging (fp64)");
  for (int64_t off = 0; off < n; off += chunk) {
    const int64_t c = std::min(chunk, n - off);
    copy_h2d(tmp.data(), src + off, static_cast<size_t>(c) * sizeof(double));
    kernels::cuda::launch_double_to_float(tmp.as<double>(), static_cast<float*>(dst) + off, c,
                                          stream());
  }
  stats_.d2f_s += since(t0);
  ++stats_.d2f_n;
}

void GpuSession::download_values(double* dst, const void* src, int64_t n, DType dtype,
                                 bool /*for_eviction*/) {
  if (n == 0) return;
  if (dtype == DType::kFloat64) {
    copy_d2h(dst, src, static_cast<size_t>(n) * sizeof(double));
    return;
  }
  // Single precision widens on the host while draining the staging area: no device memory is
  // needed, which eviction requires (it runs when the device is full), and the bytes over the bus
  // are halved.
  const auto t0 = Clock::now();
  d2h_chunks(*this, staging_, staging_ready_, src, static_cast<size_t>(n) * sizeof(float),
             [&](const char* chunk, size_t off, size_t bytes) {
               const float* f = reinterpret_cast<const float*>(chunk);
               double* out = dst + off / sizeof(float);
               for (size_t i = 0; i < bytes / sizeof(float); ++i) out[i] = f[i];
             });
  stats_.f2d_s += since(t0);
  ++stats_.f2d_n;
}

DeviceMatrix GpuSession::upload(const kernels::MatrixBlock& block, const std::string& what) {
  gpu::before_host_sync("copy to the device");
  const auto t0 = Clock::now();
  const DType dt = dtype();
  DeviceMatrix m;
  size_t bytes = 0;
  if (!block.is_sparse()) {
    const int64_t nnz = block.nnz();
    m = DeviceMatrix::dense(*memory_, block.rows(), block.cols(), dt, stream(), what, nnz == 0);
    if (nnz != 0) upload_values(m.values(), block.dense_data(), block.size(), dt);
    m.set_nnz(nnz);
    bytes = static_cast<size_t>(block.size()) * sizeof(double);
  } else {
    const std::vector<int64_t>& rp = block.row_ptr();
    const int64_t stored = rp.empty() ? 0 : rp.back();
    const IndexWidth w = DeviceMatrix::width_for(block.rows(), block.cols(), stored);
    m = DeviceMatrix::csr(*memory_, block.rows(), block.cols(), stored, dt, w, stream(), what);
    if (stored > 0) {
      const auto tc = Clock::now();
      if (w == IndexWidth::k32) {
        // Host CSR offsets are int64; the device keeps int32 (Note [CSR index width]).
        std::vector<int32_t> rp32(rp.begin(), rp.end());
        copy_h2d(m.row_ptr(), rp32.data(), rp32.size() * sizeof(int32_t));
        copy_h2d(m.col_idx(), block.col_idx().data(), block.col_idx().size() * sizeof(int32_t));
      } else {
        std::vector<int64_t> ci64(block.col_idx().begin(), block.col_idx().end());
        copy_h2d(m.row_ptr(), rp.data(), rp.size() * sizeof(int64_t));
        copy_h2d(m.col_idx(), ci64.data(), ci64.size() * sizeof(int64_t));
      }
      stats_.sparse_conv_s += since(tc);
      ++stats_.sparse_conv_n;
      upload_values(m.values(), block.csr_values().data(), stored, dt);
    }
    bytes = static_cast<size_t>(stored) * (sizeof(double) + sizeof(int32_t)) +
            rp.size() * sizeof(int64_t);
  }
  stats_.to_dev_s += since(t0);
  ++stats_.to_dev_n;
  stats_.to_dev_bytes += static_cast<int64_t>(bytes);
  GpuStats::OpTransfers& op = stats_.by_op[stats_.current_op_label()];
  op.to_dev_bytes += static_cast<int64_t>(bytes);
  ++op.to_dev_n;
  return m;
}

kernels::MatrixBlock GpuSession::download(const DeviceMatrix& m, bool for_eviction) {
  gpu::before_host_sync("copy to the host");
  const auto t0 = Clock::now();
  kernels::MatrixBlock out;
  size_t bytes = 0;
  if (!m.is_sparse()) {
    out = kernels::MatrixBlock::dense(m.rows(), m.cols());
    download_values(out.dense_data(), m.values(), m.size(), m.dtype(), for_eviction);
    bytes = static_cast<size_t>(m.size()) * dtype_size(m.dtype());
  } else if (m.nnz() == 0) {
    out = kernels::MatrixBlock::empty_sparse(m.rows(), m.cols());
  } else {
    const int64_t nnz = m.nnz();
    std::vector<int64_t> rp(static_cast<size_t>(m.rows() + 1));
    std::vector<int32_t> ci(static_cast<size_t>(nnz));
    std::vector<double> vals(static_cast<size_t>(nnz));
    if (m.index_width() == IndexWidth::k32) {
      std::vector<int32_t> rp32(rp.size());
      copy_d2h(rp32.data(), m.row_ptr(), rp32.size() * sizeof(int32_t));
      std::copy(rp32.begin(), rp32.end(), rp.begin());
      copy_d2h(ci.data(), m.col_idx(), ci.size() * sizeof(int32_t));
    } else {
      DMLRT_REQUIRE(
          m.cols() <= std::numeric_limits<int32_t>::max(), NotSupported,
          "device to host copy of a " << m.describe() << ": host CSR column indices are int32");
      std::vector<int64_t> ci64(ci.size());
      copy_d2h(rp.data(), m.row_ptr(), rp.size() * sizeof(int64_t));
      copy_d2h(ci64.data(), m.col_idx(), ci64.size() * sizeof(int64_t));
      std::copy(ci64.begin(), ci64.end(), ci.begin());
    }
    download_values(vals.data(), m.values(), nnz, m.dtype(), for_eviction);
    sort_rows(rp, ci, vals);
    bytes = static_cast<size_t>(nnz) * (dtype_size(m.dtype()) + 4) + rp.size() * 4;
    out = kernels::MatrixBlock::csr(m.rows(), m.cols(), std::move(rp), std::move(ci),
                                    std::move(vals));
  }
  out.examine_format();
  stats_.from_dev_s += since(t0);
  ++stats_.from_dev_n;
  stats_.from_dev_bytes += static_cast<int64_t>(bytes);
  count_from_dev(bytes);
  return out;
}

double GpuSession::read_element(const DeviceMatrix& m, int64_t r, int64_t c) {
  gpu::before_host_sync("read of a device value");
  DMLRT_REQUIRE(!m.is_sparse() && r >= 0 && c >= 0 && r < m.rows() && c < m.cols(), RuntimeError,
                "read_element(" << r << ", " << c << ") of a " << m.describe());
  const size_t es = dtype_size(m.dtype());
  const char* p = static_cast<const char*>(m.values()) + static_cast<size_t>(r * m.cols() + c) * es;
  double out = 0;
  with_dtype(m.dtype(), [&](auto tag) {
    decltype(tag) v = 0;
    copy_d2h(&v, p, sizeof v);
    out = v;
  });
  count_from_dev(es);
  return out;
}

// Pinned slots of 8 bytes, in chunks of kSlotsPerChunk, reused once their last reference goes.
// The first chunk comes with the session's first slot (outside a capture in practice: the graph
// runner's first run of a list is eager). A slot may outlive its session in a resolved deferred
// scalar's copies, so the pool is shared with the slots.
struct GpuSession::SlotPool {
  static constexpr size_t kSlotsPerChunk = 512;
  std::mutex m;
  std::vector<PinnedBuffer> chunks;
  std::vector<void*> free;

  void* take() {
    std::lock_guard<std::mutex> lock(m);
    if (free.empty()) {
      chunks.emplace_back(kSlotsPerChunk * 8);
      char* base = static_cast<char*>(chunks.back().data());
      for (size_t i = kSlotsPerChunk; i-- > 0;) free.push_back(base + 8 * i);
    }
    void* p = free.back();
    free.pop_back();
    return p;
  }
  void give(void* p) {
    std::lock_guard<std::mutex> lock(m);
    free.push_back(p);
  }
};

std::shared_ptr<HostSlot> GpuSession::copy_element_async(const DeviceMatrix& m) {
  DMLRT_REQUIRE(!m.is_sparse() && m.rows() >= 1 && m.cols() >= 1, RuntimeError,
                "copy_element_async of a " << m.describe());
  if (!slots_) slots_ = std::make_shared<SlotPool>();
  std::shared_ptr<SlotPool> pool = slots_;
  auto* raw = new HostSlot{pool->take(), m.dtype()};
  std::shared_ptr<HostSlot> slot(raw, [pool](HostSlot* s) {
    pool->give(s->host);
    delete s;
  });
  const size_t es = dtype_size(m.dtype());
  DMLRT_CHECK_CTX(cudaMemcpyAsync(slot->host, m.values(), es, cudaMemcpyDeviceToHost, stream()),
                  "copy of a device value to the host");
  count_from_dev(es);
  return slot;
}

double GpuSession::read_slot(const HostSlot& slot) {
  synchronize("read of a device value");
  double out = 0;
  with_dtype(slot.dtype, [&](auto tag) {
    decltype(tag) v = 0;
    std::memcpy(&v, slot.host, sizeof v);
    out = v;
  });
  return out;
}

void GpuSession::count_from_dev(size_t bytes) {
  GpuStats::OpTransfers& op = stats_.by_op[stats_.current_op_label()];
  op.from_dev_bytes += static_cast<int64_t>(bytes);
  ++op.from_dev_n;
  op.largest_from_dev = std::max(op.largest_from_dev, static_cast<int64_t>(bytes));
}

}  // namespace dmlrt::mem
#endif  // DMLRT_WITH_CUDA
