// inverse, cholesky, det, lu, qr and svd: the GPU run (linalg_instructions.h) through the cuSOLVER
// device ops of kernels/cuda/linalg_op.h, with the CPU kernel's thresholds and error messages
// (kernels/cpu/linalg.cpp), so that a plan fails the same way on either backend.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "instructions/linalg_instructions.h"
#include "kernels/cuda/linalg_op.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {
namespace {

// commons-math's thresholds as the CPU kernel applies them (kernels/cpu/linalg.cpp).
constexpr double kLuSingularity = 1e-11;
constexpr double kCholeskySymmetry = 1e-6;
constexpr double kCholeskyPositivity = 1e-10;

// The first k (1-based) whose pivot |U(k,k)| is below the singularity threshold (NaN too), or 0.
int small_pivot(const std::vector<double>& diagonal) {
  for (size_t k = 0; k < diagonal.size(); ++k)
    if (!(std::abs(diagonal[k]) >= kLuSingularity)) return static_cast<int>(k) + 1;
  return 0;
}

mem::DeviceMatrix output(mem::GpuSession& gpu, int64_t rows, int64_t cols, const char* what,
                         bool zero = false) {
  return mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(), gpu.stream(), what, zero);
}

}  // namespace

void LinalgInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead in = gpu_read(ec, gpu, in_);
  const mem::DeviceMatrix& a = in.dense(gpu);  // (m, n) row-major; check(): m, n >= 1
  const int64_t m = a.rows(), n = a.cols();
  const std::string dims = kernels::dims_string(m, n);
  const kernels::cuda::SolverHandles h{gpu.context().cublas(), gpu.context().cusolver(),
                                       gpu.stream()};
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_" + opcode());
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* av = a.values_as<T>();
    switch (op_) {
      case Op::kInverse: {
        mem::DeviceMatrix x = output(gpu, n, n, "gpu_inverse output");
        const int info = kernels::cuda::inverse(h, n, av, x.values_as<T>(), scratch);
        DMLRT_REQUIRE(info == 0, RuntimeError,
                      "inverse: matrix is singular: U("
                          << info << "," << info << ") of the LU factorisation of the " << dims
                          << " input is exactly zero");
        set_gpu_output(ec, gpu, out_.name, std::move(x));
        return;
      }
      case Op::kCholesky: {
        mem::DeviceMatrix l = output(gpu, n, n, "gpu_cholesky output");
        const kernels::cuda::CholeskyReport r =
            kernels::cuda::cholesky(h, n, av, kCholeskySymmetry, l.values_as<T>(), scratch);
        DMLRT_REQUIRE(r.asym_i < 0, RuntimeError,
                      "cholesky: matrix is not symmetric: entries ("
                          << r.asym_i << "," << r.asym_j << ")=" << r.aij << " and (" << r.asym_j
                          << "," << r.asym_i << ")=" << r.aji
                          << " differ by more than the relative threshold 1e-6");
        // potrf stops at a pivot <= 0; commons-math already at one <= 1e-10.
        int bad = r.info;
        for (size_t k = 0; bad == 0 && k < r.diagonal.size(); ++k)
          if (r.diagonal[k] * r.diagonal[k] <= kCholeskyPositivity) bad = static_cast<int>(k) + 1;
        DMLRT_REQUIRE(bad == 0, RuntimeError,
                      "cholesky: matrix is not positive definite: pivot "
                          << bad - 1 << " of the " << dims << " input is not above 1e-10");
        set_gpu_output(ec, gpu, out_.name, std::move(l));
        return;
      }
      case Op::kDet: {
        const kernels::cuda::LuReport r = kernels::cuda::lu_report(h, n, av, scratch);
        double d = 0.0;
        if (r.info == 0 && small_pivot(r.diagonal) == 0) {
          // commons-math's order: the sign first, then U's diagonal from the top.
          bool odd = false;
          for (size_t k = 0; k < r.pivots.size(); ++k)
            odd ^= r.pivots[k] != static_cast<int>(k) + 1;
          d = odd ? -1.0 : 1.0;
          for (double u : r.diagonal) d *= u;
        }
        ec.set_scalar(out_, ScalarValue::fp64(d));
        return;
      }
      case Op::kLu: {
        mem::DeviceMatrix p = output(gpu, n, n, "gpu_lu P");
        mem::DeviceMatrix l = output(gpu, n, n, "gpu_lu L");
        mem::DeviceMatrix u = output(gpu, n, n, "gpu_lu U");
        const kernels::cuda::LuReport r = kernels::cuda::lu(
            h, n, av, p.values_as<T>(), l.values_as<T>(), u.values_as<T>(), scratch);
        const int k0 = small_pivot(r.diagonal);
        DMLRT_REQUIRE(k0 == 0, RuntimeError,
                      "lu: matrix is singular: |U(" << k0 << "," << k0 << ")| of the " << dims
                                                    << " input is below 1e-11");
        set_gpu_output(ec, gpu, p_, std::move(p));
        set_gpu_output(ec, gpu, l_, std::move(l));
        set_gpu_output(ec, gpu, u_, std::move(u));
        return;
      }
      case Op::kQr: {
        mem::DeviceMatrix hh = output(gpu, m, n, "gpu_qr H");
        mem::DeviceMatrix r = output(gpu, m, n, "gpu_qr R");
        kernels::cuda::qr(h, m, n, av, hh.values_as<T>(), r.values_as<T>(), scratch);
        set_gpu_output(ec, gpu, p_, std::move(hh));
        set_gpu_output(ec, gpu, l_, std::move(r));
        return;
      }
      case Op::kSvd: {
        const int64_t p = std::min(m, n);
        mem::DeviceMatrix u = output(gpu, m, p, "gpu_svd U");
        mem::DeviceMatrix s = output(gpu, p, p, "gpu_svd Sigma", true);
        mem::DeviceMatrix v = output(gpu, n, p, "gpu_svd V");
        const int info = kernels::cuda::svd(h, m, n, av, u.values_as<T>(), s.values_as<T>(),
                                            v.values_as<T>(), scratch);
        DMLRT_REQUIRE(
            info == 0, RuntimeError,
            "svd: the singular values of the " << dims << " input did not converge (gesvd)");
        set_gpu_output(ec, gpu, p_, std::move(u));
        set_gpu_output(ec, gpu, l_, std::move(s));
        set_gpu_output(ec, gpu, u_, std::move(v));
        return;
      }
    }
  });
}

}  // namespace dmlrt::inst
