// solve(A, b): the GPU run (solve_instruction.h), LU through cuSOLVER.
#include <cuda_runtime_api.h>

#include "gpu_context/cuda_check.h"
#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "instructions/solve_instruction.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/solver.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {
namespace {

// Note [GPU solve]
// cuSOLVER is column-major. The column-major copy of row-major A is A's transpose, so A is
// transposed explicitly (cuBLAS geam into scratch) rather than solving with A^T's factors and
// getrs(TRANS): factoring A itself takes the pivots LAPACK's dgesv takes on the CPU, so an
// exactly singular A reports the same U(i,i) in the same error text. b (n, k) is transposed
// likewise (not for k == 1: a column is the same data in both layouts) and the solution
// transposed back. getrf's devInfo is read after getrs: the only synchronisation of the op.
template <typename T>
mem::DeviceMatrix solve_on_device(mem::GpuSession& gpu, const mem::DeviceMatrix& ad,
                                  const mem::DeviceMatrix& bd, int64_t n, int64_t k) {
  cublasHandle_t blas = gpu.context().cublas();
  cusolverDnHandle_t solver = gpu.context().cusolver();
  const size_t es = sizeof(T);
  mem::DeviceAllocation lu = gpu.scratch(static_cast<size_t>(n * n) * es, "gpu_solve LU of A");
  T* lu_p = static_cast<T*>(lu.data());  // (n, n) column-major = A
  kernels::cuda::transpose_row_major(blas, n, n, ad.values_as<T>(), lu_p);
  mem::DeviceMatrix x = mem::DeviceMatrix::dense(gpu.memory(), n, k, gpu.dtype(), gpu.stream(),
                                                 "gpu_solve output");  // (n, k) row-major
  mem::DeviceAllocation rhs;  // (n, k) column-major, when k > 1
  T* rhs_p = x.values_as<T>();
  if (k == 1) {
    DMLRT_CHECK(cudaMemcpyAsync(rhs_p, bd.values(), static_cast<size_t>(n) * es,
                                cudaMemcpyDeviceToDevice, gpu.stream()));
  } else {
    rhs = gpu.scratch(static_cast<size_t>(n * k) * es, "gpu_solve right-hand sides");
    rhs_p = static_cast<T*>(rhs.data());
    kernels::cuda::transpose_row_major(blas, n, k, bd.values_as<T>(), rhs_p);
  }
  const int64_t lwork = kernels::cuda::getrf_workspace(solver, n, lu_p);
  mem::DeviceAllocation work =
      gpu.scratch(static_cast<size_t>(lwork > 0 ? lwork : 1) * es, "cusolver getrf workspace");
  mem::DeviceAllocation pivots =
      gpu.scratch(static_cast<size_t>(n) * sizeof(int), "gpu_solve pivots");
  // info[0] from getrf, info[1] from getrs.
  mem::DeviceAllocation info = gpu.scratch(2 * sizeof(int), "gpu_solve devInfo", true);
  int* info_p = static_cast<int*>(info.data());
  int* piv_p = static_cast<int*>(pivots.data());
  kernels::cuda::getrf(solver, n, lu_p, static_cast<T*>(work.data()), piv_p, info_p);
  kernels::cuda::getrs(solver, false, n, k, lu_p, piv_p, rhs_p, info_p + 1);
  int host_info[2] = {0, 0};
  DMLRT_CHECK(
      cudaMemcpyAsync(host_info, info_p, sizeof(host_info), cudaMemcpyDeviceToHost, gpu.stream()));
  gpu.synchronize("solve devInfo");
  // The CPU kernel's messages (kernels/cpu/solve.cpp).
  DMLRT_REQUIRE(host_info[0] <= 0, RuntimeError,
                "solve: matrix is singular: U("
                    << host_info[0] << "," << host_info[0] << ") of the LU factorisation of the "
                    << kernels::dims_string(n, n) << " A is exactly zero");
  DMLRT_REQUIRE(host_info[0] == 0 && host_info[1] == 0, Error,
                "solve: cusolver getrf/getrs rejected argument "
                    << -(host_info[0] != 0 ? host_info[0] : host_info[1]));
  if (k > 1) kernels::cuda::transpose_row_major(blas, k, n, rhs_p, x.values_as<T>());
  return x;
}

}  // namespace

void SolveInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead a = gpu_read(ec, gpu, a_);
  DeviceRead b = gpu_read(ec, gpu, b_);
  const int64_t n = a->rows(), k = b->cols();
  // (n, k) row-major solution; zeros for an empty system, as on the CPU.
  if (n == 0 || k == 0) {
    set_gpu_output(ec, gpu, out_.name,
                   mem::DeviceMatrix::dense(gpu.memory(), n, k, gpu.dtype(), gpu.stream(),
                                            "gpu_solve output", true));
    return;
  }
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    set_gpu_output(ec, gpu, out_.name, solve_on_device<T>(gpu, a.dense(gpu), b.dense(gpu), n, k));
  });
}

}  // namespace dmlrt::inst
