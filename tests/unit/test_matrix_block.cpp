// MatrixBlock: formats, conversions, nnz and the sparse-format rule.
#include <catch2/catch.hpp>

#include "common/compare.h"
#include "gpu_context/error.h"
#include "kernels/matrix_block.h"

using dmlrt::kernels::MatrixBlock;

TEST_CASE("dense and CSR blocks convert both ways", "[matrix_block]") {
  const std::vector<double> v = {1, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4};
  MatrixBlock d = MatrixBlock::dense(3, 4, v);
  MatrixBlock s = d.to_sparse();
  REQUIRE(s.is_sparse());
  REQUIRE(s.nnz() == 4);
  REQUIRE(s.row_ptr() == std::vector<int64_t>{0, 2, 3, 4});
  REQUIRE(s.col_idx() == std::vector<int32_t>{0, 3, 3, 3});
  REQUIRE(s.get(1, 3) == 3.0);
  REQUIRE(s.get(1, 2) == 0.0);
  DMLRT_REQUIRE_CLOSE(s.to_dense(), 3, 4, v);
}

TEST_CASE("examine_format follows SystemDS's sparsity rule", "[matrix_block]") {
  MatrixBlock d = MatrixBlock::dense(10, 10, 0.0);
  d.dense_values()[5] = 1.0;
  d.examine_format();
  REQUIRE(d.is_sparse());
  MatrixBlock full = MatrixBlock::dense(4, 4, 1.0).to_sparse();
  full.examine_format();
  REQUIRE_FALSE(full.is_sparse());
  // A single column stays dense: CSR would not be smaller.
  MatrixBlock col = MatrixBlock::dense(10, 1, 0.0);
  col.dense_values()[3] = 2.0;
  col.examine_format();
  REQUIRE_FALSE(col.is_sparse());
}

TEST_CASE("bad block shapes are rejected with the shape in the message", "[matrix_block]") {
  REQUIRE_THROWS_WITH(MatrixBlock::dense(2, 3, std::vector<double>{1, 2}),
                      Catch::Contains("2x3") && Catch::Contains("2 values"));
  REQUIRE_THROWS_AS(MatrixBlock::dense(-1, 3, 0.0), dmlrt::ShapeError);
}
