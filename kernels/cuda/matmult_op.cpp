// ba+* on the device; see matmult_op.h.
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
// Library buffers and the transposes come from the caller's Scratch, never from cudaMalloc.
#include "kernels/cuda/matmult_op.h"

#include <sstream>
#include <string>

#include "gpu_context/cusparse_descriptors.h"
#include "gpu_context/error.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/gemm_planner.h"

namespace dmlrt::kernels::cuda {
namespace {

cudaDataType cuda_type(bool fp64) { return fp64 ? CUDA_R_64F : CUDA_R_32F; }
size_t elem_size(bool fp64) { return fp64 ? 8 : 4; }

// As mem::DeviceMatrix::describe: "3x4 dense fp64" / "3x4 csr(nnz=5) fp32".
std::string describe(const DeviceView& m, bool fp64) {
  std::ostringstream os;
  os << m.rows << "x" << m.cols << " ";
  if (m.sparse)
    os << "csr(nnz=" << m.nnz << (m.index64 ? ", int64" : "") << ")";
  else
    os << "dense";
  os << " " << (fp64 ? "fp64" : "fp32");
  return os.str();
}

bool empty_sparse(const DeviceView& m) { return m.sparse && m.nnz == 0; }

gpu::UniqueSpMat csr_descriptor(const DeviceView& m, bool fp64) {
  return gpu::make_csr(m.rows, m.cols, m.nnz, m.row_ptr, m.col_idx, m.values, m.index64,
                       cuda_type(fp64));
}

// alpha = 1 and beta = 0 in the element type, as cuSPARSE reads them.
struct OneZero {
  explicit OneZero(bool fp64)
      : one(fp64 ? static_cast<const void*>(&one64) : &one32),
        zero(fp64 ? static_cast<const void*>(&zero64) : &zero32) {}
  OneZero(const OneZero&) = delete;
  OneZero& operator=(const OneZero&) = delete;
  const double one64 = 1, zero64 = 0;
  const float one32 = 1, zero32 = 0;
  const void* one;
  const void* zero;
};

// The (cols, rows) transpose of `m` in scratch: geam for a dense matrix, csr2csc for a non-empty
// CSR (int32 indices only).
DeviceView transpose(const BlasContext& ctx, const DeviceView& m, Scratch& scratch,
                     const char* what_dense, const char* what_offsets, const char* what_indices,
                     const char* what_values) {
  DeviceView t;
  t.rows = m.cols;
  t.cols = m.rows;
  t.sparse = m.sparse;
  t.nnz = m.nnz;
  if (!m.sparse) {
    t.values = scratch.allocate(static_cast<size_t>(m.rows) * static_cast<size_t>(m.cols) *
                                    elem_size(ctx.fp64),
                                what_dense);
    if (ctx.fp64)
      transpose_row_major(ctx.cublas, m.rows, m.cols, static_cast<const double*>(m.values),
                          static_cast<double*>(t.values));
    else
      transpose_row_major(ctx.cublas, m.rows, m.cols, static_cast<const float*>(m.values),
                          static_cast<float*>(t.values));
    return t;
  }
  DMLRT_REQUIRE(!m.index64, NotSupported,
                "transpose of a " << describe(m, ctx.fp64)
                                  << ": cuSPARSE's csr2csc takes int32 indices only "
                                     "(see Note [CSR index width])");
  t.values = scratch.allocate(static_cast<size_t>(m.nnz) * elem_size(ctx.fp64), what_values);
  t.row_ptr = scratch.allocate(static_cast<size_t>(m.cols + 1) * sizeof(int32_t), what_offsets);
  t.col_idx = scratch.allocate(static_cast<size_t>(m.nnz) * sizeof(int32_t), what_indices);
  const cudaDataType vt = cuda_type(ctx.fp64);
  const int rows = static_cast<int>(m.rows), cols = static_cast<int>(m.cols),
            nnz = static_cast<int>(m.nnz);
  size_t buf_bytes = 0;
  // The CSC of m is the CSR of its transpose.
  DMLRT_CHECK_CTX(cusparseCsr2cscEx2_bufferSize(
                      ctx.cusparse, rows, cols, nnz, m.values, static_cast<int*>(m.row_ptr),
                      static_cast<int*>(m.col_idx), t.values, static_cast<int*>(t.row_ptr),
                      static_cast<int*>(t.col_idx), vt, CUSPARSE_ACTION_NUMERIC,
                      CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &buf_bytes),
                  describe(m, ctx.fp64));
  void* buf = scratch.allocate(buf_bytes, "cusparseCsr2cscEx2 buffer");
  DMLRT_CHECK_CTX(
      cusparseCsr2cscEx2(ctx.cusparse, rows, cols, nnz, m.values, static_cast<int*>(m.row_ptr),
                         static_cast<int*>(m.col_idx), t.values, static_cast<int*>(t.row_ptr),
                         static_cast<int*>(t.col_idx), vt, CUSPARSE_ACTION_NUMERIC,
                         CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buf),
      describe(m, ctx.fp64));
  return t;
}

DeviceView transpose_a(const BlasContext& ctx, const DeviceView& m, Scratch& scratch) {
  return transpose(ctx, m, scratch, "t(A)", "t(A) (csr row offsets)", "t(A) (csr column indices)",
                   "t(A) (csr values)");
}
DeviceView transpose_b(const BlasContext& ctx, const DeviceView& m, Scratch& scratch) {
  return transpose(ctx, m, scratch, "t(B)", "t(B) (csr row offsets)", "t(B) (csr column indices)",
                   "t(B) (csr values)");
}

template <typename T>
void dense_dense(const BlasContext& ctx, const DeviceView& a, const DeviceView& b, bool ta, bool tb,
                 int64_t m, int64_t k, int64_t n, void* c_values) {
  cublasHandle_t h = ctx.cublas;
  const T* A = static_cast<const T*>(a.values);
  const T* B = static_cast<const T*>(b.values);
  T* C = static_cast<T*>(c_values);
  if (m == 1 && n == 1) {
    dot_device(h, k, A, B, C);  // a vector's data is the same transposed or not
  } else if (n == 1) {
    // (m, 1) = op(A) b: A stored (m, k), or (k, m) used transposed.
    gemv_row_major(h, ta, a.rows, a.cols, A, B, C);
  } else if (m == 1) {
    // (1, n) = a^T op(B), i.e. C^T = op(B)^T a: B stored (k, n) -> B^T a; (n, k) -> B a.
    gemv_row_major(h, !tb, b.rows, b.cols, B, A, C);
  } else if (GemmPlanner::applies(m, n, k)) {
    ctx.planner().run(ta, tb, m, n, k, A, B, C);  // Note [Small GEMM plans]
  } else {
    gemm_row_major(h, ta, tb, m, n, k, A, B, C);
  }
}

// C (p, q) = S (p, k) D (k, q) for a CSR S and a dense D, both dense operands in `order`
// (row-major: leading dimension q; column-major: k for D, p for C); q == 1 runs SpMV.
// `dense_what` names D in error messages.
void csr_times_dense(const BlasContext& ctx, const DeviceView& s, void* d, void* c, int64_t p,
                     int64_t k, int64_t q, cusparseOrder_t order, const std::string& dense_what,
                     Scratch& scratch) {
  const cudaDataType vt = cuda_type(ctx.fp64);
  const OneZero oz(ctx.fp64);
  cusparseHandle_t h = ctx.cusparse;
  gpu::UniqueSpMat ss = csr_descriptor(s, ctx.fp64);
  size_t buf_bytes = 0;
  if (q == 1) {
    gpu::UniqueDnVec x = gpu::make_vector(k, d, vt);
    gpu::UniqueDnVec y = gpu::make_vector(p, c, vt);
    DMLRT_CHECK_CTX(
        cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, oz.one, ss.get(), x.get(),
                                oz.zero, y.get(), vt, CUSPARSE_SPMV_ALG_DEFAULT, &buf_bytes),
        "SpMV " << describe(s, ctx.fp64));
    void* buf = scratch.allocate(buf_bytes, "cusparseSpMV buffer");
    DMLRT_CHECK_CTX(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, oz.one, ss.get(), x.get(),
                                 oz.zero, y.get(), vt, CUSPARSE_SPMV_ALG_DEFAULT, buf),
                    "SpMV " << describe(s, ctx.fp64));
    return;
  }
  const bool row = order == CUSPARSE_ORDER_ROW;
  gpu::UniqueDnMat dd = gpu::make_dense(k, q, row ? q : k, d, vt, order);
  gpu::UniqueDnMat dc = gpu::make_dense(p, q, row ? q : p, c, vt, order);
  DMLRT_CHECK_CTX(
      cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                              oz.one, ss.get(), dd.get(), oz.zero, dc.get(), vt,
                              CUSPARSE_SPMM_ALG_DEFAULT, &buf_bytes),
      "SpMM " << describe(s, ctx.fp64) << " x " << dense_what);
  void* buf = scratch.allocate(buf_bytes, "cusparseSpMM buffer");
  DMLRT_CHECK_CTX(
      cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, oz.one,
                   ss.get(), dd.get(), oz.zero, dc.get(), vt, CUSPARSE_SPMM_ALG_DEFAULT, buf),
      "SpMM " << describe(s, ctx.fp64) << " x " << dense_what);
}

