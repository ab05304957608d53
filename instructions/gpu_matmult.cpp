// ba+* on the GPU; see gpu_matmult.h.
//
// Note [GPU matmult paths]
// dense x dense: 1x1 results use dot (result written on the device, no host round trip), vector
//   shapes gemv, the rest gemm — all through kernels/cuda/blas.h's row-major helpers, so the
//   transpose flags cost nothing.
// CSR x dense: SpMM (SpMV for a vector) with row-major dense descriptors; a transposed CSR operand
//   is transposed explicitly (csr2csc) and a transposed dense one with geam, so every cuSPARSE
//   call is NON_TRANSPOSE (transposed SpMM is non-deterministic and slower).
// dense x CSR: computed as C^T = op(B)^T op(A)^T with column-major descriptors: the column-major
//   view of row-major C (m, n) is C^T, of row-major A (m, k) is A^T, so only op(B)^T needs a CSR
//   transpose (none when B is used transposed).
// CSR x CSR: SpGEMM (int32 indices only) on explicit transposes; the result stays CSR.
// Library buffers come from the memory manager (session scratch), never from cudaMalloc.
#ifdef DMLRT_WITH_CUDA
#include "instructions/gpu_matmult.h"

#include <string>

#include "gpu_context/cusparse_descriptors.h"
#include "gpu_context/error.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/gemm_planner.h"

namespace dmlrt::inst {
namespace {

using mem::DeviceMatrix;
using mem::DType;

cudaDataType cuda_type(DType t) { return t == DType::kFloat64 ? CUDA_R_64F : CUDA_R_32F; }

gpu::UniqueSpMat csr_descriptor(const DeviceMatrix& m) {
  return gpu::make_csr(m.rows(), m.cols(), m.nnz(), m.row_ptr(), m.col_idx(), m.values(),
                       m.index_width() == mem::IndexWidth::k64, cuda_type(m.dtype()));
}

template <typename T>
DeviceMatrix dense_dense(mem::GpuSession& gpu, const DeviceMatrix& a, const DeviceMatrix& b,
                         bool ta, bool tb, int64_t m, int64_t k, int64_t n) {
  DeviceMatrix c = DeviceMatrix::dense(gpu.memory(), m, n, gpu.dtype(), gpu.stream(),
                                       "gpu_ba+* output");
  void* h = gpu.context().cublas();
  const T* A = a.values_as<T>();
  const T* B = b.values_as<T>();
  T* C = c.values_as<T>();
  if (m == 1 && n == 1) {
    kernels::cuda::dot_device(h, k, A, B, C);  // a vector's data is the same transposed or not
  } else if (n == 1) {
    // (m, 1) = op(A) b: A stored (m, k), or (k, m) used transposed.
    kernels::cuda::gemv_row_major(h, ta, a.rows(), a.cols(), A, B, C);
  } else if (m == 1) {
    // (1, n) = a^T op(B), i.e. C^T = op(B)^T a: B stored (k, n) -> B^T a; (n, k) -> B a.
    kernels::cuda::gemv_row_major(h, !tb, b.rows(), b.cols(), B, A, C);
  } else if (kernels::cuda::GemmPlanner::applies(m, n, k)) {
    gpu.gemm_planner().run(ta, tb, m, n, k, A, B, C);  // Note [Small GEMM plans]
  } else {
    kernels::cuda::gemm_row_major(h, ta, tb, m, n, k, A, B, C);
  }
  return c;
}

// C (p, q) = S (p, k) D (k, q) for a CSR S and a dense D, both dense operands in `order`
// (row-major: leading dimension q; column-major: k for D, p for C); q == 1 runs SpMV.
// `dense_what` names D in error messages.
void csr_times_dense(mem::GpuSession& gpu, const DeviceMatrix& s, void* d, void* c, int64_t p,
                     int64_t k, int64_t q, cusparseOrder_t order, const std::string& dense_what) {
  const cudaDataType vt = cuda_type(gpu.dtype());
  const double one64 = 1, zero64 = 0;
  const float one32 = 1, zero32 = 0;
  const void* one = gpu.dtype() == DType::kFloat64 ? static_cast<const void*>(&one64) : &one32;
  const void* zero = gpu.dtype() == DType::kFloat64 ? static_cast<const void*>(&zero64) : &zero32;
  cusparseHandle_t h = gpu.context().cusparse();
  gpu::UniqueSpMat ss = csr_descriptor(s);
  size_t buf_bytes = 0;
  if (q == 1) {
    gpu::UniqueDnVec x = gpu::make_vector(k, d, vt);
    gpu::UniqueDnVec y = gpu::make_vector(p, c, vt);
    DMLRT_CUSPARSE_CHECK_CTX(
        cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, ss.get(), x.get(), zero,
                                y.get(), vt, CUSPARSE_SPMV_ALG_DEFAULT, &buf_bytes),
        "SpMV " << s.describe());
    mem::DeviceAllocation buf = gpu.scratch(buf_bytes, "cusparseSpMV buffer");
    DMLRT_CUSPARSE_CHECK_CTX(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, ss.get(),
                                          x.get(), zero, y.get(), vt, CUSPARSE_SPMV_ALG_DEFAULT,
                                          buf.data()),
                             "SpMV " << s.describe());
    return;
  }
  const bool row = order == CUSPARSE_ORDER_ROW;
  gpu::UniqueDnMat dd = gpu::make_dense(k, q, row ? q : k, d, vt, order);
  gpu::UniqueDnMat dc = gpu::make_dense(p, q, row ? q : p, c, vt, order);
  DMLRT_CUSPARSE_CHECK_CTX(
      cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                              one, ss.get(), dd.get(), zero, dc.get(), vt, CUSPARSE_SPMM_ALG_DEFAULT,
                              &buf_bytes),
      "SpMM " << s.describe() << " x " << dense_what);
  mem::DeviceAllocation buf = gpu.scratch(buf_bytes, "cusparseSpMM buffer");
  DMLRT_CUSPARSE_CHECK_CTX(
      cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, one,
                   ss.get(), dd.get(), zero, dc.get(), vt, CUSPARSE_SPMM_ALG_DEFAULT, buf.data()),
      "SpMM " << s.describe() << " x " << dense_what);
}

