// Shared pieces of the DNN GPU paths (DESIGN.md §5, "DNN ops and memory budgets"): the
// intermediate budget of one instruction and the batch-chunk size that fits it (GPU runs fetch
// dense row chunks with memory/row_fetcher.h).
//
// Note [DNN batch splitting]
// A DNN op whose densified operands, outputs and workspace do not fit the intermediate budget runs
// on chunks of the mini-batch: dnn_chunk_rows picks the largest chunk c with
// fixed_bytes + c * bytes_per_row <= budget (and c * elements_per_row < 2^31, which cuDNN cannot
// index beyond), at least 1. Dense inputs are sliced by pointer offset; CSR inputs go through a
// mem::RowFetcher, which densifies one chunk at a time into a reused buffer, so a sparse image is
// never densified whole. Results written per chunk equal the unsplit run's (tests force this with
// GpuSessionOptions::dnn_budget_bytes).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

namespace dmlrt::mem {
class GpuSession;
}

namespace dmlrt::inst {

// Largest element count cuDNN indexes in one tensor (SystemDS uses the same 2e9 bound).
constexpr int64_t kMaxCudnnTensorElements = 2000000000LL;

// True when the product of non-negative `factors` fits int64 (shape parameters from a plan are
// each below 2^31; products of three or four of them need not fit).
bool dnn_product_fits(std::initializer_list<int64_t> factors);

// The chunk of rows (1..n) for a batch of n rows; see Note [DNN batch splitting]. Device-free
// (unit-tested). elements_per_row is the largest per-row element count among the tensors.
int64_t dnn_chunk_rows(int64_t n, int64_t bytes_per_row, int64_t fixed_bytes, int64_t budget_bytes,
                       int64_t elements_per_row);

// The intermediate budget of one DNN instruction in bytes: GpuSessionOptions::dnn_budget_bytes
// when set, else the memory manager's budget minus its live bytes (dnn_gpu_common_gpu.cpp).
int64_t dnn_intermediate_budget(mem::GpuSession& gpu);

}  // namespace dmlrt::inst
