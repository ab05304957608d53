// The sparse-filter conv2d path on the GPU; see dnn_sparse_conv.h.
//
// Note [Sparse-filter conv2d cost model]
// Both paths are costed in multiply-adds (MACs) of the dense convolution. With NPQ = N*P*Q:
//   dense  = K*CRS*NPQ + kMoveCost*K*CRS           (densify the filter, then the dense convolution)
//   sparse = kSpmmCost*nnz(W)*NPQ + kMoveCost*(CRS + 3K)*NPQ
// The SpMM does nnz(W)*NPQ MACs at about 1/kSpmmCost of the dense convolution's rate (cuSPARSE's
// CSR x row-major-dense SpMM gathers a row of the im2col matrix per filter nonzero: memory-bound,
// no tensor cores). Every element the sparse path moves through memory costs kMoveCost MACs (a
// memory-bound move, 4.3 TB/s on the H200, against compute-bound MACs at tens of TFLOP/s): im2col
// writes CRS*NPQ, the SpMM writes K*NPQ, reorg_knpq reads and writes K*NPQ. The path is taken when
// sparse < dense, e.g. for K = 64, CRS = 576 (64 channels, 3x3) below a filter density of about
// 0.13 in FP64 and 0.036 in FP32, and never for K = 1 or small CRS. An empty filter always takes
// it (the output is the bias).
// Calibration (H200, 2026-11-30, dmlrt_bench --sections spconv: five layer shapes x densities
// 0.001-0.3, both paths timed in the same run, constants fitted by least squares of relative
// residuals): FP64 kSpmmCost 4.46, kMoveCost 19.9 (the faster path picked at 25 of 25 points; the
// first estimates 8 and 16 got 21); FP32 6.41 and 37.4 (23 of 25; 21 before). The fits' relative
// RMS errors, 0.37 and 0.29, say the model ranks the two paths; it does not predict their times.
#include "instructions/dnn_sparse_conv.h"

#include <algorithm>

#include "gpu_context/error.h"
#include "instructions/dnn_gpu_common.h"

#ifdef DMLRT_WITH_CUDA
#include <cuda_runtime.h>

#include <sstream>
#include <string>

#include "gpu_context/cuda_check.h"
#include "gpu_context/cusparse_descriptors.h"
#include "kernels/cuda/dnn_im2col.h"
#endif

