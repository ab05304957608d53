// The cuSOLVER device op of eigen; see eigen_op.h.
#include "kernels/cuda/eigen_op.h"

#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <limits>

#include "gpu_context/library_check.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cuda/eigen.h"

namespace dmlrt::kernels::cuda {
namespace {

// Note [GPU eigen]
// The column-major reading of the row-major input is A^T, which for a symmetric A is A: syevd
// runs on a plain copy, reading its lower triangle, which is A's upper one (the CPU kernel's
// dsyevd reads the same). Its eigenvalues come ascending, as SystemDS sorts them, straight into
// the values output; its eigenvectors (columns of the column-major copy) go to the row-major
// output through launch_eigen_vectors, which applies the CPU kernel's sign rule. The symmetry and
// finiteness test runs first and is read back before syevd (one synchronisation), so that syevd
// never sees a matrix the CPU kernel would treat otherwise; devInfo is the second.
// The symmetry test is the CPU's on the values the device holds, with the FP64 threshold in
// either precision: an FP32 matrix whose mirror cells round differently falls back to the CPU.

int as_int(int64_t v) {
  DMLRT_REQUIRE(v >= 0 && v <= std::numeric_limits<int>::max(), ShapeError,
                "eigen: size " << v << " exceeds cuSOLVER's 32-bit sizes");
  return static_cast<int>(v);
}

// Overloads so that the template picks the D or S routine.
cusolverStatus_t syevd_size(cusolverDnHandle_t h, int n, const double* a, const double* w,
                            int* lwork) {
  return cusolverDnDsyevd_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, a, n,
                                     w, lwork);
}
cusolverStatus_t syevd_size(cusolverDnHandle_t h, int n, const float* a, const float* w,
                            int* lwork) {
  return cusolverDnSsyevd_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, a, n,
                                     w, lwork);
}
cusolverStatus_t syevd_call(cusolverDnHandle_t h, int n, double* a, double* w, double* work,
                            int lwork, int* info) {
  return cusolverDnDsyevd(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, a, n, w, work,
                          lwork, info);
}
cusolverStatus_t syevd_call(cusolverDnHandle_t h, int n, float* a, float* w, float* work, int lwork,
                            int* info) {
  return cusolverDnSsyevd(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, a, n, w, work,
                          lwork, info);
}

}  // namespace

template <typename T>
EigenReport eigen_symmetric(const SolverHandles& h, int64_t n, const T* a, T* values, T* vectors,
                            Scratch& scratch) {
  const int ni = as_int(n);
  EigenReport r;
  // flags[0]: not symmetric, flags[1]: NaN/Inf; info from syevd after them.
  auto* flags = scratch.allocate_n<unsigned int>(3, "eigen input test and devInfo");
  DMLRT_CHECK(cudaMemsetAsync(flags, 0, 3 * sizeof(unsigned int), h.stream));
  launch_eigen_check(a, n, cpu::eigen_symmetry_tolerance(n), flags, h.stream);
  unsigned int host[2] = {0, 0};
  DMLRT_CHECK(cudaMemcpyAsync(host, flags, sizeof(host), cudaMemcpyDeviceToHost, h.stream));
  DMLRT_CHECK(cudaStreamSynchronize(h.stream));
  r.symmetric = host[0] == 0;
  r.finite = host[1] == 0;
  if (!r.symmetric || !r.finite) return r;

  T* cm = scratch.allocate_n<T>(static_cast<size_t>(n * n), "eigen column-major vectors");
  DMLRT_CHECK(cudaMemcpyAsync(cm, a, static_cast<size_t>(n * n) * sizeof(T),
                              cudaMemcpyDeviceToDevice, h.stream));
  int lwork = 0;
  DMLRT_CHECK_CTX(syevd_size(h.cusolver, ni, cm, values, &lwork), "syevd_bufferSize n=" << n);
  T* work = scratch.allocate_n<T>(static_cast<size_t>(lwork > 0 ? lwork : 1), "syevd workspace");
  int* info = reinterpret_cast<int*>(flags + 2);
  DMLRT_CHECK_CTX(syevd_call(h.cusolver, ni, cm, values, work, lwork, info), "syevd n=" << n);
  launch_eigen_vectors(cm, n, vectors, h.stream);
  DMLRT_CHECK(cudaMemcpyAsync(&r.info, info, sizeof(int), cudaMemcpyDeviceToHost, h.stream));
  DMLRT_CHECK(cudaStreamSynchronize(h.stream));
  DMLRT_REQUIRE(r.info >= 0, Error, "eigen: cusolver syevd rejected argument " << -r.info);
  return r;
}

template EigenReport eigen_symmetric<double>(const SolverHandles&, int64_t, const double*, double*,
                                             double*, Scratch&);
template EigenReport eigen_symmetric<float>(const SolverHandles&, int64_t, const float*, float*,
                                            float*, Scratch&);

}  // namespace dmlrt::kernels::cuda
