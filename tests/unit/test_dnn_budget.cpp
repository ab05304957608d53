// dnn_chunk_rows: the batch chunk that fits a DNN op's intermediate budget (Note [DNN batch
// splitting] in instructions/dnn_gpu_common.h).
#include <catch2/catch.hpp>

#include "instructions/dnn_gpu_common.h"

using dmlrt::inst::dnn_chunk_rows;
using dmlrt::inst::kMaxCudnnTensorElements;

TEST_CASE("dnn_chunk_rows: the whole batch when it fits", "[dnn_budget]") {
  CHECK(dnn_chunk_rows(64, 1000, 5000, 64 * 1000 + 5000, 10) == 64);
  CHECK(dnn_chunk_rows(64, 1000, 0, int64_t{1} << 40, 10) == 64);
}

TEST_CASE("dnn_chunk_rows: the largest chunk within the budget", "[dnn_budget]") {
  // 10 rows of 1000 bytes fit in 15000 - 5000.
  CHECK(dnn_chunk_rows(64, 1000, 5000, 15000, 10) == 10);
  CHECK(dnn_chunk_rows(64, 1000, 5000, 15999, 10) == 10);
  // Nothing fits: one row at a time (the allocation then fails with the memory table).
  CHECK(dnn_chunk_rows(64, 1000, 5000, 4000, 10) == 1);
  CHECK(dnn_chunk_rows(64, 1000, 5000, 5500, 10) == 1);
}

TEST_CASE("dnn_chunk_rows: tensors stay under cuDNN's element limit", "[dnn_budget]") {
  const int64_t per_row = 300000000;  // 3e8 elements per row: 6 rows stay under 2e9
  CHECK(dnn_chunk_rows(100, 8, 0, int64_t{1} << 50, per_row) == 6);
  CHECK(6 * per_row < kMaxCudnnTensorElements);
  CHECK(7 * per_row >= kMaxCudnnTensorElements);
}

TEST_CASE("dnn_chunk_rows: empty and single-row batches", "[dnn_budget]") {
  CHECK(dnn_chunk_rows(0, 1000, 0, 10, 10) == 1);
  CHECK(dnn_chunk_rows(1, 1000, 0, 10, 10) == 1);
}
