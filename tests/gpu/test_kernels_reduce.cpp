// Device tests of the reduction kernel family against the CPU kernels: full, row and column
// aggregates of every op (empty inputs give the CPU's values), NaN/Inf propagation of max/min,
// rowIndexMax/Min ties and NaN rows, and run-to-run determinism, in FP64 and FP32; plus the
// vectorised paths: rows that start inside a 16-byte group, matrices at unaligned addresses (the
// results must be bit-identical to the aligned ones), and the column-tile plan's edge shapes.
#include <catch2/catch.hpp>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/cpu/aggregate.h"
#include "kernels/cuda/reduce.h"

namespace {

using dmlrt::kernels::MatrixBlock;
using dmlrt::kernels::cpu::AggOp;
namespace cuda = dmlrt::kernels::cuda;
namespace cpu = dmlrt::kernels::cpu;
namespace tg = dmlrt::test::gpu;

struct NamedAgg {
  AggOp op;
  const char* name;
};
const NamedAgg kAggOps[] = {
    {AggOp::kSum, "sum"}, {AggOp::kSumSq, "sumsq"}, {AggOp::kProd, "prod"}, {AggOp::kMean, "mean"},
    {AggOp::kMax, "max"}, {AggOp::kMin, "min"},     {AggOp::kVar, "var"}};

std::vector<std::pair<int64_t, int64_t>> reduce_shapes() {
  std::vector<std::pair<int64_t, int64_t>> s = tg::kernel_shapes();
  s.push_back({3, 100003});   // wide rows: a block per row
  s.push_back({100003, 2});   // tall columns: many row chunks
  s.push_back({1, 2000003});  // a full reduction over many blocks
  return s;
}

// Well-conditioned inputs (DESIGN.md §6): [-1, 1], products over [0.999, 1.001].
MatrixBlock agg_input(AggOp op, int64_t rows, int64_t cols, uint64_t seed, bool specials) {
  if (op == AggOp::kProd) return tg::random_dense(rows, cols, seed, 0.999, 1.001, specials);
  if (op == AggOp::kVar) return tg::random_dense(rows, cols, seed, 2.0, 4.0, specials);
  return tg::random_dense(rows, cols, seed, -1.0, 1.0, specials);
}

template <typename T>
double reduce_all_on_device(AggOp op, const MatrixBlock& in) {
  const int64_t n = in.rows() * in.cols();
  auto din = tg::to_device<T>(in);
  auto dout = tg::device_out<T>(1);
  tg::DeviceBlock ws(cuda::reduce_all_workspace_bytes(n));
  cuda::launch_reduce_all(op, tg::ptr<T>(din), n, tg::ptr<T>(dout), ws.data(), nullptr);
  return tg::from_device<T>(dout, 1)[0];
}

}  // namespace

TEMPLATE_TEST_CASE("reduce kernels: full, row and column aggregates match the CPU",
                   "[gpu][kernel][reduce]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("reduce-aggregates");
  for (const NamedAgg& na : kAggOps) {
    for (const auto& [rows, cols] : reduce_shapes()) {
      const MatrixBlock in = tg::rounded<T>(agg_input(na.op, rows, cols, seed + rows, false));
      const std::string prec = tg::precision_name<T>();
      {
        const double got = reduce_all_on_device<T>(na.op, in);
        DMLRT_REQUIRE_KERNEL_CLOSE(
            tg::label(std::string("full ") + na.name, rows, cols, prec.c_str()),
            MatrixBlock::dense(1, 1, got), MatrixBlock::dense(1, 1, cpu::aggregate_all(in, na.op)),
            tg::tol<T>());
      }
      auto din = tg::to_device<T>(in);
      {
        auto dout = tg::device_out<T>(rows);
        cuda::launch_reduce_rows(na.op, tg::ptr<T>(din), rows, cols, tg::ptr<T>(dout), nullptr);
        DMLRT_REQUIRE_KERNEL_CLOSE(
            tg::label(std::string("row ") + na.name, rows, cols, prec.c_str()),
            tg::block_from_device<T>(dout, rows, 1), cpu::aggregate_rows(in, na.op), tg::tol<T>());
      }
      {
        auto dout = tg::device_out<T>(cols);
        tg::DeviceBlock ws(cuda::reduce_cols_workspace_bytes(rows, cols));
        cuda::launch_reduce_cols(na.op, tg::ptr<T>(din), rows, cols, tg::ptr<T>(dout), ws.data(),
                                 nullptr);
        DMLRT_REQUIRE_KERNEL_CLOSE(
            tg::label(std::string("col ") + na.name, rows, cols, prec.c_str()),
            tg::block_from_device<T>(dout, 1, cols), cpu::aggregate_cols(in, na.op), tg::tol<T>());
      }
    }
  }
}