void sparse_dense(const BlasContext& ctx, const DeviceView& a_in, const DeviceView& b_in, bool ta,
                  bool tb, int64_t m, int64_t k, int64_t n, MatmultResult& result,
                  Scratch& scratch) {
  const DeviceView a = ta ? transpose_a(ctx, a_in, scratch) : a_in;  // (m, k) CSR
  // (k, n) row-major; a vector needs no transpose (same data either way)
  const DeviceView b = tb && n > 1 ? transpose_b(ctx, b_in, scratch) : b_in;
  void* c = result.dense(m, n);
  csr_times_dense(ctx, a, b.values, c, m, k, n, CUSPARSE_ORDER_ROW, describe(b, ctx.fp64),
                  scratch);
}

void dense_sparse(const BlasContext& ctx, const DeviceView& a_in, const DeviceView& b_in, bool ta,
                  bool tb, int64_t m, int64_t k, int64_t n, MatmultResult& result,
                  Scratch& scratch) {
  // C^T (n, m) = op(B)^T (n, k) op(A)^T (k, m), column-major (Note [GPU matmult paths]).
  const DeviceView s = tb ? b_in : transpose_b(ctx, b_in, scratch);  // (n, k) CSR
  // Column-major (k, m) with ld k: row-major A (m, k) as stored, or the transpose of a (k, m) A.
  const DeviceView d = ta && m > 1 ? transpose_a(ctx, a_in, scratch) : a_in;
  void* c = result.dense(m, n);
  csr_times_dense(ctx, s, d.values, c, n, k, m, CUSPARSE_ORDER_COL,
                  "dense " + std::to_string(k) + "x" + std::to_string(m), scratch);
}