DeviceMatrix sparse_dense(mem::GpuSession& gpu, const DeviceMatrix& a_in, const DeviceMatrix& b_in,
                          bool ta, bool tb, int64_t m, int64_t k, int64_t n) {
  DeviceMatrix at, bt;
  const DeviceMatrix& a = ta ? (at = gpu.transpose(a_in, "gpu_ba+* t(A)")) : a_in;  // (m, k) CSR
  // (k, n) row-major; a vector needs no transpose (same data either way)
  const DeviceMatrix& b = tb && n > 1 ? (bt = gpu.transpose(b_in, "gpu_ba+* t(B)")) : b_in;
  DeviceMatrix c = DeviceMatrix::dense(gpu.memory(), m, n, gpu.dtype(), gpu.stream(),
                                       "gpu_ba+* output");
  csr_times_dense(gpu, a, b.values(), c.values(), m, k, n, CUSPARSE_ORDER_ROW, b.describe());
  return c;
}

DeviceMatrix dense_sparse(mem::GpuSession& gpu, const DeviceMatrix& a_in, const DeviceMatrix& b_in,
                          bool ta, bool tb, int64_t m, int64_t k, int64_t n) {
  // C^T (n, m) = op(B)^T (n, k) op(A)^T (k, m), column-major (Note [GPU matmult paths]).
  DeviceMatrix bt, at;
  const DeviceMatrix& s = tb ? b_in : (bt = gpu.transpose(b_in, "gpu_ba+* t(B)"));  // (n, k) CSR
  // Column-major (k, m) with ld k: row-major A (m, k) as stored, or the transpose of a (k, m) A.
  const DeviceMatrix& d = ta && m > 1 ? (at = gpu.transpose(a_in, "gpu_ba+* t(A)")) : a_in;
  DeviceMatrix c = DeviceMatrix::dense(gpu.memory(), m, n, gpu.dtype(), gpu.stream(),
                                       "gpu_ba+* output");
  csr_times_dense(gpu, s, d.values(), c.values(), n, k, m, CUSPARSE_ORDER_COL,
                  "dense " + std::to_string(k) + "x" + std::to_string(m));
  return c;
}

