// The device op of ba+* (and tsmm's sparse path): C = op(A) %*% op(B) for all four dense/CSR
// combinations through cuBLAS (gemm, gemv, dot) and cuSPARSE (SpMM, SpMV, SpGEMM). Operands are
// unowned views of device matrices; library buffers and transposed temporaries come from the
// caller's Scratch (Note [Device scratch]); the result from the caller's MatmultResult, since it
// outlives the scratch. See Note [GPU matmult paths] in matmult_op.cpp.
#pragma once

#include <cstdint>
#include <functional>

#include "gpu_context/cuda_types.h"
#include "kernels/cuda/scratch.h"

namespace dmlrt::kernels::cuda {

class GemmPlanner;

// A device matrix as the op reads it (a mem::DeviceMatrix, unowned): dense row-major or CSR
// (base 0).
struct DeviceView {
  int64_t rows = 0, cols = 0;
  bool sparse = false;
  int64_t nnz = -1;         // CSR: its entries
  bool index64 = false;     // CSR: int64 offsets and indices (Note [CSR index width])
  void* values = nullptr;
  void* row_ptr = nullptr;  // CSR only
  void* col_idx = nullptr;  // CSR only
};

// The session's side: library handles bound to its stream, the element type of every operand,
// and its GEMM planner (made on first use, so only asked for the products it takes).
struct BlasContext {
  cublasHandle_t cublas = nullptr;
  cusparseHandle_t cusparse = nullptr;
  bool fp64 = true;
  std::function<GemmPlanner&()> planner;
};

// Allocates the product when the op knows its form and size (SpGEMM learns nnz on the device).
class MatmultResult {
 public:
  virtual ~MatmultResult() = default;
  // A dense (rows, cols) row-major result; returns its values.
  virtual void* dense(int64_t rows, int64_t cols) = 0;
  // A CSR result with int32 indices, in two steps: its rows + 1 offsets first (SpGEMM fills them
  // before it knows nnz), then its nnz column indices and values. nnz == 0, also without the
  // first step, is an empty CSR that holds no memory (both left null).
  virtual void* csr_row_ptr(int64_t rows, int64_t cols) = 0;
  virtual void csr_entries(int64_t rows, int64_t cols, int64_t nnz, void** col_idx,
                           void** values) = 0;
};

// C = op(A) %*% op(B); the shapes agree (op(A) is (m, k), op(B) (k, n): the instruction's check).
// Dense x dense gives a dense result, CSR x CSR a CSR one (SpGEMM, int32 indices only), mixed a
// dense one; a zero inner dimension or an empty CSR operand gives an empty CSR. SpGEMM reads its
// result's nnz back to the host; the other paths only queue work on the handles' stream.
void matmult(const BlasContext& ctx, const DeviceView& a, const DeviceView& b, bool trans_a,
             bool trans_b, MatmultResult& result, Scratch& scratch);

}  // namespace dmlrt::kernels::cuda