TEMPLATE_TEST_CASE("reduce kernels: NaN and Inf propagate as on the CPU (Java max/min)",
                   "[gpu][kernel][reduce]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("reduce-specials");
  for (const NamedAgg& na : kAggOps) {
    // The variance of data holding +-Inf is undefined; the CPU's incremental update yields Inf or
    // NaN depending on where the Inf sits, the GPU's Welford/Chan NaN. Not compared.
    if (na.op == AggOp::kVar) continue;
    for (const auto& [rows, cols] : tg::kernel_shapes()) {
      const MatrixBlock in = tg::rounded<T>(agg_input(na.op, rows, cols, seed + cols, true));
      const std::string prec = tg::precision_name<T>();
      DMLRT_REQUIRE_KERNEL_CLOSE(
          tg::label(std::string("full ") + na.name + " with NaN/Inf", rows, cols, prec.c_str()),
          MatrixBlock::dense(1, 1, reduce_all_on_device<T>(na.op, in)),
          MatrixBlock::dense(1, 1, cpu::aggregate_all(in, na.op)), tg::tol<T>());
      auto din = tg::to_device<T>(in);
      auto drow = tg::device_out<T>(rows);
      cuda::launch_reduce_rows(na.op, tg::ptr<T>(din), rows, cols, tg::ptr<T>(drow), nullptr);
      DMLRT_REQUIRE_KERNEL_CLOSE(
          tg::label(std::string("row ") + na.name + " with NaN/Inf", rows, cols, prec.c_str()),
          tg::block_from_device<T>(drow, rows, 1), cpu::aggregate_rows(in, na.op), tg::tol<T>());
      auto dcol = tg::device_out<T>(cols);
      tg::DeviceBlock ws(cuda::reduce_cols_workspace_bytes(rows, cols));
      cuda::launch_reduce_cols(na.op, tg::ptr<T>(din), rows, cols, tg::ptr<T>(dcol), ws.data(),
                               nullptr);
      DMLRT_REQUIRE_KERNEL_CLOSE(
          tg::label(std::string("col ") + na.name + " with NaN/Inf", rows, cols, prec.c_str()),
          tg::block_from_device<T>(dcol, 1, cols), cpu::aggregate_cols(in, na.op), tg::tol<T>());
    }
  }
}

TEMPLATE_TEST_CASE("reduce kernels: rowIndexMax/Min pick the CPU's column (ties, NaN rows)",
                   "[gpu][kernel][reduce]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("reduce-rowindex");
  std::vector<std::pair<int64_t, int64_t>> shapes = tg::kernel_shapes();
  shapes.push_back({4, 5000});
  for (const auto& [rows, cols] : shapes) {
    // Small integers make many ties; specials add NaN (skipped) and +-Inf cells.
    std::vector<double> v =
        tg::values_of(tg::random_dense(rows, cols, seed + rows, -2.0, 2.0, true, true));
    if (rows >= 2 && cols >= 1)  // row 1 all NaN -> index 1
      for (int64_t c = 0; c < cols; ++c)
        v[static_cast<size_t>(cols + c)] = std::numeric_limits<double>::quiet_NaN();
    const MatrixBlock in = MatrixBlock::dense(rows, cols, v);
    auto din = tg::to_device<T>(in);
    for (bool is_max : {true, false}) {
      auto dout = tg::device_out<T>(rows);
      cuda::launch_row_index(is_max, tg::ptr<T>(din), rows, cols, tg::ptr<T>(dout), nullptr);
      const MatrixBlock ref = is_max ? cpu::row_index_max(in) : cpu::row_index_min(in);
      DMLRT_REQUIRE_KERNEL_CLOSE(
          tg::label(is_max ? "uarimax" : "uarimin", rows, cols, tg::precision_name<T>()),
          tg::block_from_device<T>(dout, rows, 1), ref, 0.0);
    }
  }
}

