// Thin cuSOLVER wrappers for dense LU solves (host-clean: the handle is a cusolverDnHandle_t passed
// as void*; pointers are device pointers; work goes to the stream the handle is bound to). Unlike
// blas.h these take column-major matrices, as LAPACK does: the caller transposes row-major data
// (see instructions/solve_instruction.cpp). They never synchronise: `info` stays on the device.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// Elements of type T (not bytes) of the workspace getrf needs for an (n, n) column-major matrix.
int64_t getrf_workspace(cusolverDnHandle_t cusolver, int64_t n, double* a);
int64_t getrf_workspace(cusolverDnHandle_t cusolver, int64_t n, float* a);

// In-place LU factorisation with partial pivoting of a (n, n) column-major (LAPACK getrf): pivots
// gets n 1-based row indices, *info (device int) 0, or i > 0 when U(i, i) is exactly zero.
// `work` holds getrf_workspace(n) elements.
void getrf(cusolverDnHandle_t cusolver, int64_t n, double* a, double* work, int* pivots, int* info);
void getrf(cusolverDnHandle_t cusolver, int64_t n, float* a, float* work, int* pivots, int* info);

// Solves op(A) X = B with getrf's factors of A, op = transpose when `trans`; b (n, nrhs)
// column-major is overwritten by X; *info (device int) < 0 names a bad argument.
void getrs(cusolverDnHandle_t cusolver, bool trans, int64_t n, int64_t nrhs, const double* lu,
           const int* pivots, double* b, int* info);
void getrs(cusolverDnHandle_t cusolver, bool trans, int64_t n, int64_t nrhs, const float* lu,
           const int* pivots, float* b, int* info);

}  // namespace dmlrt::kernels::cuda