void sparse_sparse(const BlasContext& ctx, const DeviceView& a_in, const DeviceView& b_in,
                   bool ta, bool tb, int64_t m, int64_t n, MatmultResult& result,
                   Scratch& scratch) {
  for (const DeviceView* x : {&a_in, &b_in})
    DMLRT_REQUIRE(!x->index64, NotSupported,
                  "ba+*: sparse x sparse on the GPU needs int32 CSR indices (cuSPARSE SpGEMM), got "
                      << describe(*x, ctx.fp64) << " (see Note [CSR index width])");
  const DeviceView a = ta ? transpose_a(ctx, a_in, scratch) : a_in;
  const DeviceView b = tb ? transpose_b(ctx, b_in, scratch) : b_in;
  const cudaDataType vt = cuda_type(ctx.fp64);
  const OneZero oz(ctx.fp64);
  cusparseHandle_t h = ctx.cusparse;
  gpu::UniqueSpMat sa = csr_descriptor(a, ctx.fp64);
  gpu::UniqueSpMat sb = csr_descriptor(b, ctx.fp64);
  void* c_row_ptr = result.csr_row_ptr(m, n);
  gpu::UniqueSpMat sc = gpu::make_csr(m, n, 0, c_row_ptr, nullptr, nullptr, false, vt);
  const gpu::UniqueSpGemm desc = gpu::make_spgemm();
  const auto opn = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const std::string what = "SpGEMM " + describe(a, ctx.fp64) + " x " + describe(b, ctx.fp64);
  size_t size1 = 0, size2 = 0;
  DMLRT_CHECK_CTX(
      cusparseSpGEMM_workEstimation(h, opn, opn, oz.one, sa.get(), sb.get(), oz.zero, sc.get(), vt,
                                    CUSPARSE_SPGEMM_DEFAULT, desc.get(), &size1, nullptr),
      what);
  void* buf1 = scratch.allocate(size1, "cusparseSpGEMM buffer 1");
  DMLRT_CHECK_CTX(
      cusparseSpGEMM_workEstimation(h, opn, opn, oz.one, sa.get(), sb.get(), oz.zero, sc.get(), vt,
                                    CUSPARSE_SPGEMM_DEFAULT, desc.get(), &size1, buf1),
      what);
  DMLRT_CHECK_CTX(cusparseSpGEMM_compute(h, opn, opn, oz.one, sa.get(), sb.get(), oz.zero, sc.get(),
                                         vt, CUSPARSE_SPGEMM_DEFAULT, desc.get(), &size2, nullptr),
                  what);
  void* buf2 = scratch.allocate(size2, "cusparseSpGEMM buffer 2");
  DMLRT_CHECK_CTX(cusparseSpGEMM_compute(h, opn, opn, oz.one, sa.get(), sb.get(), oz.zero, sc.get(),
                                         vt, CUSPARSE_SPGEMM_DEFAULT, desc.get(), &size2, buf2),
                  what);
  int64_t r = 0, c = 0, nnz = 0;
  DMLRT_CHECK(cusparseSpMatGetSize(sc.get(), &r, &c, &nnz));
  void* c_col = nullptr;
  void* c_val = nullptr;
  result.csr_entries(m, n, nnz, &c_col, &c_val);
  if (nnz == 0) return;  // structurally empty product: an empty CSR holds no memory
  DMLRT_CHECK(cusparseCsrSetPointers(sc.get(), c_row_ptr, c_col, c_val));
  DMLRT_CHECK_CTX(cusparseSpGEMM_copy(h, opn, opn, oz.one, sa.get(), sb.get(), oz.zero, sc.get(),
                                      vt, CUSPARSE_SPGEMM_DEFAULT, desc.get()),
                  what);
}

}  // namespace