TEMPLATE_TEST_CASE("reduce kernels: results are bit-identical from run to run",
                   "[gpu][kernel][reduce]", double, float) {
  using T = TestType;
  const MatrixBlock in = tg::random_dense(3001, 517, 11, -1.0, 1.0);
  for (const NamedAgg& na : kAggOps) {
    const double first = reduce_all_on_device<T>(na.op, in);
    for (int run = 0; run < 3; ++run) {
      const double again = reduce_all_on_device<T>(na.op, in);
      INFO(
          tg::label(std::string("full ") + na.name + " rerun", 3001, 517, tg::precision_name<T>()));
      CHECK(std::memcmp(&first, &again, sizeof(double)) == 0);
    }
  }
}

namespace {

// Full, row and column aggregates of `values` (rows, cols) stored `offset` elements into a device
// buffer, as one vector: [full, rows..., cols...].
template <typename T>
std::vector<double> all_aggregates(AggOp op, const std::vector<double>& values, int64_t rows,
                                   int64_t cols, int64_t offset) {
  auto din = tg::to_device_at<T>(values, offset);
  auto dall = tg::device_out<T>(1);
  tg::DeviceBlock wsa(cuda::reduce_all_workspace_bytes(rows * cols));
  cuda::launch_reduce_all(op, din.ptr(), rows * cols, tg::ptr<T>(dall), wsa.data(), nullptr);
  auto drow = tg::device_out<T>(rows);
  cuda::launch_reduce_rows(op, din.ptr(), rows, cols, tg::ptr<T>(drow), nullptr);
  auto dcol = tg::device_out<T>(cols);
  tg::DeviceBlock wsc(cuda::reduce_cols_workspace_bytes(rows, cols));
  cuda::launch_reduce_cols(op, din.ptr(), rows, cols, tg::ptr<T>(dcol), wsc.data(), nullptr);
  std::vector<double> out = tg::from_device<T>(dall, 1);
  for (double v : tg::from_device<T>(drow, rows)) out.push_back(v);
  for (double v : tg::from_device<T>(dcol, cols)) out.push_back(v);
  return out;
}

}  // namespace

