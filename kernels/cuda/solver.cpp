// cuSOLVER dense LU wrappers; see solver.h.
#include "kernels/cuda/solver.h"

#include <cusolverDn.h>

#include <limits>

#include "gpu_context/library_check.h"

namespace dmlrt::kernels::cuda {
namespace {

// The legacy getrf/getrs API takes int dimensions; a matrix past them (n^2 > 2^62 bytes) could
// not be allocated anyway, but the check keeps the narrowing honest.
int as_int(int64_t v, const char* what) {
  DMLRT_REQUIRE(v >= 0 && v <= std::numeric_limits<int>::max(), ShapeError,
                "solve: " << what << " " << v << " exceeds cuSOLVER's 32-bit sizes");
  return static_cast<int>(v);
}

// Overloads so that the templates below pick the D or S routine.
cusolverStatus_t getrf_size(cusolverDnHandle_t h, int n, double* a, int* lwork) {
  return cusolverDnDgetrf_bufferSize(h, n, n, a, n, lwork);
}
cusolverStatus_t getrf_size(cusolverDnHandle_t h, int n, float* a, int* lwork) {
  return cusolverDnSgetrf_bufferSize(h, n, n, a, n, lwork);
}
cusolverStatus_t getrf_call(cusolverDnHandle_t h, int n, double* a, double* w, int* p, int* info) {
  return cusolverDnDgetrf(h, n, n, a, n, w, p, info);
}
cusolverStatus_t getrf_call(cusolverDnHandle_t h, int n, float* a, float* w, int* p, int* info) {
  return cusolverDnSgetrf(h, n, n, a, n, w, p, info);
}
cusolverStatus_t getrs_call(cusolverDnHandle_t h, cublasOperation_t t, int n, int nrhs,
                            const double* a, const int* p, double* b, int* info) {
  return cusolverDnDgetrs(h, t, n, nrhs, a, n, p, b, n, info);
}
cusolverStatus_t getrs_call(cusolverDnHandle_t h, cublasOperation_t t, int n, int nrhs,
                            const float* a, const int* p, float* b, int* info) {
  return cusolverDnSgetrs(h, t, n, nrhs, a, n, p, b, n, info);
}

template <typename T>
int64_t workspace(cusolverDnHandle_t h, int64_t n, T* a) {
  if (n == 0) return 0;
  int lwork = 0;
  DMLRT_CHECK_CTX(getrf_size(h, as_int(n, "n"), a, &lwork), "getrf_bufferSize n=" << n);
  return lwork;
}

template <typename T>
void lu(cusolverDnHandle_t h, int64_t n, T* a, T* work, int* pivots, int* info) {
  if (n == 0) return;
  DMLRT_CHECK_CTX(getrf_call(h, as_int(n, "n"), a, work, pivots, info), "getrf n=" << n);
}

template <typename T>
void lu_solve(cusolverDnHandle_t h, bool trans, int64_t n, int64_t nrhs, const T* lu,
              const int* pivots, T* b, int* info) {
  if (n == 0 || nrhs == 0) return;
  DMLRT_CHECK_CTX(getrs_call(h, trans ? CUBLAS_OP_T : CUBLAS_OP_N, as_int(n, "n"),
                             as_int(nrhs, "nrhs"), lu, pivots, b, info),
                  "getrs n=" << n << " nrhs=" << nrhs << " trans=" << trans);
}

}  // namespace

int64_t getrf_workspace(cusolverDnHandle_t h, int64_t n, double* a) { return workspace(h, n, a); }
int64_t getrf_workspace(cusolverDnHandle_t h, int64_t n, float* a) { return workspace(h, n, a); }
void getrf(cusolverDnHandle_t h, int64_t n, double* a, double* work, int* pivots, int* info) {
  lu(h, n, a, work, pivots, info);
}
void getrf(cusolverDnHandle_t h, int64_t n, float* a, float* work, int* pivots, int* info) {
  lu(h, n, a, work, pivots, info);
}
void getrs(cusolverDnHandle_t h, bool trans, int64_t n, int64_t nrhs, const double* a,
           const int* pivots, double* b, int* info) {
  lu_solve(h, trans, n, nrhs, a, pivots, b, info);
}
void getrs(cusolverDnHandle_t h, bool trans, int64_t n, int64_t nrhs, const float* a,
           const int* pivots, float* b, int* info) {
  lu_solve(h, trans, n, nrhs, a, pivots, b, info);
}

}  // namespace dmlrt::kernels::cuda
