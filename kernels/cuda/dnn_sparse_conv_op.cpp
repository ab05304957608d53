// The sparse-filter conv2d op; see dnn_sparse_conv_op.h.
#include "kernels/cuda/dnn_sparse_conv_op.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "gpu_context/cusparse_descriptors.h"
#include "kernels/cuda/dnn_im2col.h"

namespace dmlrt::kernels::cuda {
namespace {

Im2colGeometry geometry(const kernels::cpu::ConvShape& sh) {
  Im2colGeometry g;
  g.c = sh.c, g.h = sh.h, g.w = sh.w, g.r = sh.r, g.s = sh.s, g.p = sh.p, g.q = sh.q;
  g.stride_h = sh.stride_h, g.stride_w = sh.stride_w, g.pad_h = sh.pad_h, g.pad_w = sh.pad_w;
  return g;
}

template <typename T>
void run(cusparseHandle_t h, cudaStream_t stream, const SparseFilterConv& a, Scratch& scratch) {
  const kernels::cpu::ConvShape& sh = a.shape;
  const int64_t n = sh.n, k = sh.k, pq = sh.p * sh.q, kpq = k * pq, chw = sh.c * sh.h * sh.w;
  const int64_t crs = sh.c * sh.r * sh.s;
  const T* b = static_cast<const T*>(a.bias);
  T* y = static_cast<T*>(a.out);
  // An empty filter or an empty image batch: every product is zero, the output is the bias.
  const bool images_empty = a.images_dense == nullptr && a.images_csr.nnz == 0;
  if (a.filter.nnz == 0 || images_empty || crs == 0) {
    launch_reorg_knpq(static_cast<const T*>(nullptr), b, n, k, pq, y, stream);
    return;
  }
  const int64_t chunk = a.chunk_rows;
  // (CRS, chunk*PQ) and (K, chunk*PQ) row-major, reused by every chunk.
  T* im = scratch.allocate_n<T>(static_cast<size_t>(crs * chunk * pq), "im2col buffer");
  T* prod = scratch.allocate_n<T>(static_cast<size_t>(k * chunk * pq), "K x NPQ product");
  void* spmm_buf = nullptr;
  size_t spmm_bytes = 0;
  const cudaDataType vt = sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;
  const T one = 1, zero = 0;
  // W (K, CRS) CSR.
  gpu::UniqueSpMat w = gpu::make_csr(k, crs, a.filter.nnz, const_cast<void*>(a.filter.row_ptr),
                                     const_cast<void*>(a.filter.col_idx),
                                     const_cast<void*>(a.filter.values), a.filter.index64, vt);
  const Im2colGeometry g = geometry(sh);
  const CsrOperand& x = a.images_csr;
  for (int64_t n0 = 0; n0 < n; n0 += chunk) {
    const int64_t c = std::min(chunk, n - n0), cols = c * pq;
    if (a.images_dense != nullptr) {
      launch_im2col_dense(static_cast<const T*>(a.images_dense) + n0 * chw, c, g, im, stream);
    } else {
      const int64_t hint = static_cast<int64_t>(static_cast<double>(x.nnz) * c / n) + 1;
      if (x.index64)
        launch_im2col_csr(static_cast<const int64_t*>(x.row_ptr),
                          static_cast<const int64_t*>(x.col_idx), static_cast<const T*>(x.values),
                          n0, n0 + c, hint, g, im, stream);
      else
        launch_im2col_csr(static_cast<const int32_t*>(x.row_ptr),
                          static_cast<const int32_t*>(x.col_idx), static_cast<const T*>(x.values),
                          n0, n0 + c, hint, g, im, stream);
    }
    // prod (K, c*PQ) = W (K, CRS) x im2col (CRS, c*PQ), both dense row-major.
    gpu::UniqueDnMat dx = gpu::make_dense(crs, cols, cols, im, vt, CUSPARSE_ORDER_ROW);
    gpu::UniqueDnMat dy = gpu::make_dense(k, cols, cols, prod, vt, CUSPARSE_ORDER_ROW);
    size_t need = 0;
    DMLRT_CHECK_CTX(cusparseSpMM_bufferSize(
                        h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                        w.get(), dx.get(), &zero, dy.get(), vt, CUSPARSE_SPMM_ALG_DEFAULT, &need),
                    "conv2d SpMM filter " << a.filter_text << " x im2col " << crs << "x" << cols);
    // The chunks share one buffer; only a larger need (a first chunk, rarely a later one) takes
    // another, since scratch blocks stay until the Scratch ends (Note [Device scratch]).
    if (need > spmm_bytes) {
      spmm_buf = scratch.allocate(need, "cusparseSpMM buffer");
      spmm_bytes = need;
    }
    DMLRT_CHECK_CTX(
        cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                     w.get(), dx.get(), &zero, dy.get(), vt, CUSPARSE_SPMM_ALG_DEFAULT, spmm_buf),
        "conv2d SpMM filter " << a.filter_text << " x im2col " << crs << "x" << cols);
    launch_reorg_knpq(prod, b, c, k, pq, y + n0 * kpq, stream);
  }
}

}  // namespace

void sparse_filter_conv2d(cusparseHandle_t h, cudaStream_t stream, const SparseFilterConv& a,
                          Scratch& scratch) {
  if (a.shape.n == 0 || a.shape.k * a.shape.p * a.shape.q == 0) return;
  if (a.fp64)
    run<double>(h, stream, a, scratch);
  else
    run<float>(h, stream, a, scratch);
}

}  // namespace dmlrt::kernels::cuda
