// Linalg kernel family: LAPACK factors into SystemDS's row-major results (lu, cholesky, qr) and
// cholesky's symmetry test; see linalg.h.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/cuda/linalg.h"

namespace dmlrt::kernels::cuda {
namespace {

// One thread: the row swaps of getrf applied in order to the identity order, so that
// (P A)(i, :) = A(perm[i], :). O(n) serial work next to getrf's O(n^3).
__global__ void lu_permutation_kernel(const int* __restrict__ pivots, int64_t n,
                                      int64_t* __restrict__ perm) {
  if (detail::global_thread() != 0) return;
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t o = pivots[k] - 1;
    const int64_t t = perm[k];
    perm[k] = perm[o];
    perm[o] = t;
  }
}

// One thread per cell (i, j) of the three row-major (n, n) outputs.
template <typename T>
__global__ void lu_split_kernel(const T* __restrict__ cm, const int64_t* __restrict__ perm,
                                int64_t n, T* __restrict__ p, T* __restrict__ l,
                                T* __restrict__ u) {
  const int64_t total = n * n;
  const int64_t start = detail::global_thread();
  if (start >= total) return;
  detail::RowColWalk w(start, detail::grid_stride(), n);
  for (int64_t c = start; c < total; c += detail::grid_stride(), w.advance()) {
    const int64_t i = w.r, j = w.c;
    const T v = cm[j * n + i];
    p[c] = perm[i] == j ? T(1) : T(0);
    l[c] = j < i ? v : (j == i ? T(1) : T(0));
    u[c] = j >= i ? v : T(0);
  }
}

template <typename T>
void lu_split(const T* cm, const int* pivots, int64_t n, int64_t* perm, T* p, T* l, T* u,
              cudaStream_t stream) {
  if (n == 0) return;
  lu_permutation_kernel<<<1, 1, 0, stream>>>(pivots, n, perm);
  DMLRT_CHECK_CTX(cudaGetLastError(), "lu_permutation n=" << n);
  lu_split_kernel<T>
      <<<detail::grid_for(n * n), detail::kThreads, 0, stream>>>(cm, perm, n, p, l, u);
  DMLRT_CHECK_CTX(cudaGetLastError(), "lu_split n=" << n);
}

template <typename T>
__global__ void identity_kernel(T* __restrict__ out, int64_t n) {
  const int64_t total = n * n;
  for (int64_t c = detail::global_thread(); c < total; c += detail::grid_stride())
    out[c] = c % (n + 1) == 0 ? T(1) : T(0);
}

template <typename T>
void identity(T* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  identity_kernel<T><<<detail::grid_for(n * n), detail::kThreads, 0, stream>>>(out, n);
  DMLRT_CHECK_CTX(cudaGetLastError(), "identity n=" << n);
}

template <typename T>
__global__ void lower_from_column_major_kernel(const T* __restrict__ cm, T* __restrict__ out,
                                               int64_t n) {
  const int64_t total = n * n;
  const int64_t start = detail::global_thread();
  if (start >= total) return;
  detail::RowColWalk w(start, detail::grid_stride(), n);
  for (int64_t c = start; c < total; c += detail::grid_stride(), w.advance())
    out[c] = w.c <= w.r ? cm[w.c * n + w.r] : T(0);
}

template <typename T>
void lower_from_column_major(const T* cm, T* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  lower_from_column_major_kernel<T>
      <<<detail::grid_for(n * n), detail::kThreads, 0, stream>>>(cm, out, n);
  DMLRT_CHECK_CTX(cudaGetLastError(), "lower_from_column_major n=" << n);
}

// Every cell (i, j) with i < j compares itself with its mirror; a failing one lowers *first.
// The test reads as the CPU's: !(|aij - aji| > rel * max(|aij|, |aji|)) passes, so NaN does.
template <typename T>
__global__ void first_asymmetry_kernel(const T* __restrict__ a, int64_t n, double rel,
                                       unsigned long long* first) {
  const int64_t total = n * n;
  const int64_t start = detail::global_thread();
  if (start >= total) return;
  detail::RowColWalk w(start, detail::grid_stride(), n);
  for (int64_t c = start; c < total; c += detail::grid_stride(), w.advance()) {
    if (w.c <= w.r) continue;
    const double aij = static_cast<double>(a[c]);
    const double aji = static_cast<double>(a[w.c * n + w.r]);
    if (fabs(aij - aji) > rel * fmax(fabs(aij), fabs(aji)))
      atomicMin(first, static_cast<unsigned long long>(c));
  }
}

template <typename T>
void first_asymmetry(const T* a, int64_t n, double rel, unsigned long long* first,
                     cudaStream_t stream) {
  if (n <= 1) return;
  first_asymmetry_kernel<T>
      <<<detail::grid_for(n * n), detail::kThreads, 0, stream>>>(a, n, rel, first);
  DMLRT_CHECK_CTX(cudaGetLastError(), "first_asymmetry n=" << n);
}

// One thread per cell (i, c) of H and R (m, n) row-major; see kernels/cpu/linalg.cpp (qr).
template <typename T>
__global__ void qr_commons_form_kernel(const T* __restrict__ cm, const T* __restrict__ tau,
                                       int64_t m, int64_t n, T* __restrict__ h, T* __restrict__ r) {
  const int64_t k = m < n ? m : n;
  const int64_t total = m * n;
  const int64_t start = detail::global_thread();
  if (start >= total) return;
  detail::RowColWalk w(start, detail::grid_stride(), n);
  for (int64_t x = start; x < total; x += detail::grid_stride(), w.advance()) {
    const int64_t i = w.r, c = w.c;
    // H(i, c): reflector c. LAPACK skipped it (tau 0, nothing below the diagonal) where
    // commons-math reflects: 2 on the diagonal, or 0/-0 = NaN down a zero column.
    T hv = T(0);
    if (c < k && i >= c) {
      const T t = tau[c];
      if (t == T(0)) {
        const T rcc = cm[c * m + c];
        hv = rcc == T(0) ? T(nan("")) : (i == c ? T(2) : T(0));
      } else {
        hv = i == c ? t : t * cm[c * m + i];
      }
    }
    h[x] = hv;
    // R(i, c): row i of the reflected matrix, negated where commons-math reflects and LAPACK
    // did not.
    T rv = T(0);
    if (i < k && c >= i) {
      const T rii = cm[i * m + i];
      const T sign = tau[i] == T(0) && rii != T(0) ? T(-1) : T(1);
      rv = sign * cm[c * m + i];
    }
    r[x] = rv;
  }
}

template <typename T>
void qr_commons_form(const T* cm, const T* tau, int64_t m, int64_t n, T* h, T* r,
                     cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  qr_commons_form_kernel<T>
      <<<detail::grid_for(m * n), detail::kThreads, 0, stream>>>(cm, tau, m, n, h, r);
  DMLRT_CHECK_CTX(cudaGetLastError(), "qr_commons_form " << m << "x" << n);
}

}  // namespace