namespace dmlrt::inst {
namespace {

struct CostConstants {
  double spmm;  // kSpmmCost: MACs of the dense convolution per SpMM MAC
  double move;  // kMoveCost: MACs of the dense convolution per element moved
};
constexpr CostConstants kFp64Costs{4.5, 20.0};
constexpr CostConstants kFp32Costs{6.4, 37.0};

const CostConstants& costs(bool fp64) { return fp64 ? kFp64Costs : kFp32Costs; }

}  // namespace

double sparse_filter_conv2d_sparse_cost(int64_t filter_nnz, const kernels::cpu::ConvShape& sh,
                                        bool fp64) {
  const double npq = static_cast<double>(sh.n) * static_cast<double>(sh.p) * sh.q;
  const double crs = static_cast<double>(sh.c) * static_cast<double>(sh.r) * sh.s;
  return costs(fp64).spmm * static_cast<double>(filter_nnz) * npq +
         costs(fp64).move * (crs + 3.0 * static_cast<double>(sh.k)) * npq;
}

double sparse_filter_conv2d_dense_cost(const kernels::cpu::ConvShape& sh, bool fp64) {
  const double npq = static_cast<double>(sh.n) * static_cast<double>(sh.p) * sh.q;
  const double kcrs = static_cast<double>(sh.k) * static_cast<double>(sh.c) * sh.r * sh.s;
  return kcrs * npq + costs(fp64).move * kcrs;
}

bool sparse_filter_conv2d_cheaper(int64_t filter_nnz, const kernels::cpu::ConvShape& sh,
                                  bool fp64) {
  if (filter_nnz == 0) return true;
  return sparse_filter_conv2d_sparse_cost(filter_nnz, sh, fp64) <
         sparse_filter_conv2d_dense_cost(sh, fp64);
}

int64_t sparse_filter_conv2d_chunk_rows(const kernels::cpu::ConvShape& sh, int64_t elem_bytes,
                                        int64_t budget_bytes) {
  const int64_t pq = sh.p * sh.q, crs = sh.c * sh.r * sh.s;
  const int64_t elements_per_row = std::max(crs, sh.k) * pq;
  const int64_t bytes_per_row = (crs + sh.k) * pq * elem_bytes;
  if (bytes_per_row > budget_bytes || elements_per_row >= kMaxCudnnTensorElements) return 0;
  return dnn_chunk_rows(sh.n, bytes_per_row, 0, budget_bytes, elements_per_row);
}

#ifdef DMLRT_WITH_CUDA

namespace {

using mem::DeviceMatrix;
using mem::DType;

std::string conv_params(const kernels::cpu::ConvShape& sh) {
  std::ostringstream os;
  os << "N=" << sh.n << " C=" << sh.c << " H=" << sh.h << " W=" << sh.w << " K=" << sh.k
     << " R=" << sh.r << " S=" << sh.s << " P=" << sh.p << " Q=" << sh.q;
  return os.str();
}

void check_operand(const char* what, const DeviceMatrix& m, int64_t rows, int64_t cols,
                   const char* expected, DType dtype, const kernels::cpu::ConvShape& sh) {
  DMLRT_REQUIRE(m.rows() == rows && m.cols() == cols, ShapeError,
                "conv2d (sparse filter): " << what << " is " << m.describe() << ", expected "
                                           << expected << " = " << rows << "x" << cols << " ("
                                           << conv_params(sh) << ")");
  DMLRT_REQUIRE(m.dtype() == dtype, ShapeError,
                "conv2d (sparse filter): " << what << " is " << m.describe()
                                           << ", expected the session's "
                                           << mem::dtype_name(dtype));
}

kernels::cuda::Im2colGeometry geometry(const kernels::cpu::ConvShape& sh) {
  kernels::cuda::Im2colGeometry g;
  g.c = sh.c, g.h = sh.h, g.w = sh.w, g.r = sh.r, g.s = sh.s, g.p = sh.p, g.q = sh.q;
  g.stride_h = sh.stride_h, g.stride_w = sh.stride_w, g.pad_h = sh.pad_h, g.pad_w = sh.pad_w;
  return g;
}

template <typename T>
void run(mem::GpuSession& gpu, const DeviceMatrix& images, const DeviceMatrix& filter,
         const DeviceMatrix* bias, const kernels::cpu::ConvShape& sh, int64_t budget_bytes,
         DeviceMatrix& out) {
  const int64_t n = sh.n, k = sh.k, pq = sh.p * sh.q, kpq = k * pq, chw = sh.c * sh.h * sh.w;
  const int64_t crs = sh.c * sh.r * sh.s;
  const T* b = bias != nullptr ? bias->values_as<T>() : nullptr;
  T* y = out.values_as<T>();
  // An empty filter or an empty image batch: every product is zero, the output is the bias.
  if (filter.is_empty_sparse() || images.is_empty_sparse() || crs == 0) {
    kernels::cuda::launch_reorg_knpq(static_cast<const T*>(nullptr), b, n, k, pq, y, gpu.stream());
    return;
  }
  const int64_t chunk = sparse_filter_conv2d_chunk_rows(sh, sizeof(T), budget_bytes);
  DMLRT_REQUIRE(chunk >= 1, OutOfMemory,
                "conv2d (sparse filter): one image needs a "
                    << crs << "x" << pq << " im2col buffer and a " << k << "x" << pq << " product ("
                    << (crs + k) * pq * sizeof(T) << " bytes), over the budget of " << budget_bytes
                    << " bytes (" << conv_params(sh) << ")");
  // (CRS, chunk*PQ) and (K, chunk*PQ) row-major, reused by every chunk.
  mem::DeviceAllocation cols_buf =
      gpu.scratch(static_cast<size_t>(crs * chunk * pq) * sizeof(T), "conv2d im2col buffer");
  mem::DeviceAllocation prod_buf =
      gpu.scratch(static_cast<size_t>(k * chunk * pq) * sizeof(T), "conv2d K x NPQ product");
  mem::DeviceAllocation spmm_buf;
  const cudaDataType vt = sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;
  const T one = 1, zero = 0;
  cusparseHandle_t h = gpu.context().cusparse();
  // W (K, CRS) CSR.
  gpu::UniqueSpMat w =
      gpu::make_csr(k, crs, filter.nnz(), filter.row_ptr(), filter.col_idx(), filter.values(),
                    filter.index_width() == mem::IndexWidth::k64, vt);
  const kernels::cuda::Im2colGeometry g = geometry(sh);
  for (int64_t n0 = 0; n0 < n; n0 += chunk) {
    const int64_t c = std::min(chunk, n - n0), cols = c * pq;
    T* im = cols_buf.as<T>();
    if (!images.is_sparse()) {
      kernels::cuda::launch_im2col_dense(images.values_as<T>() + n0 * chw, c, g, im, gpu.stream());
    } else {
      const int64_t hint = static_cast<int64_t>(static_cast<double>(images.nnz()) * c / n) + 1;
      if (images.index_width() == mem::IndexWidth::k64)
        kernels::cuda::launch_im2col_csr(static_cast<const int64_t*>(images.row_ptr()),
                                         static_cast<const int64_t*>(images.col_idx()),
                                         images.values_as<T>(), n0, n0 + c, hint, g, im,
                                         gpu.stream());
      else
        kernels::cuda::launch_im2col_csr(static_cast<const int32_t*>(images.row_ptr()),
                                         static_cast<const int32_t*>(images.col_idx()),
                                         images.values_as<T>(), n0, n0 + c, hint, g, im,
                                         gpu.stream());
    }
    // prod (K, c*PQ) = W (K, CRS) x im2col (CRS, c*PQ), both dense row-major.
    gpu::UniqueDnMat dx = gpu::make_dense(crs, cols, cols, im, vt, CUSPARSE_ORDER_ROW);
    gpu::UniqueDnMat dy = gpu::make_dense(k, cols, cols, prod_buf.data(), vt, CUSPARSE_ORDER_ROW);
    size_t need = 0;
    DMLRT_CUSPARSE_CHECK_CTX(
        cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                CUSPARSE_OPERATION_NON_TRANSPOSE, &one, w.get(), dx.get(), &zero,
                                dy.get(), vt, CUSPARSE_SPMM_ALG_DEFAULT, &need),
        "conv2d SpMM filter " << filter.describe() << " x im2col " << crs << "x" << cols);
    if (need > spmm_buf.bytes()) spmm_buf = gpu.scratch(need, "conv2d cusparseSpMM buffer");
    DMLRT_CUSPARSE_CHECK_CTX(
        cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                     w.get(), dx.get(), &zero, dy.get(), vt, CUSPARSE_SPMM_ALG_DEFAULT,
                     spmm_buf.data()),
        "conv2d SpMM filter " << filter.describe() << " x im2col " << crs << "x" << cols);
    kernels::cuda::launch_reorg_knpq(prod_buf.as<T>(), b, c, k, pq, y + n0 * kpq, gpu.stream());
  }
}

}  // namespace

