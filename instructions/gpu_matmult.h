// The GPU implementation of ba+*: C = op(A) %*% op(B) for all four dense/CSR combinations
// (cuBLAS gemm/gemv/dot, cuSPARSE SpMM/SpMV/SpGEMM). CUDA builds only; matmult_instructions.cpp
// calls it when the instruction is placed on the GPU.
#pragma once

#ifdef DMLRT_WITH_CUDA
#include "memory/device_matrix.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

// Shapes must already agree (op(A) is (m, k), op(B) is (k, n)). Dense x dense gives a dense
// result, CSR x CSR a CSR one (SpGEMM), mixed a dense one; a zero inner dimension or an empty
// sparse operand gives an empty CSR (no device memory).
mem::DeviceMatrix gpu_matmult(mem::GpuSession& gpu, const mem::DeviceMatrix& a,
                              const mem::DeviceMatrix& b, bool trans_a, bool trans_b);

}  // namespace dmlrt::inst
#endif  // DMLRT_WITH_CUDA