void launch_lu_split(const double* cm, const int* pivots, int64_t n, int64_t* perm, double* p,
                     double* l, double* u, cudaStream_t stream) {
  lu_split(cm, pivots, n, perm, p, l, u, stream);
}
void launch_lu_split(const float* cm, const int* pivots, int64_t n, int64_t* perm, float* p,
                     float* l, float* u, cudaStream_t stream) {
  lu_split(cm, pivots, n, perm, p, l, u, stream);
}
void launch_identity(double* out, int64_t n, cudaStream_t stream) { identity(out, n, stream); }
void launch_identity(float* out, int64_t n, cudaStream_t stream) { identity(out, n, stream); }
void launch_lower_from_column_major(const double* cm, double* out, int64_t n, cudaStream_t stream) {
  lower_from_column_major(cm, out, n, stream);
}
void launch_lower_from_column_major(const float* cm, float* out, int64_t n, cudaStream_t stream) {
  lower_from_column_major(cm, out, n, stream);
}
void launch_first_asymmetry(const double* a, int64_t n, double rel, unsigned long long* first,
                            cudaStream_t stream) {
  first_asymmetry(a, n, rel, first, stream);
}
void launch_first_asymmetry(const float* a, int64_t n, double rel, unsigned long long* first,
                            cudaStream_t stream) {
  first_asymmetry(a, n, rel, first, stream);
}
void launch_qr_commons_form(const double* cm, const double* tau, int64_t m, int64_t n, double* h,
                            double* r, cudaStream_t stream) {
  qr_commons_form(cm, tau, m, n, h, r, stream);
}
void launch_qr_commons_form(const float* cm, const float* tau, int64_t m, int64_t n, float* h,
                            float* r, cudaStream_t stream) {
  qr_commons_form(cm, tau, m, n, h, r, stream);
}

}  // namespace dmlrt::kernels::cuda
