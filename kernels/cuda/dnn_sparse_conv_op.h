// The sparse-filter conv2d op (DESIGN.md §5, "DNN ops and memory budgets"): conv2d with a CSR
// filter as im2col (dense or CSR images, CRS x cPQ) -> cuSPARSE SpMM with the K x CRS filter ->
// reorg_knpq (K x cPQ -> c rows of N x KPQ, plus the bias), batch chunk by batch chunk, its
// buffers taken from the caller's Scratch. When the path applies and how large a chunk is are the
// instruction's decisions (instructions/dnn_conv_instructions.h, Note [Sparse-filter conv2d cost
// model]); the caller has checked the operands' shapes.
#pragma once

#include <cusparse.h>

#include <cstdint>
#include <string>

#include "kernels/cpu/dnn_conv.h"
#include "kernels/cuda/scratch.h"

namespace dmlrt::kernels::cuda {

// A CSR device matrix: rows+1 offsets and nnz column indices (int32, or int64 when index64),
// nnz values of the op's element type.
struct CsrOperand {
  const void* row_ptr = nullptr;
  const void* col_idx = nullptr;
  const void* values = nullptr;
  int64_t nnz = 0;
  bool index64 = false;
};

struct SparseFilterConv {
  kernels::cpu::ConvShape shape;  // N, C, H, W, K, R, S, P, Q, strides, pads
  bool fp64 = true;               // element type of every operand: double, else float
  // images (N, CHW) row-major dense, or CSR when images_dense is null.
  const void* images_dense = nullptr;
  CsrOperand images_csr;
  CsrOperand filter;           // (K, CRS)
  const void* bias = nullptr;  // (K) dense, or null
  void* out = nullptr;         // (N, KPQ) row-major dense
  int64_t chunk_rows = 1;      // images per chunk (>= 1), the caller's budget decision
  std::string filter_text;     // the filter as error contexts name it
};

// out = conv2d(images, filter) [+ bias]; an empty filter or image batch (nnz 0) gives the bias
// alone. Buffers: a CRS x chunk*PQ im2col matrix, a K x chunk*PQ product and cuSPARSE's SpMM
// buffer, all from `scratch`. Stream-ordered on `h`'s stream; never synchronises.
void sparse_filter_conv2d(cusparseHandle_t h, cudaStream_t stream, const SparseFilterConv& a,
                          Scratch& scratch);

}  // namespace dmlrt::kernels::cuda
