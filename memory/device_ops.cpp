// Format conversions and nnz counts of device matrices (GpuSession members), through cuSPARSE's
// generic API. They make temporaries: an input's own representation is never replaced (SystemDS
// converts in place, which makes one op's densification permanent for every later op).
#ifdef DMLRT_WITH_CUDA
#include <chrono>

#include "gpu_context/cusparse_descriptors.h"
#include "gpu_context/host_sync_hook.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/convert.h"
#include "memory/gpu_session.h"

namespace dmlrt::mem {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

cudaDataType cuda_type(DType t) { return t == DType::kFloat64 ? CUDA_R_64F : CUDA_R_32F; }

}  // namespace

DeviceMatrix GpuSession::to_dense(const DeviceMatrix& m, const std::string& what) {
  DMLRT_REQUIRE(m.is_sparse(), RuntimeError, "to_dense of a matrix that is already dense");
  if (m.nnz() == 0) return DeviceMatrix::dense(*memory_, m.rows(), m.cols(), m.dtype(), stream(),
                                               what, /*zero=*/true);
  const auto t0 = Clock::now();
  DeviceMatrix d = DeviceMatrix::dense(*memory_, m.rows(), m.cols(), m.dtype(), stream(), what);
  const cudaDataType vt = cuda_type(m.dtype());
  gpu::UniqueSpMat sp = gpu::make_csr(m.rows(), m.cols(), m.nnz(), m.row_ptr(), m.col_idx(),
                                      m.values(), m.index_width() == IndexWidth::k64, vt);
  // (rows, cols) row-major
  gpu::UniqueDnMat dn =
      gpu::make_dense(m.rows(), m.cols(), m.cols(), d.values(), vt, CUSPARSE_ORDER_ROW);
  cusparseHandle_t h = context_->cusparse();
  size_t buf_bytes = 0;
  DMLRT_CHECK_CTX(cusparseSparseToDense_bufferSize(h, sp.get(), dn.get(),
                                                   CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &buf_bytes),
                  m.describe());
  DeviceAllocation buf = scratch(buf_bytes, "cusparseSparseToDense buffer");
  DMLRT_CHECK_CTX(
      cusparseSparseToDense(h, sp.get(), dn.get(), CUSPARSE_SPARSETODENSE_ALG_DEFAULT, buf.data()),
      m.describe());
  d.set_nnz(m.nnz());
  stats_.sparse_to_dense_s += since(t0);
  ++stats_.sparse_to_dense_n;
  return d;
}

DeviceMatrix GpuSession::to_csr(const DeviceMatrix& m, const std::string& what) {
  DMLRT_REQUIRE(!m.is_sparse(), RuntimeError, "to_csr of a matrix that is already CSR");
  const auto t0 = Clock::now();
  const cudaDataType vt = cuda_type(m.dtype());
  const IndexWidth w = DeviceMatrix::width_for(m.rows(), m.cols(), m.size());
  const bool i64 = w == IndexWidth::k64;
  const size_t isz = i64 ? 8 : 4;
  if (m.size() == 0) return DeviceMatrix::csr(*memory_, m.rows(), m.cols(), 0, m.dtype(), w,
                                              stream(), what);
  // cuSPARSE's analysis copies the count of nonzeros to the host and waits for it: inside a
  // captured CUDA graph that copy would only be recorded and the count read unwritten.
  gpu::before_host_sync("count of nonzeros (dense to CSR)");
  DeviceAllocation row_ptr = scratch(static_cast<size_t>(m.rows() + 1) * isz,
                                     what + " (csr row offsets)");
  gpu::UniqueDnMat dn =
      gpu::make_dense(m.rows(), m.cols(), m.cols(), m.values(), vt, CUSPARSE_ORDER_ROW);
  gpu::UniqueSpMat sp =
      gpu::make_csr(m.rows(), m.cols(), 0, row_ptr.data(), nullptr, nullptr, i64, vt);
  cusparseHandle_t h = context_->cusparse();
  size_t buf_bytes = 0;
  DMLRT_CHECK_CTX(cusparseDenseToSparse_bufferSize(h, dn.get(), sp.get(),
                                                   CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, &buf_bytes),
                  m.describe());
  DeviceAllocation buf = scratch(buf_bytes, "cusparseDenseToSparse buffer");
  DMLRT_CHECK_CTX(cusparseDenseToSparse_analysis(h, dn.get(), sp.get(),
                                                 CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, buf.data()),
                  m.describe());
  int64_t r = 0, c = 0, nnz = 0;
  DMLRT_CHECK(cusparseSpMatGetSize(sp.get(), &r, &c, &nnz));
  DeviceAllocation col_idx = scratch(static_cast<size_t>(nnz) * isz, what + " (csr column indices)");
  DeviceAllocation values =
      scratch(static_cast<size_t>(nnz) * dtype_size(m.dtype()), what + " (csr values)");
  if (nnz > 0) {
    DMLRT_CHECK(cusparseCsrSetPointers(sp.get(), row_ptr.data(), col_idx.data(), values.data()));
    DMLRT_CHECK_CTX(cusparseDenseToSparse_convert(h, dn.get(), sp.get(),
                                                  CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, buf.data()),
                    m.describe());
  }
  stats_.dense_to_sparse_s += since(t0);
  ++stats_.dense_to_sparse_n;
  return DeviceMatrix::adopt_csr(m.rows(), m.cols(), nnz, m.dtype(), w, std::move(row_ptr),
                                 std::move(col_idx), std::move(values));
}

