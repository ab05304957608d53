// The device ops of inverse, cholesky, det, lu, qr and svd: cuSOLVER's factorisations (FP64 and
// FP32) with the row-major results SystemDS returns, cell for cell the CPU kernel's
// (kernels/cpu/linalg.h). Inputs are dense row-major device matrices, outputs dense row-major
// device buffers the caller allocated; LAPACK workspace, column-major copies and pivots come
// from the caller's Scratch (Note [Device scratch]). The ops that must report a value to the
// host (a singular or non-SPD input, det's diagonal) read it back with one synchronisation and
// answer it in a report; the caller raises the CPU kernel's error. See Note [GPU linalg].
#pragma once

#include <cstdint>
#include <vector>

#include "gpu_context/cuda_types.h"
#include "kernels/cuda/scratch.h"

namespace dmlrt::kernels::cuda {

// The session's side: handles bound to `stream`.
struct SolverHandles {
  cublasHandle_t cublas = nullptr;
  cusolverDnHandle_t cusolver = nullptr;
  cudaStream_t stream = nullptr;
};

// What getrf (LU with partial pivoting of A itself) reports: info (0, or k > 0 when U(k,k) is
// exactly zero), U's diagonal (as doubles) and the 1-based row swaps.
struct LuReport {
  int info = 0;
  std::vector<double> diagonal;
  std::vector<int> pivots;
};

// What cholesky reports: the first asymmetric pair (row-major order, i < j; i = -1 when none)
// with its two values, potrf's info (k > 0: the leading minor of order k is not positive
// definite) and L's diagonal.
struct CholeskyReport {
  int64_t asym_i = -1, asym_j = -1;
  double aij = 0, aji = 0;
  int info = 0;
  std::vector<double> diagonal;
};

// T is double or float (instantiated in linalg_op.cpp). Every matrix is row-major, n >= 1 and
// m, n >= 1 (the instruction's check).

// out (n, n) = inv(a (n, n)) through getrf + getrs; answers getrf's info (out is unspecified
// when it is not 0).
template <typename T>
int inverse(const SolverHandles& h, int64_t n, const T* a, T* out, Scratch& scratch);

// getrf's report on a (n, n), for det's product on the host.
template <typename T>
LuReport lu_report(const SolverHandles& h, int64_t n, const T* a, Scratch& scratch);

// P, L, U (n, n) with P a = L U, from getrf; the report holds info and the diagonal (for the
// singular test) but no pivots.
template <typename T>
LuReport lu(const SolverHandles& h, int64_t n, const T* a, T* p, T* l, T* u, Scratch& scratch);

// out (n, n) = the lower L with a = L L^T, from a's upper triangle (potrf), after the symmetry
// test with relative threshold `rel`; out is unspecified when the report shows a failure.
template <typename T>
CholeskyReport cholesky(const SolverHandles& h, int64_t n, const T* a, double rel, T* out,
                        Scratch& scratch);

// commons-math's H (m, n) and R (m, n) of a (m, n) (geqrf). No synchronisation.
template <typename T>
void qr(const SolverHandles& h, int64_t m, int64_t n, const T* a, T* hh, T* r, Scratch& scratch);

// a (m, n) = U diag(s) V^T with p = min(m, n): u (m, p), sigma (p, p) (the caller zero-fills it;
// the singular values go on its diagonal, decreasing), v (n, p); answers gesvd's info (k > 0:
// k superdiagonals did not converge).
template <typename T>
int svd(const SolverHandles& h, int64_t m, int64_t n, const T* a, T* u, T* sigma, T* v,
        Scratch& scratch);

}  // namespace dmlrt::kernels::cuda
