// The device op of sqrt_matrix_java; see sqrt_matrix_op.h.
#include "kernels/cuda/sqrt_matrix_op.h"

#include <cuda_runtime_api.h>

#include <vector>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/eigen_op.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/unary.h"

namespace dmlrt::kernels::cuda {

template <typename T>
SqrtMatrixReport sqrt_matrix(const SolverHandles& h, int64_t n, const T* a, T* out,
                             Scratch& scratch) {
  const size_t cells = static_cast<size_t>(n) * static_cast<size_t>(n);
  T* values = scratch.allocate_n<T>(static_cast<size_t>(n), "sqrtm eigenvalues");  // (n) ascending
  T* vectors = scratch.allocate_n<T>(cells, "sqrtm eigenvectors");  // (n, n) row-major
  SqrtMatrixReport r;
  const EigenReport e = eigen_symmetric(h, n, a, values, vectors, scratch);
  r.symmetric = e.symmetric;
  r.finite = e.finite;
  r.info = e.info;
  if (!r.symmetric || !r.finite || r.info != 0) return r;

  // The CPU kernel's test, in its order: the first eigenvalue that is not > 0.
  std::vector<T> host(static_cast<size_t>(n));
  DMLRT_CHECK(cudaMemcpyAsync(host.data(), values, host.size() * sizeof(T), cudaMemcpyDeviceToHost,
                              h.stream));
  DMLRT_CHECK(cudaStreamSynchronize(h.stream));
  for (int64_t k = 0; k < n; ++k) {
    if (!(host[static_cast<size_t>(k)] > T(0))) {
      r.nonpositive = k;
      r.eigenvalue = static_cast<double>(host[static_cast<size_t>(k)]);
      return r;
    }
  }

  // w (n, n) = V diag(s), s = sqrt(lambda): column k of V times s_k (the CPU's V_ik * s_k), then
  // out = w V^T, out_ij = sum_k (V_ik s_k) V_jk as on the CPU (in cuBLAS's summation order).
  T* s = scratch.allocate_n<T>(static_cast<size_t>(n), "sqrtm sqrt(eigenvalues)");  // (1, n)
  T* w = scratch.allocate_n<T>(cells, "sqrtm scaled eigenvectors");                 // (n, n)
  launch_unary(cpu::UnaryOp::kSqrt, values, s, n, h.stream);
  launch_binary_matrix_matrix(cpu::BinaryOp::kMult, cpu::Broadcast::kRowVector, vectors, s, w, n, n,
                              h.stream);
  gemm_row_major(h.cublas, false, true, n, n, n, w, vectors, out);
  return r;
}

template SqrtMatrixReport sqrt_matrix<double>(const SolverHandles&, int64_t, const double*, double*,
                                              Scratch&);
template SqrtMatrixReport sqrt_matrix<float>(const SolverHandles&, int64_t, const float*, float*,
                                             Scratch&);

}  // namespace dmlrt::kernels::cuda
