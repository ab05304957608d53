// RowFetcher; see row_fetcher.h.
#include "memory/row_fetcher.h"

#include <algorithm>

#include "gpu_context/error.h"

#ifdef DMLRT_WITH_CUDA
#include <cuda_runtime.h>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/csr_ops.h"
#endif

namespace dmlrt::mem {

#ifdef DMLRT_WITH_CUDA

RowFetcher::RowFetcher(GpuSession& gpu, const DeviceMatrix& m, int64_t max_rows,
                       const std::string& what)
    : gpu_(gpu), m_(m), max_rows_(std::max<int64_t>(max_rows, 1)) {
  if (m_.is_sparse())
    buffer_ = gpu_.scratch(static_cast<size_t>(max_rows_ * m_.cols()) * dtype_size(m_.dtype()),
                           what + " (row fetcher)");
}

const void* RowFetcher::rows(int64_t r0, int64_t r1) {
  DMLRT_REQUIRE(r0 >= 0 && r1 <= m_.rows() && r1 - r0 <= max_rows_ && r0 <= r1, RuntimeError,
                "row fetcher: rows [" << r0 << ", " << r1 << ") outside the " << m_.rows()
                                      << "-row matrix or over the " << max_rows_ << "-row chunk");
  const size_t elem = dtype_size(m_.dtype());
  if (!m_.is_sparse())
    return static_cast<const char*>(m_.values()) + static_cast<size_t>(r0 * m_.cols()) * elem;
  const size_t bytes = static_cast<size_t>((r1 - r0) * m_.cols()) * elem;
  if (bytes == 0) return buffer_.data();
  DMLRT_CHECK(cudaMemsetAsync(buffer_.data(), 0, bytes, gpu_.stream()));
  if (m_.nnz() == 0) return buffer_.data();
  const int64_t c1 = m_.cols();
  auto fill = [&](auto idx_tag, auto val_tag) {
    using I = decltype(idx_tag);
    using T = decltype(val_tag);
    kernels::cuda::launch_csr_slice_to_dense(static_cast<const I*>(m_.row_ptr()),
                                             static_cast<const I*>(m_.col_idx()), m_.values_as<T>(),
                                             r0, r1, 0, c1, buffer_.as<T>(), gpu_.stream());
  };
  const bool wide = m_.index_width() == IndexWidth::k64;
  with_dtype(m_.dtype(),
             [&](auto val_tag) { wide ? fill(int64_t{}, val_tag) : fill(int32_t{}, val_tag); });
  return buffer_.data();
}

#endif  // DMLRT_WITH_CUDA

}  // namespace dmlrt::mem
