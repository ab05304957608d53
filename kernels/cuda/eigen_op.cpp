// The cuSOLVER device op of eigen; see eigen_op.h.
#include "kernels/cuda/eigen_op.h"

#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <limits>
#include <type_traits>

#include "gpu_context/library_check.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cuda/convert.h"
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

// syevd on a column-major double copy `cm` (overwritten by the eigenvectors), values into `w`.
void dsyevd(const SolverHandles& h, int n, double* cm, double* w, int* info, Scratch& scratch) {
  int lwork = 0;
  DMLRT_CHECK_CTX(cusolverDnDsyevd_bufferSize(h.cusolver, CUSOLVER_EIG_MODE_VECTOR,
                                              CUBLAS_FILL_MODE_LOWER, n, cm, n, w, &lwork),
                  "syevd_bufferSize n=" << n);
  double* work =
      scratch.allocate_n<double>(static_cast<size_t>(lwork > 0 ? lwork : 1), "syevd workspace");
  DMLRT_CHECK_CTX(cusolverDnDsyevd(h.cusolver, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n,
                                   cm, n, w, work, lwork, info),
                  "syevd n=" << n);
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

  int* info = reinterpret_cast<int*>(flags + 2);
  const size_t cells = static_cast<size_t>(n * n);
  double* cm = scratch.allocate_n<double>(cells, "eigen column-major vectors");
  if constexpr (std::is_same_v<T, double>) {
    DMLRT_CHECK(cudaMemcpyAsync(cm, a, cells * sizeof(double), cudaMemcpyDeviceToDevice, h.stream));
    dsyevd(h, ni, cm, values, info, scratch);
    launch_eigen_vectors(cm, n, vectors, h.stream);
  } else {
    // Note [FP32 eigen in FP64]: cusolverDnSsyevd failed to converge (devInfo > 0, values off by
    // the values far off) on an ultra-sparse symmetric 200x200 — many exactly repeated zero eigenvalues — that
    // Dsyevd and the CPU's dsyevd solve (H200, CUDA 13, 2026-12-02). The O(n^3) factorization of
    // an n x n input is not where FP32 saves time, so it runs in FP64 and only the results are
    // narrowed.
    launch_float_to_double(a, cm, static_cast<int64_t>(cells), h.stream);
    double* w = scratch.allocate_n<double>(static_cast<size_t>(n), "eigen values (fp64)");
    double* v = scratch.allocate_n<double>(cells, "eigen vectors (fp64)");
    dsyevd(h, ni, cm, w, info, scratch);
    launch_eigen_vectors(cm, n, v, h.stream);
    launch_double_to_float(w, values, n, h.stream);
    launch_double_to_float(v, vectors, static_cast<int64_t>(cells), h.stream);
  }
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
