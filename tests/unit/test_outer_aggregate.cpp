// Tests of uaggouterchain: the fused agg(outer(x, y, op)) equals the unfused cell-wise op and
// aggregate, in one chunk and over several row chunks (m*n past 2^22 cells), and its errors.
#include <catch2/catch.hpp>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"
#include "kernels/cpu/outer_aggregate.h"

using dmlrt::test::dense_of;
using dmlrt::test::TestContext;
namespace cpu = dmlrt::kernels::cpu;

namespace {

std::vector<double> ints(int64_t n, int64_t mod, int64_t mul) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * mul) % mod) - mod / 2;
  return v;
}

}  // namespace

TEST_CASE("uaggouterchain: fused equals unfused", "[aggregate]") {
  const int64_t m = GENERATE(7, 3000), n = m == 7 ? 5 : 2000;  // 3000x2000: several chunks
  const auto x = dense_of(m, 1, ints(m, 13, 7));
  const auto y = dense_of(1, n, ints(n, 11, 5));
  for (auto op : {cpu::BinaryOp::kLt, cpu::BinaryOp::kGe, cpu::BinaryOp::kEq}) {
    const auto o = cpu::binary_matrix_matrix(op, x, y);
    using K = cpu::OuterAggKind;
    using D = cpu::OuterAggDir;
    CHECK(cpu::outer_aggregate(x, y, op, K::kAggregate, D::kRow, cpu::AggOp::kSum)
              .equals(cpu::aggregate_rows(o, cpu::AggOp::kSum)));
    CHECK(cpu::outer_aggregate(x, y, op, K::kAggregate, D::kCol, cpu::AggOp::kSum)
              .equals(cpu::aggregate_cols(o, cpu::AggOp::kSum)));
    CHECK(cpu::outer_aggregate(x, y, op, K::kAggregate, D::kAll, cpu::AggOp::kSum).get(0, 0) ==
          cpu::aggregate_all(o, cpu::AggOp::kSum));
    CHECK(cpu::outer_aggregate(x, y, op, K::kAggregate, D::kCol, cpu::AggOp::kMax)
              .equals(cpu::aggregate_cols(o, cpu::AggOp::kMax)));
    CHECK(cpu::outer_aggregate(x, y, op, K::kIndexMax, D::kRow, cpu::AggOp::kMax)
              .equals(cpu::row_index_max(o)));
    CHECK(cpu::outer_aggregate(x, y, op, K::kIndexMin, D::kRow, cpu::AggOp::kMin)
              .equals(cpu::row_index_min(o)));
  }
}

TEST_CASE("uaggouterchain: the instruction and its errors", "[aggregate]") {
  TestContext t;
  t.set_matrix("X", dense_of(3, 1, {1, 4, 2}));
  t.set_matrix("Y", dense_of(1, 4, {2, 0, 3, 5}));
  t.run("CP°uaggouterchain°uark+°<°X·MATRIX·FP64°Y·MATRIX·FP64°R·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("R"), 3, 1, {3, 1, 2});
  t.run("CP°uaggouterchain°uak+°>=°X·MATRIX·FP64°Y·MATRIX·FP64°S·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("S"), 1, 1, {6});
  t.run("CP°uaggouterchain°uack+°==°X·MATRIX·FP64°Y·MATRIX·FP64°C·MATRIX·FP64");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 1, 4, {1, 0, 0, 0});
  CHECK_THROWS_WITH(t.run("CP°uaggouterchain°uark+°<°Y·MATRIX·FP64°X·MATRIX·FP64°R·MATRIX·FP64"),
                    Catch::Contains("uaggouterchain: expects a column vector and a row vector, "
                                    "got 1x4 and 3x1"));
  CHECK_THROWS_WITH(t.run("CP°uaggouterchain°uavar°<°X·MATRIX·FP64°Y·MATRIX·FP64°R·MATRIX·FP64"),
                    Catch::Contains("uaggouterchain: unsupported aggregate 'uavar'"));
  CHECK_THROWS_WITH(t.run("CP°uaggouterchain°uark+°<>°X·MATRIX·FP64°Y·MATRIX·FP64°R·MATRIX·FP64"),
                    Catch::Contains("uaggouterchain: unknown binary operator '<>'"));
}
