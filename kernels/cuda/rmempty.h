// Launchers of the rmempty kernel family (host-clean): removeEmpty on dense row-major and on CSR
// (int32) device matrices as flag + prefix sum + gather, the CPU kernel's rules
// (kernels/cpu/parameterized.h, remove_empty). Pointers are device pointers; `stream` is a
// cudaStream_t; nothing synchronises.
//
// Note [GPU rmempty]
// (1) keep (len + 1 int64, len = rows or columns of the target) gets 1 for every row/column that
// holds a nonzero cell (NaN counts) or whose select cell is nonzero, 0 elsewhere and at [len];
// (2) an exclusive scan (CUB) turns it into each kept row/column's new index, with the number
// kept at [len], which the caller reads back (the one synchronisation: the output's shape
// depends on the data); (3) the gather copies every kept cell to its place. The scan overwrites
// the flags, so the gather tells a kept index i by to[i + 1] > to[i]. A CSR target stays CSR:
// (3a) each output row's entry count goes to out_rp[t + 1], (3b) an inclusive scan of those
// makes the row offsets, whose last (the output's nnz) the caller reads back (a second
// synchronisation), and (3c) every kept entry is copied, its column renumbered for margin=cols.
// As on the CPU, a stored zero keeps nothing and is not copied.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// (1) keep[i] for the rows (rows = true) or columns of a (m, n), from its nonzero cells.
void launch_rmempty_flags(const double* a, int64_t m, int64_t n, bool rows, int64_t* keep,
                          cudaStream_t stream);
void launch_rmempty_flags(const float* a, int64_t m, int64_t n, bool rows, int64_t* keep,
                          cudaStream_t stream);
// (1) keep[i] = select[i] != 0 for the len cells of `select` (any shape, row-major).
void launch_rmempty_select_flags(const double* select, int64_t len, int64_t* keep,
                                 cudaStream_t stream);
void launch_rmempty_select_flags(const float* select, int64_t len, int64_t* keep,
                                 cudaStream_t stream);

// (2) Workspace bytes of the scan over len + 1 entries, and the scan in place.
size_t rmempty_scan_workspace_bytes(int64_t len);
void launch_rmempty_scan(int64_t* keep, int64_t len, void* workspace, size_t workspace_bytes,
                         cudaStream_t stream);

// (3) out (k, n) for rows, (m, k) for columns, row-major, from a (m, n) and the scanned `to`,
// with k = to[len] as read back; every cell of out is written (nothing when k == 0).
void launch_rmempty_gather(const double* a, int64_t m, int64_t n, bool rows, const int64_t* to,
                           int64_t k, double* out, cudaStream_t stream);
void launch_rmempty_gather(const float* a, int64_t m, int64_t n, bool rows, const int64_t* to,
                           int64_t k, float* out, cudaStream_t stream);

// CSR forms: rp (m + 1), ci (nnz) int32, v (nnz) of a (m, n) CSR with nnz > 0.
// (1) keep[i] for the rows (rows = true) or columns holding an entry with a nonzero value.
void launch_rmempty_csr_flags(const int32_t* rp, const int32_t* ci, const double* v, int64_t m,
                              int64_t n, bool rows, int64_t* keep, cudaStream_t stream);
void launch_rmempty_csr_flags(const int32_t* rp, const int32_t* ci, const float* v, int64_t m,
                              int64_t n, bool rows, int64_t* keep, cudaStream_t stream);
// (3a) out_rp[t + 1] = the entries output row t takes (t = to[r] for a kept row r with rows,
// t = r with columns); the caller zero-fills out_rp (om + 1 entries) before.
void launch_rmempty_csr_counts(const int32_t* rp, const int32_t* ci, const double* v, int64_t m,
                               bool rows, const int64_t* to, int32_t* out_rp, cudaStream_t stream);
void launch_rmempty_csr_counts(const int32_t* rp, const int32_t* ci, const float* v, int64_t m,
                               bool rows, const int64_t* to, int32_t* out_rp, cudaStream_t stream);
// (3b) out_rp[1..om] scanned in place into row offsets (out_rp[0] is 0).
size_t rmempty_offsets_workspace_bytes(int64_t om);
void launch_rmempty_offsets_scan(int32_t* out_rp, int64_t om, void* workspace,
                                 size_t workspace_bytes, cudaStream_t stream);
// (3c) the kept entries into out_ci / out_v at out_rp's offsets.
void launch_rmempty_csr_gather(const int32_t* rp, const int32_t* ci, const double* v, int64_t m,
                               bool rows, const int64_t* to, const int32_t* out_rp, int32_t* out_ci,
                               double* out_v, cudaStream_t stream);
void launch_rmempty_csr_gather(const int32_t* rp, const int32_t* ci, const float* v, int64_t m,
                               bool rows, const int64_t* to, const int32_t* out_rp, int32_t* out_ci,
                               float* out_v, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