DeviceMatrix sparse_sparse(mem::GpuSession& gpu, const DeviceMatrix& a_in,
                           const DeviceMatrix& b_in, bool ta, bool tb, int64_t m, int64_t n) {
  for (const DeviceMatrix* x : {&a_in, &b_in})
    DMLRT_REQUIRE(x->index_width() == mem::IndexWidth::k32, NotSupported,
                  "ba+*: sparse x sparse on the GPU needs int32 CSR indices (cuSPARSE SpGEMM), got "
                      << x->describe() << " (see Note [CSR index width])");
  DeviceMatrix at, bt;
  const DeviceMatrix& a = ta ? (at = gpu.transpose(a_in, "gpu_ba+* t(A)")) : a_in;
  const DeviceMatrix& b = tb ? (bt = gpu.transpose(b_in, "gpu_ba+* t(B)")) : b_in;
  const cudaDataType vt = cuda_type(gpu.dtype());
  const double one64 = 1, zero64 = 0;
  const float one32 = 1, zero32 = 0;
  const void* one = gpu.dtype() == DType::kFloat64 ? static_cast<const void*>(&one64) : &one32;
  const void* zero = gpu.dtype() == DType::kFloat64 ? static_cast<const void*>(&zero64) : &zero32;
  cusparseHandle_t h = gpu.context().cusparse();
  gpu::UniqueSpMat sa = csr_descriptor(a);
  gpu::UniqueSpMat sb = csr_descriptor(b);
  mem::DeviceAllocation c_row_ptr =
      gpu.scratch(static_cast<size_t>(m + 1) * sizeof(int32_t), "gpu_ba+* output (csr row offsets)");
  gpu::UniqueSpMat sc = gpu::make_csr(m, n, 0, c_row_ptr.data(), nullptr, nullptr, false, vt);
  cusparseSpGEMMDescr_t raw = nullptr;
  DMLRT_CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&raw));
  gpu::UniqueSpGemm desc(raw);
  const auto opn = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const std::string ctx = "SpGEMM " + a.describe() + " x " + b.describe();
  size_t size1 = 0, size2 = 0;
  DMLRT_CUSPARSE_CHECK_CTX(
      cusparseSpGEMM_workEstimation(h, opn, opn, one, sa.get(), sb.get(), zero, sc.get(), vt,
                                    CUSPARSE_SPGEMM_DEFAULT, desc.get(), &size1, nullptr),
      ctx);
  mem::DeviceAllocation buf1 = gpu.scratch(size1, "cusparseSpGEMM buffer 1");
  DMLRT_CUSPARSE_CHECK_CTX(
      cusparseSpGEMM_workEstimation(h, opn, opn, one, sa.get(), sb.get(), zero, sc.get(), vt,
                                    CUSPARSE_SPGEMM_DEFAULT, desc.get(), &size1, buf1.data()),
      ctx);
  DMLRT_CUSPARSE_CHECK_CTX(cusparseSpGEMM_compute(h, opn, opn, one, sa.get(), sb.get(), zero,
                                                  sc.get(), vt, CUSPARSE_SPGEMM_DEFAULT,
                                                  desc.get(), &size2, nullptr),
                           ctx);
  mem::DeviceAllocation buf2 = gpu.scratch(size2, "cusparseSpGEMM buffer 2");
  DMLRT_CUSPARSE_CHECK_CTX(cusparseSpGEMM_compute(h, opn, opn, one, sa.get(), sb.get(), zero,
                                                  sc.get(), vt, CUSPARSE_SPGEMM_DEFAULT,
                                                  desc.get(), &size2, buf2.data()),
                           ctx);
  int64_t r = 0, c = 0, nnz = 0;
  DMLRT_CUSPARSE_CHECK(cusparseSpMatGetSize(sc.get(), &r, &c, &nnz));
  if (nnz == 0)  // structurally empty product: an empty CSR holds no memory
    return DeviceMatrix::csr(gpu.memory(), m, n, 0, gpu.dtype(), mem::IndexWidth::k32, gpu.stream(),
                             "gpu_ba+* output");
  mem::DeviceAllocation c_col = gpu.scratch(static_cast<size_t>(nnz) * sizeof(int32_t),
                                            "gpu_ba+* output (csr column indices)");
  mem::DeviceAllocation c_val =
      gpu.scratch(static_cast<size_t>(nnz) * mem::dtype_size(gpu.dtype()), "gpu_ba+* output (csr values)");
  DMLRT_CUSPARSE_CHECK(cusparseCsrSetPointers(sc.get(), c_row_ptr.data(), c_col.data(), c_val.data()));
  DMLRT_CUSPARSE_CHECK_CTX(cusparseSpGEMM_copy(h, opn, opn, one, sa.get(), sb.get(), zero,
                                               sc.get(), vt, CUSPARSE_SPGEMM_DEFAULT, desc.get()),
                           ctx);
  return DeviceMatrix::adopt_csr(m, n, nnz, gpu.dtype(), mem::IndexWidth::k32, std::move(c_row_ptr),
                                 std::move(c_col), std::move(c_val));
}

}  // namespace

DeviceMatrix gpu_matmult(mem::GpuSession& gpu, const DeviceMatrix& a, const DeviceMatrix& b,
                         bool ta, bool tb) {
  const int64_t m = ta ? a.cols() : a.rows();
  const int64_t k = ta ? a.rows() : a.cols();
  const int64_t n = tb ? b.rows() : b.cols();
  DMLRT_REQUIRE(a.dtype() == gpu.dtype() && b.dtype() == gpu.dtype(), RuntimeError,
                "ba+*: device operands " << a.describe() << " and " << b.describe()
                                         << " do not have the session's element type");
  if (m == 0 || n == 0) return DeviceMatrix::dense(gpu.memory(), m, n, gpu.dtype(), gpu.stream(),
                                                   "gpu_ba+* output");
  if (k == 0 || a.is_empty_sparse() || b.is_empty_sparse())
    return DeviceMatrix::csr(gpu.memory(), m, n, 0, gpu.dtype(), mem::IndexWidth::k32, gpu.stream(),
                             "gpu_ba+* output");
  if (!a.is_sparse() && !b.is_sparse())
    return gpu.dtype() == DType::kFloat64 ? dense_dense<double>(gpu, a, b, ta, tb, m, k, n)
                                          : dense_dense<float>(gpu, a, b, ta, tb, m, k, n);
  if (a.is_sparse() && !b.is_sparse()) return sparse_dense(gpu, a, b, ta, tb, m, k, n);
  if (!a.is_sparse() && b.is_sparse()) return dense_sparse(gpu, a, b, ta, tb, m, k, n);
  return sparse_sparse(gpu, a, b, ta, tb, m, n);
}

}  // namespace dmlrt::inst
#endif  // DMLRT_WITH_CUDA