bool sparse_filter_conv2d_applies(mem::GpuSession& gpu, const mem::DeviceMatrix& filter,
                                  const kernels::cpu::ConvShape& sh, int64_t budget_bytes) {
  if (!filter.is_sparse()) return false;
  if (filter.is_empty_sparse()) return true;  // the bias alone: no buffers at all
  return sparse_filter_conv2d_chunk_rows(sh, static_cast<int64_t>(dtype_size(gpu.dtype())),
                                         budget_bytes) >= 1 &&
         sparse_filter_conv2d_cheaper(filter.nnz(), sh, gpu.dtype() == DType::kFloat64);
}

void sparse_filter_conv2d(mem::GpuSession& gpu, const mem::DeviceMatrix& images,
                          const mem::DeviceMatrix& filter, const mem::DeviceMatrix* bias,
                          const kernels::cpu::ConvShape& sh, int64_t budget_bytes,
                          mem::DeviceMatrix& out) {
  const DType dt = gpu.dtype();
  const int64_t chw = sh.c * sh.h * sh.w, crs = sh.c * sh.r * sh.s, kpq = sh.k * sh.p * sh.q;
  check_operand("image batch", images, sh.n, chw, "N x CHW", dt, sh);
  check_operand("filter", filter, sh.k, crs, "K x CRS", dt, sh);
  DMLRT_REQUIRE(filter.is_sparse(), ShapeError,
                "conv2d (sparse filter): the filter is " << filter.describe()
                                                         << ", expected a CSR device copy");
  if (bias != nullptr) {
    check_operand("bias", *bias, sh.k, 1, "K x 1", dt, sh);
    DMLRT_REQUIRE(!bias->is_sparse(), ShapeError,
                  "conv2d (sparse filter): the bias is " << bias->describe()
                                                         << ", expected a dense device copy");
  }
  check_operand("output", out, sh.n, kpq, "N x KPQ", dt, sh);
  DMLRT_REQUIRE(!out.is_sparse(), ShapeError,
                "conv2d (sparse filter): the output is " << out.describe()
                                                         << ", expected a dense device matrix");
  if (sh.n == 0 || kpq == 0) return;
  if (dt == DType::kFloat64)
    run<double>(gpu, images, filter, bias, sh, budget_bytes, out);
  else
    run<float>(gpu, images, filter, bias, sh, budget_bytes, out);
}

#endif  // DMLRT_WITH_CUDA

}  // namespace dmlrt::inst