DeviceMatrix GpuSession::transpose(const DeviceMatrix& m, const std::string& what) {
  if (!m.is_sparse()) {
    DeviceMatrix t = DeviceMatrix::dense(*memory_, m.cols(), m.rows(), m.dtype(), stream(), what);
    with_dtype(m.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::transpose_row_major(context_->cublas(), m.rows(), m.cols(), m.values_as<T>(),
                                         t.values_as<T>());
    });
    t.set_nnz(m.nnz());
    return t;
  }
  if (m.nnz() == 0)
    return DeviceMatrix::csr(*memory_, m.cols(), m.rows(), 0, m.dtype(), m.index_width(), stream(),
                             what);
  DMLRT_REQUIRE(m.index_width() == IndexWidth::k32, NotSupported,
                "transpose of a " << m.describe()
                                  << ": cuSPARSE's csr2csc takes int32 indices only "
                                     "(see Note [CSR index width])");
  DeviceMatrix t = DeviceMatrix::csr(*memory_, m.cols(), m.rows(), m.nnz(), m.dtype(),
                                     IndexWidth::k32, stream(), what);
  const cudaDataType vt = cuda_type(m.dtype());
  cusparseHandle_t h = context_->cusparse();
  const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols()),
            nnz = static_cast<int>(m.nnz());
  size_t buf_bytes = 0;
  // The CSC of m is the CSR of its transpose.
  DMLRT_CHECK_CTX(cusparseCsr2cscEx2_bufferSize(
                      h, rows, cols, nnz, m.values(), static_cast<int*>(m.row_ptr()),
                      static_cast<int*>(m.col_idx()), t.values(), static_cast<int*>(t.row_ptr()),
                      static_cast<int*>(t.col_idx()), vt, CUSPARSE_ACTION_NUMERIC,
                      CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &buf_bytes),
                  m.describe());
  DeviceAllocation buf = scratch(buf_bytes, "cusparseCsr2cscEx2 buffer");
  DMLRT_CHECK_CTX(
      cusparseCsr2cscEx2(h, rows, cols, nnz, m.values(), static_cast<int*>(m.row_ptr()),
                         static_cast<int*>(m.col_idx()), t.values(), static_cast<int*>(t.row_ptr()),
                         static_cast<int*>(t.col_idx()), vt, CUSPARSE_ACTION_NUMERIC,
                         CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buf.data()),
      m.describe());
  return t;
}

int64_t GpuSession::count_nnz(const DeviceMatrix& m) {
  if (m.is_sparse() || m.nnz() >= 0) return m.nnz();
  gpu::before_host_sync("count of nonzeros");
  DeviceAllocation count = scratch(sizeof(unsigned long long), "nnz count", /*zero=*/true);
  with_dtype(m.dtype(), [&](auto tag) {
    kernels::cuda::launch_count_nonzero(m.values_as<decltype(tag)>(), m.size(),
                                        count.as<unsigned long long>(), stream());
  });
  unsigned long long n = 0;
  copy_d2h(&n, count.data(), sizeof n);
  return static_cast<int64_t>(n);
}

}  // namespace dmlrt::mem
#endif  // DMLRT_WITH_CUDA
