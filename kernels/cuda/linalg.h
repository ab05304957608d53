// Launchers of the linalg kernel family (host-clean): the small kernels around cuSOLVER's
// factorisations (kernels/cuda/linalg_op.cpp) that turn LAPACK's column-major factors into the
// row-major results SystemDS returns (kernels/cpu/linalg.h), and the symmetry test of cholesky.
// Pointers are device pointers; `stream` is a cudaStream_t; nothing synchronises.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// lu: from getrf's factors of A, cm (n, n) column-major, and its n 1-based row swaps `pivots`,
// the row-major (n, n) P (P A = L U), unit lower L and upper U; every cell is written. `perm`
// holds n int64 of scratch (the swaps applied to the identity order, as the CPU kernel does).
void launch_lu_split(const double* cm, const int* pivots, int64_t n, int64_t* perm, double* p,
                     double* l, double* u, cudaStream_t stream);
void launch_lu_split(const float* cm, const int* pivots, int64_t n, int64_t* perm, float* p,
                     float* l, float* u, cudaStream_t stream);

// inverse: out (n, n) row-major = the identity; every cell is written.
void launch_identity(double* out, int64_t n, cudaStream_t stream);
void launch_identity(float* out, int64_t n, cudaStream_t stream);

// cholesky: out (n, n) row-major = the lower triangle of cm (n, n) column-major (potrf's L, uplo
// lower), zeros above the diagonal.
void launch_lower_from_column_major(const double* cm, double* out, int64_t n, cudaStream_t stream);
void launch_lower_from_column_major(const float* cm, float* out, int64_t n, cudaStream_t stream);

// cholesky's symmetry test on a (n, n) row-major: *first (device) becomes the smallest row-major
// index i * n + j (i < j) whose pair a(i,j), a(j,i) differs by more than `rel` times the larger
// magnitude (the CPU kernel's rule; NaN pairs pass), and is left as it was when none does. The
// caller sets *first to UINT64_MAX before.
void launch_first_asymmetry(const double* a, int64_t n, double rel, unsigned long long* first,
                            cudaStream_t stream);
void launch_first_asymmetry(const float* a, int64_t n, double rel, unsigned long long* first,
                            cudaStream_t stream);

// qr: geqrf's output cm (m, n) column-major and tau (min(m, n)) into commons-math's Householder
// form H (m, n) and R (m, n), row-major, every cell written; see kernels/cpu/linalg.h (qr) for
// the form and its tau == 0 cases, which this follows cell for cell.
void launch_qr_commons_form(const double* cm, const double* tau, int64_t m, int64_t n, double* h,
                            double* r, cudaStream_t stream);
void launch_qr_commons_form(const float* cm, const float* tau, int64_t m, int64_t n, float* h,
                            float* r, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
