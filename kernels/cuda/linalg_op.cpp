// The cuSOLVER device ops of inverse, cholesky, det, lu, qr and svd; see linalg_op.h.
#include "kernels/cuda/linalg_op.h"

#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <limits>

#include "gpu_context/library_check.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/linalg.h"
#include "kernels/cuda/solver.h"

namespace dmlrt::kernels::cuda {
namespace {

// Note [GPU linalg]
// cuSOLVER is column-major: the column-major reading of a row-major A is A^T. Every op that
// factorises a square A (inverse, det, lu) first transposes A explicitly (cuBLAS geam), so that
// getrf sees A itself and takes the pivots LAPACK's dgetrf takes on the CPU: the same singular
// U(k,k) in the same message, the same P. inverse then solves A^T X = I with those factors
// (getrs, transposed), whose column-major X is inv(A) row-major, so no transpose back. cholesky
// needs no transpose: A^T's lower triangle is A's upper one, the triangle the CPU kernel (and
// commons-math) factorises. qr transposes A and reshapes geqrf's reflectors into commons-math's
// form (linalg.cu). svd runs gesvd, which takes only m >= n, on A (tall, transposed) or on the
// stored A^T (wide) and swaps U and V for the latter; a singular vector pair may come out with
// the other sign than on the CPU (kernels/cpu/linalg.h). Host reads (info, diagonals) are the
// ops' only synchronisation, one per op, none for qr.

int as_int(int64_t v, const char* op) {
  DMLRT_REQUIRE(v >= 0 && v <= std::numeric_limits<int>::max(), ShapeError,
                op << ": size " << v << " exceeds cuSOLVER's 32-bit sizes");
  return static_cast<int>(v);
}

// Overloads so that the templates pick the D or S routine.
cusolverStatus_t potrf_size(cusolverDnHandle_t h, int n, double* a, int* lwork) {
  return cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lwork);
}
cusolverStatus_t potrf_size(cusolverDnHandle_t h, int n, float* a, int* lwork) {
  return cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lwork);
}
cusolverStatus_t potrf_call(cusolverDnHandle_t h, int n, double* a, double* w, int lw, int* info) {
  return cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lw, info);
}
cusolverStatus_t potrf_call(cusolverDnHandle_t h, int n, float* a, float* w, int lw, int* info) {
  return cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lw, info);
}
cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, double* a, int* lwork) {
  return cusolverDnDgeqrf_bufferSize(h, m, n, a, m, lwork);
}
cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, float* a, int* lwork) {
  return cusolverDnSgeqrf_bufferSize(h, m, n, a, m, lwork);
}
cusolverStatus_t geqrf_call(cusolverDnHandle_t h, int m, int n, double* a, double* tau, double* w,
                            int lw, int* info) {
  return cusolverDnDgeqrf(h, m, n, a, m, tau, w, lw, info);
}
cusolverStatus_t geqrf_call(cusolverDnHandle_t h, int m, int n, float* a, float* tau, float* w,
                            int lw, int* info) {
  return cusolverDnSgeqrf(h, m, n, a, m, tau, w, lw, info);
}
cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, double*, int* lwork) {
  return cusolverDnDgesvd_bufferSize(h, m, n, lwork);
}
cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, float*, int* lwork) {
  return cusolverDnSgesvd_bufferSize(h, m, n, lwork);
}
// jobu = jobvt = 'S': the first min(m, n) = n columns of U and rows of V^T.
cusolverStatus_t gesvd_call(cusolverDnHandle_t h, int m, int n, double* a, double* s, double* u,
                            double* vt, double* w, int lw, double* rwork, int* info) {
  return cusolverDnDgesvd(h, 'S', 'S', m, n, a, m, s, u, m, vt, n, w, lw, rwork, info);
}
cusolverStatus_t gesvd_call(cusolverDnHandle_t h, int m, int n, float* a, float* s, float* u,
                            float* vt, float* w, int lw, float* rwork, int* info) {
  return cusolverDnSgesvd(h, 'S', 'S', m, n, a, m, s, u, m, vt, n, w, lw, rwork, info);
}