// Note [Vector groups] in kernels/cuda/reduce.cu: groups of 16 bytes are counted from the
// matrix's first cell, so rows of a width that is not a multiple of the vector width start inside
// a group (single cells first), and a matrix at an unaligned address is read by scalar loads in
// the same order: every result bit must equal the aligned run's. Shapes cover the warp-per-row
// (cols < 2048) and block-per-row kernels and both column-group widths.
TEMPLATE_TEST_CASE("reduce kernels: unaligned rows and addresses give the aligned results' bits",
                   "[gpu][kernel][reduce]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("reduce-vector-groups");
  const std::pair<int64_t, int64_t> kShapes[] = {{1, 1},    {3, 5},     {129, 13}, {64, 2047},
                                                 {5, 2048}, {37, 4099}, {16, 64},  {257, 4}};
  for (const NamedAgg& na : kAggOps) {
    for (const auto& [rows, cols] : kShapes) {
      const MatrixBlock in = tg::rounded<T>(agg_input(na.op, rows, cols, seed + rows, false));
      const std::vector<double> v = tg::values_of(in);
      const std::vector<double> aligned = all_aggregates<T>(na.op, v, rows, cols, 0);
      {
        const std::string prec = tg::precision_name<T>();
        DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(std::string("full ") + na.name + " (vector groups)",
                                             rows, cols, prec.c_str()),
                                   MatrixBlock::dense(1, 1, aligned[0]),
                                   MatrixBlock::dense(1, 1, cpu::aggregate_all(in, na.op)),
                                   tg::tol<T>());
        DMLRT_REQUIRE_KERNEL_CLOSE(
            tg::label(std::string("row ") + na.name + " (vector groups)", rows, cols, prec.c_str()),
            MatrixBlock::dense(
                rows, 1, std::vector<double>(aligned.begin() + 1, aligned.begin() + 1 + rows)),
            cpu::aggregate_rows(in, na.op), tg::tol<T>());
        DMLRT_REQUIRE_KERNEL_CLOSE(
            tg::label(std::string("col ") + na.name + " (vector groups)", rows, cols, prec.c_str()),
            MatrixBlock::dense(1, cols,
                               std::vector<double>(aligned.begin() + 1 + rows, aligned.end())),
            cpu::aggregate_cols(in, na.op), tg::tol<T>());
      }
      for (int64_t offset : {1, 2, 3}) {
        const std::vector<double> moved = all_aggregates<T>(na.op, v, rows, cols, offset);
        std::ostringstream os;
        os << na.name << " at element offset " << offset;
        INFO(tg::label(os.str(), rows, cols, tg::precision_name<T>()));
        REQUIRE(moved.size() == aligned.size());
        CHECK(std::memcmp(moved.data(), aligned.data(), aligned.size() * sizeof(double)) == 0);
      }
    }
  }
}

// Note [Column tiles] in kernels/cuda/reduce.cu: narrow inputs shrink the block's column lanes
// (tc = 1..32), widths divisible by the vector width take 16-byte groups, tall inputs many
// chunks (merged by the second kernel), short ones a single chunk written directly.
TEMPLATE_TEST_CASE("reduce kernels: column tiles of every lane shape match the CPU",
                   "[gpu][kernel][reduce]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("reduce-column-tiles");
  const int64_t kCols[] = {1, 2, 3, 4, 5, 8, 31, 32, 33, 64, 127, 128, 129, 1028};
  const int64_t kRows[] = {1, 7, 64, 65, 1000, 5003};
  for (AggOp op : {AggOp::kSum, AggOp::kMax, AggOp::kVar}) {
    for (int64_t rows : kRows) {
      for (int64_t cols : kCols) {
        const MatrixBlock in = tg::rounded<T>(agg_input(op, rows, cols, seed + rows * cols, false));
        auto din = tg::to_device<T>(in);
        auto dout = tg::device_out<T>(cols);
        tg::DeviceBlock ws(cuda::reduce_cols_workspace_bytes(rows, cols));
        cuda::launch_reduce_cols(op, tg::ptr<T>(din), rows, cols, tg::ptr<T>(dout), ws.data(),
                                 nullptr);
        std::ostringstream os;
        os << "col aggregate op=" << static_cast<int>(op);
        DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(os.str(), rows, cols, tg::precision_name<T>()),
                                   tg::block_from_device<T>(dout, 1, cols),
                                   cpu::aggregate_cols(in, op), tg::tol<T>());
      }
    }
  }
}

TEMPLATE_TEST_CASE("reduce kernels: row and column aggregates are bit-identical from run to run",
                   "[gpu][kernel][reduce]", double, float) {
  using T = TestType;
  const MatrixBlock in = tg::random_dense(3001, 2052, 12, -1.0, 1.0);
  const std::vector<double> v = tg::values_of(in);
  for (AggOp op : {AggOp::kSum, AggOp::kVar}) {
    const std::vector<double> first = all_aggregates<T>(op, v, 3001, 2052, 0);
    for (int run = 0; run < 2; ++run) {
      const std::vector<double> again = all_aggregates<T>(op, v, 3001, 2052, 0);
      INFO(tg::label("aggregates rerun op=" + std::to_string(static_cast<int>(op)), 3001, 2052,
                     tg::precision_name<T>()));
      REQUIRE(again.size() == first.size());
      CHECK(std::memcmp(again.data(), first.data(), first.size() * sizeof(double)) == 0);
    }
  }
}
