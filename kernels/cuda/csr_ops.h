// Launchers of the CSR kernel family (host-clean): the sparse paths of reorg, indexing and append
// that keep a CSR input sparse or read only the part of it they need — row/column slices (to CSR
// or to dense), row reversal, diag in both directions and the row concatenation of rbind.
// Pointers are device pointers; `stream` is a cudaStream_t. Indices are int32 unless an overload
// takes int64 (Note [CSR index width]); callers short-circuit empty CSRs (no device memory).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// --- slices (right indexing) ---
// out (r1-r0, c1-c0) dense row-major, zeroed by the caller, receives the entries of rows [r0, r1)
// whose column lies in [c0, c1). The CSR's columns need not be sorted.
void launch_csr_slice_to_dense(const int32_t* row_ptr, const int32_t* col_idx, const double* values,
                               int64_t r0, int64_t r1, int64_t c0, int64_t c1, double* out,
                               cudaStream_t stream);
void launch_csr_slice_to_dense(const int32_t* row_ptr, const int32_t* col_idx, const float* values,
                               int64_t r0, int64_t r1, int64_t c0, int64_t c1, float* out,
                               cudaStream_t stream);
void launch_csr_slice_to_dense(const int64_t* row_ptr, const int64_t* col_idx, const double* values,
                               int64_t r0, int64_t r1, int64_t c0, int64_t c1, double* out,
                               cudaStream_t stream);
void launch_csr_slice_to_dense(const int64_t* row_ptr, const int64_t* col_idx, const float* values,
                               int64_t r0, int64_t r1, int64_t c0, int64_t c1, float* out,
                               cudaStream_t stream);

// A CSR slice in three steps: (1) launch_csr_slice_count writes out_row_ptr (r1-r0+1 entries):
// 0, then the entry count of each selected row within columns [c0, c1); (2) launch_csr_scan turns
// it into row offsets in place, so out_row_ptr[r1-r0] is the slice's nnz (the caller reads it to
// size the output); (3) launch_csr_slice_fill copies the entries, columns rebased by -c0, keeping
// each row's order.
void launch_csr_slice_count(const int32_t* row_ptr, const int32_t* col_idx, int64_t r0, int64_t r1,
                            int64_t c0, int64_t c1, int64_t in_cols, int32_t* out_row_ptr,
                            cudaStream_t stream);
// Workspace bytes launch_csr_scan needs for n entries.
size_t csr_scan_workspace_bytes(int64_t n);
// In-place inclusive prefix sum of data[0..n).
void launch_csr_scan(int32_t* data, int64_t n, void* workspace, size_t workspace_bytes,
                     cudaStream_t stream);
void launch_csr_slice_fill(const int32_t* row_ptr, const int32_t* col_idx, const double* values,
                           int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                           const int32_t* out_row_ptr, int32_t* out_col_idx, double* out_values,
                           cudaStream_t stream);
void launch_csr_slice_fill(const int32_t* row_ptr, const int32_t* col_idx, const float* values,
                           int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                           const int32_t* out_row_ptr, int32_t* out_col_idx, float* out_values,
                           cudaStream_t stream);

// --- reorg ---
// (rows, cols) CSR with nnz entries -> the same with its rows in reverse order (rev).
void launch_csr_reverse_rows(const int32_t* row_ptr, const int32_t* col_idx, const double* values,
                             int64_t rows, int64_t nnz, int32_t* out_row_ptr, int32_t* out_col_idx,
                             double* out_values, cudaStream_t stream);
void launch_csr_reverse_rows(const int32_t* row_ptr, const int32_t* col_idx, const float* values,
                             int64_t rows, int64_t nnz, int32_t* out_row_ptr, int32_t* out_col_idx,
                             float* out_values, cudaStream_t stream);

// (n, 1) CSR vector with nnz entries -> (n, n) CSR with them on the diagonal (same nnz).
void launch_csr_diag_from_vector(const int32_t* row_ptr, const double* values, int64_t n,
                                 int64_t nnz, int32_t* out_row_ptr, int32_t* out_col_idx,
                                 double* out_values, cudaStream_t stream);
void launch_csr_diag_from_vector(const int32_t* row_ptr, const float* values, int64_t n,
                                 int64_t nnz, int32_t* out_row_ptr, int32_t* out_col_idx,
                                 float* out_values, cudaStream_t stream);

// (n, n) CSR -> out (n) dense: the diagonal (zero where row i holds no entry in column i).
void launch_csr_diag_to_vector(const int32_t* row_ptr, const int32_t* col_idx, const double* values,
                               int64_t n, double* out, cudaStream_t stream);
void launch_csr_diag_to_vector(const int32_t* row_ptr, const int32_t* col_idx, const float* values,
                               int64_t n, float* out, cudaStream_t stream);
void launch_csr_diag_to_vector(const int64_t* row_ptr, const int64_t* col_idx, const double* values,
                               int64_t n, double* out, cudaStream_t stream);
void launch_csr_diag_to_vector(const int64_t* row_ptr, const int64_t* col_idx, const float* values,
                               int64_t n, float* out, cudaStream_t stream);

// --- rbind ---
// Places one (rows, ?) CSR input with nnz entries at row offset row_off and entry offset nnz_off of
// the output: out_row_ptr[row_off + i] = row_ptr[i] + nnz_off for i in [0, rows] (the shared
// boundary entry gets the same value from both neighbours), columns and values copied. An empty
// input passes null pointers and nnz 0 (its rows + 1 offsets are all nnz_off).
void launch_csr_rbind_part(const int32_t* row_ptr, const int32_t* col_idx, const double* values,
                           int64_t rows, int64_t nnz, int64_t row_off, int64_t nnz_off,
                           int32_t* out_row_ptr, int32_t* out_col_idx, double* out_values,
                           cudaStream_t stream);
void launch_csr_rbind_part(const int32_t* row_ptr, const int32_t* col_idx, const float* values,
                           int64_t rows, int64_t nnz, int64_t row_off, int64_t nnz_off,
                           int32_t* out_row_ptr, int32_t* out_col_idx, float* out_values,
                           cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