// Queues the copy of the diagonal of cm (n, n) column-major into host `out` (n elements).
template <typename T>
void copy_diagonal(const T* cm, int64_t n, T* out, cudaStream_t stream) {
  DMLRT_CHECK_CTX(cudaMemcpy2DAsync(out, sizeof(T), cm, (n + 1) * sizeof(T), sizeof(T),
                                    static_cast<size_t>(n), cudaMemcpyDeviceToHost, stream),
                  "diagonal of " << n << "x" << n);
}

template <typename T>
std::vector<double> as_doubles(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// cm (n, n) column-major = a (n, n) row-major, factorised in place by getrf: pivots and info on
// the device, from scratch.
template <typename T>
T* factor_lu(const SolverHandles& h, int64_t n, const T* a, int** pivots, int** info,
             Scratch& scratch, const char* op) {
  as_int(n, op);
  T* cm = scratch.allocate_n<T>(static_cast<size_t>(n * n), "column-major LU");
  transpose_row_major(h.cublas, n, n, a, cm);
  const int64_t lwork = getrf_workspace(h.cusolver, n, cm);
  T* work = scratch.allocate_n<T>(static_cast<size_t>(lwork > 0 ? lwork : 1), "getrf workspace");
  *pivots = scratch.allocate_n<int>(static_cast<size_t>(n), "getrf pivots");
  *info = scratch.allocate_n<int>(2, "devInfo");
  getrf(h.cusolver, n, cm, work, *pivots, *info);
  return cm;
}

}  // namespace

template <typename T>
int inverse(const SolverHandles& h, int64_t n, const T* a, T* out, Scratch& scratch) {
  int *pivots = nullptr, *info = nullptr;
  const T* cm = factor_lu(h, n, a, &pivots, &info, scratch, "inverse");
  // A^T X = I: X = inv(A^T) column-major, which read row-major is inv(A). See the Note.
  launch_identity(out, n, h.stream);
  getrs(h.cusolver, true, n, n, cm, pivots, out, info + 1);
  int host[2] = {0, 0};
  DMLRT_CHECK(cudaMemcpyAsync(host, info, sizeof(host), cudaMemcpyDeviceToHost, h.stream));
  DMLRT_CHECK(cudaStreamSynchronize(h.stream));
  DMLRT_REQUIRE(
      host[0] >= 0 && host[1] == 0, Error,
      "inverse: cusolver getrf/getrs rejected argument " << -(host[0] != 0 ? host[0] : host[1]));
  return host[0];
}

template <typename T>
LuReport lu_report(const SolverHandles& h, int64_t n, const T* a, Scratch& scratch) {
  int *pivots = nullptr, *info = nullptr;
  const T* cm = factor_lu(h, n, a, &pivots, &info, scratch, "det");
  LuReport r;
  r.pivots.resize(static_cast<size_t>(n));
  std::vector<T> diag(static_cast<size_t>(n));
  DMLRT_CHECK(cudaMemcpyAsync(&r.info, info, sizeof(int), cudaMemcpyDeviceToHost, h.stream));
  DMLRT_CHECK(cudaMemcpyAsync(r.pivots.data(), pivots, static_cast<size_t>(n) * sizeof(int),
                              cudaMemcpyDeviceToHost, h.stream));
  copy_diagonal(cm, n, diag.data(), h.stream);
  DMLRT_CHECK(cudaStreamSynchronize(h.stream));
  DMLRT_REQUIRE(r.info >= 0, Error, "det: cusolver getrf rejected argument " << -r.info);
  r.diagonal = as_doubles(diag);
  return r;
}

template <typename T>
LuReport lu(const SolverHandles& h, int64_t n, const T* a, T* p, T* l, T* u, Scratch& scratch) {
  int *pivots = nullptr, *info = nullptr;
  const T* cm = factor_lu(h, n, a, &pivots, &info, scratch, "lu");
  int64_t* perm = scratch.allocate_n<int64_t>(static_cast<size_t>(n), "lu permutation");
  launch_lu_split(cm, pivots, n, perm, p, l, u, h.stream);
  LuReport r;
  std::vector<T> diag(static_cast<size_t>(n));
  DMLRT_CHECK(cudaMemcpyAsync(&r.info, info, sizeof(int), cudaMemcpyDeviceToHost, h.stream));
  copy_diagonal(cm, n, diag.data(), h.stream);
  DMLRT_CHECK(cudaStreamSynchronize(h.stream));
  DMLRT_REQUIRE(r.info >= 0, Error, "lu: cusolver getrf rejected argument " << -r.info);
  r.diagonal = as_doubles(diag);
  return r;
}