void matmult(const BlasContext& ctx, const DeviceView& a, const DeviceView& b, bool ta, bool tb,
             MatmultResult& result, Scratch& scratch) {
  const int64_t m = ta ? a.cols : a.rows;
  const int64_t k = ta ? a.rows : a.cols;
  const int64_t n = tb ? b.rows : b.cols;
  if (m == 0 || n == 0) {
    result.dense(m, n);
    return;
  }
  if (k == 0 || empty_sparse(a) || empty_sparse(b)) {
    result.csr_entries(m, n, 0, nullptr, nullptr);
    return;
  }
  if (!a.sparse && !b.sparse) {
    void* c = result.dense(m, n);
    if (ctx.fp64)
      dense_dense<double>(ctx, a, b, ta, tb, m, k, n, c);
    else
      dense_dense<float>(ctx, a, b, ta, tb, m, k, n, c);
  } else if (a.sparse && !b.sparse) {
    sparse_dense(ctx, a, b, ta, tb, m, k, n, result, scratch);
  } else if (!a.sparse && b.sparse) {
    dense_sparse(ctx, a, b, ta, tb, m, k, n, result, scratch);
  } else {
    sparse_sparse(ctx, a, b, ta, tb, m, n, result, scratch);
  }
}

}  // namespace dmlrt::kernels::cuda