template <typename T>
CholeskyReport cholesky(const SolverHandles& h, int64_t n, const T* a, double rel, T* out,
                        Scratch& scratch) {
  const int ni = as_int(n, "cholesky");
  auto* first = scratch.allocate_n<unsigned long long>(1, "symmetry test");
  DMLRT_CHECK(cudaMemsetAsync(first, 0xFF, sizeof(unsigned long long), h.stream));
  launch_first_asymmetry(a, n, rel, first, h.stream);
  // a row-major read column-major is A^T, whose lower triangle is A's upper one.
  T* cm = scratch.allocate_n<T>(static_cast<size_t>(n * n), "column-major Cholesky factor");
  DMLRT_CHECK(cudaMemcpyAsync(cm, a, static_cast<size_t>(n * n) * sizeof(T),
                              cudaMemcpyDeviceToDevice, h.stream));
  int lwork = 0;
  DMLRT_CHECK_CTX(potrf_size(h.cusolver, ni, cm, &lwork), "potrf_bufferSize n=" << n);
  T* work = scratch.allocate_n<T>(static_cast<size_t>(lwork > 0 ? lwork : 1), "potrf workspace");
  int* info = scratch.allocate_n<int>(1, "devInfo");
  DMLRT_CHECK_CTX(potrf_call(h.cusolver, ni, cm, work, lwork, info), "potrf n=" << n);
  launch_lower_from_column_major(cm, out, n, h.stream);
  CholeskyReport r;
  unsigned long long host_first = 0;
  std::vector<T> diag(static_cast<size_t>(n));
  DMLRT_CHECK(
      cudaMemcpyAsync(&host_first, first, sizeof(host_first), cudaMemcpyDeviceToHost, h.stream));
  DMLRT_CHECK(cudaMemcpyAsync(&r.info, info, sizeof(int), cudaMemcpyDeviceToHost, h.stream));
  copy_diagonal(static_cast<const T*>(cm), n, diag.data(), h.stream);
  DMLRT_CHECK(cudaStreamSynchronize(h.stream));
  DMLRT_REQUIRE(r.info >= 0, Error, "cholesky: cusolver potrf rejected argument " << -r.info);
  r.diagonal = as_doubles(diag);
  if (host_first != std::numeric_limits<unsigned long long>::max()) {
    // Only on the way to an error: the pair's values for the message.
    r.asym_i = static_cast<int64_t>(host_first) / n;
    r.asym_j = static_cast<int64_t>(host_first) % n;
    T pair[2] = {T(0), T(0)};
    DMLRT_CHECK(cudaMemcpyAsync(&pair[0], a + r.asym_i * n + r.asym_j, sizeof(T),
                                cudaMemcpyDeviceToHost, h.stream));
    DMLRT_CHECK(cudaMemcpyAsync(&pair[1], a + r.asym_j * n + r.asym_i, sizeof(T),
                                cudaMemcpyDeviceToHost, h.stream));
    DMLRT_CHECK(cudaStreamSynchronize(h.stream));
    r.aij = static_cast<double>(pair[0]);
    r.aji = static_cast<double>(pair[1]);
  }
  return r;
}

template <typename T>
void qr(const SolverHandles& h, int64_t m, int64_t n, const T* a, T* hh, T* r, Scratch& scratch) {
  const int mi = as_int(m, "qr"), ni = as_int(n, "qr");
  const int64_t k = m < n ? m : n;
  T* cm = scratch.allocate_n<T>(static_cast<size_t>(m * n), "column-major QR");  // (m, n)
  transpose_row_major(h.cublas, m, n, a, cm);
  int lwork = 0;
  DMLRT_CHECK_CTX(geqrf_size(h.cusolver, mi, ni, cm, &lwork), "geqrf_bufferSize " << m << "x" << n);
  T* work = scratch.allocate_n<T>(static_cast<size_t>(lwork > 0 ? lwork : 1), "geqrf workspace");
  T* tau = scratch.allocate_n<T>(static_cast<size_t>(k), "geqrf tau");
  // devInfo reports only bad arguments, which the checked sizes rule out: it is not read back,
  // so that qr stays free of synchronisation.
  int* info = scratch.allocate_n<int>(1, "devInfo");
  DMLRT_CHECK_CTX(geqrf_call(h.cusolver, mi, ni, cm, tau, work, lwork, info),
                  "geqrf " << m << "x" << n);
  launch_qr_commons_form(cm, tau, m, n, hh, r, h.stream);
}

template <typename T>
int svd(const SolverHandles& h, int64_t m, int64_t n, const T* a, T* u, T* sigma, T* v,
        Scratch& scratch) {
  // gesvd on W (rr, cc) column-major with rr >= cc: A itself when tall, else A^T (the stored
  // row-major A read column-major), whose U and V are A's V and U.
  const bool tall = m >= n;
  const int64_t rr = tall ? m : n, cc = tall ? n : m, p = cc;
  const int ri = as_int(rr, "svd"), ci = as_int(cc, "svd");
  T* w = scratch.allocate_n<T>(static_cast<size_t>(m * n), "column-major SVD input");
  if (tall)
    transpose_row_major(h.cublas, m, n, a, w);
  else
    DMLRT_CHECK(cudaMemcpyAsync(w, a, static_cast<size_t>(m * n) * sizeof(T),
                                cudaMemcpyDeviceToDevice, h.stream));
  T* s = scratch.allocate_n<T>(static_cast<size_t>(p), "singular values");
  T* ucm = scratch.allocate_n<T>(static_cast<size_t>(rr * p), "left singular vectors");
  // W's V^T (p, cc) column-major is row-major V (cc, p): A's V when tall, A's U when wide.
  T* vt = tall ? v : u;
  int lwork = 0;
  DMLRT_CHECK_CTX(gesvd_size(h.cusolver, ri, ci, w, &lwork),
                  "gesvd_bufferSize " << rr << "x" << cc);
  T* work = scratch.allocate_n<T>(static_cast<size_t>(lwork > 0 ? lwork : 1), "gesvd workspace");
  T* rwork = scratch.allocate_n<T>(static_cast<size_t>(p), "gesvd rwork");
  int* info = scratch.allocate_n<int>(1, "devInfo");
  DMLRT_CHECK_CTX(gesvd_call(h.cusolver, ri, ci, w, s, ucm, vt, work, lwork, rwork, info),
                  "gesvd " << rr << "x" << cc);
  // W's U (rr, p) column-major, transposed into row-major: A's U when tall, A's V when wide.
  transpose_row_major(h.cublas, p, rr, ucm, tall ? u : v);
  DMLRT_CHECK(cudaMemcpy2DAsync(sigma, (p + 1) * sizeof(T), s, sizeof(T), sizeof(T),
                                static_cast<size_t>(p), cudaMemcpyDeviceToDevice, h.stream));
  int host_info = 0;
  DMLRT_CHECK(cudaMemcpyAsync(&host_info, info, sizeof(int), cudaMemcpyDeviceToHost, h.stream));
  DMLRT_CHECK(cudaStreamSynchronize(h.stream));
  DMLRT_REQUIRE(host_info >= 0, Error, "svd: cusolver gesvd rejected argument " << -host_info);
  return host_info;
}

#define DMLRT_LINALG_INSTANTIATE(T)                                                        \
  template int inverse<T>(const SolverHandles&, int64_t, const T*, T*, Scratch&);          \
  template LuReport lu_report<T>(const SolverHandles&, int64_t, const T*, Scratch&);       \
  template LuReport lu<T>(const SolverHandles&, int64_t, const T*, T*, T*, T*, Scratch&);  \
  template CholeskyReport cholesky<T>(const SolverHandles&, int64_t, const T*, double, T*, \
                                      Scratch&);                                           \
  template void qr<T>(const SolverHandles&, int64_t, int64_t, const T*, T*, T*, Scratch&); \
  template int svd<T>(const SolverHandles&, int64_t, int64_t, const T*, T*, T*, T*, Scratch&);
DMLRT_LINALG_INSTANTIATE(double)
DMLRT_LINALG_INSTANTIATE(float)
#undef DMLRT_LINALG_INSTANTIATE

}  // namespace dmlrt::kernels::cuda
