// Device tests of the unary kernel family against the CPU kernels: every cell-wise builtin, log
// with a base (scalar and broadcast forms), softmax, and the cumulative scans (including ucumk+*
// around the 128/129-row boundary where SystemDS's GPU launch is broken), in FP64 and FP32; plus
// the vectorised cell-wise path at odd lengths, offset pointers and in place.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/cpu/unary.h"
#include "kernels/cuda/unary.h"

namespace {

using dmlrt::kernels::MatrixBlock;
using dmlrt::kernels::cpu::CumOp;
using dmlrt::kernels::cpu::UnaryOp;
namespace cuda = dmlrt::kernels::cuda;
namespace cpu = dmlrt::kernels::cpu;
namespace tg = dmlrt::test::gpu;

const UnaryOp kUnaryOps[] = {UnaryOp::kExp,   UnaryOp::kLog,     UnaryOp::kAbs,  UnaryOp::kSqrt,
                             UnaryOp::kRound, UnaryOp::kFloor,   UnaryOp::kCeil, UnaryOp::kSin,
                             UnaryOp::kCos,   UnaryOp::kTan,     UnaryOp::kSinh, UnaryOp::kCosh,
                             UnaryOp::kTanh,  UnaryOp::kAsin,    UnaryOp::kAcos, UnaryOp::kAtan,
                             UnaryOp::kSign,  UnaryOp::kSigmoid, UnaryOp::kNot,  UnaryOp::kSquare,
                             UnaryOp::kTimes2};

// Cumulative-scan shapes: row counts around the scan's block height and SystemDS's 128 limit.
const std::vector<std::pair<int64_t, int64_t>> kScanShapes = {
    {0, 0},   {0, 3},   {3, 0},   {1, 1},   {1, 7},       {7, 1},      {128, 2},
    {129, 2}, {256, 3}, {257, 5}, {33, 65}, {1000, 1003}, {100000, 3}, {1000003, 1}};

}  // namespace

TEMPLATE_TEST_CASE("unary kernels: every cell-wise builtin matches the CPU", "[gpu][kernel][unary]",
                   double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("unary-cellwise");
  for (UnaryOp op : kUnaryOps) {
    for (const auto& [rows, cols] : tg::kernel_shapes()) {
      // [-3, 3] covers the domains' edges (asin/acos/log/sqrt of negatives give NaN) and keeps
      // exp/sinh/cosh finite in FP32; half-integers exercise round's ties; specials on top.
      MatrixBlock in = tg::rounded<T>(tg::random_dense(rows, cols, seed + rows, -3.0, 3.0, true));
      std::vector<double> v = tg::values_of(in);
      for (size_t i = 0; i < v.size(); i += 17) v[i] = static_cast<double>(i % 11) * 0.5 - 2.5;
      in = MatrixBlock::dense(rows, cols, v);
      const MatrixBlock ref = cpu::unary(in, op);
      auto din = tg::to_device<T>(in);
      auto dout = tg::device_out<T>(rows * cols);
      cuda::launch_unary(op, tg::ptr<T>(din), tg::ptr<T>(dout), rows * cols, nullptr);
      DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(std::string("unary ") + cpu::opcode_of(op), rows, cols,
                                           tg::precision_name<T>()),
                                 tg::block_from_device<T>(dout, rows, cols), ref, tg::tol<T>());
    }
  }
}

TEMPLATE_TEST_CASE("unary kernels: log with a base, scalar and broadcast forms",
                   "[gpu][kernel][unary]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("unary-logbase");
  for (const auto& [rows, cols] : tg::kernel_shapes()) {
    const MatrixBlock x = tg::rounded<T>(tg::random_dense(rows, cols, seed, 0.05, 6.0, true));
    auto dx = tg::to_device<T>(x);
    const std::string prec = tg::precision_name<T>();
    {  // log(X, 2.5)
      auto dout = tg::device_out<T>(rows * cols);
      cuda::launch_log_base(tg::ptr<T>(dx), 0.0, nullptr, 2.5, 1, 1, tg::ptr<T>(dout), rows, cols,
                            nullptr);
      DMLRT_REQUIRE_KERNEL_CLOSE(tg::label("log(X, 2.5)", rows, cols, prec.c_str()),
                                 tg::block_from_device<T>(dout, rows, cols), cpu::log_base(x, 2.5),
                                 tg::tol<T>());
    }
    {  // log(7, B)
      auto dout = tg::device_out<T>(rows * cols);
      cuda::launch_log_base(nullptr, 7.0, tg::ptr<T>(dx), 0.0, rows, cols, tg::ptr<T>(dout), rows,
                            cols, nullptr);
      DMLRT_REQUIRE_KERNEL_CLOSE(tg::label("log(7, B)", rows, cols, prec.c_str()),
                                 tg::block_from_device<T>(dout, rows, cols), cpu::log_base(7.0, x),
                                 tg::tol<T>());
    }
    // log(X, B) with B the same shape, a column vector, a row vector, 1x1.
    for (const auto& [br, bc] :
         std::vector<std::pair<int64_t, int64_t>>{{rows, cols}, {rows, 1}, {1, cols}, {1, 1}}) {
      const MatrixBlock b = tg::rounded<T>(tg::random_dense(br, bc, seed + 5, 0.1, 9.0, true));
      auto db = tg::to_device<T>(b);
      auto dout = tg::device_out<T>(rows * cols);
      cuda::launch_log_base(tg::ptr<T>(dx), 0.0, tg::ptr<T>(db), 0.0, br, bc, tg::ptr<T>(dout),
                            rows, cols, nullptr);
      std::ostringstream os;
      os << "log(X, B " << br << "x" << bc << ")";
      DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(os.str(), rows, cols, prec.c_str()),
                                 tg::block_from_device<T>(dout, rows, cols), cpu::log_base(x, b),
                                 tg::tol<T>());
    }
  }
}

TEMPLATE_TEST_CASE("unary kernels: softmax matches the CPU, NaN and -Inf rows included",
                   "[gpu][kernel][unary]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("unary-softmax");
  std::vector<std::pair<int64_t, int64_t>> shapes = tg::kernel_shapes();
  shapes.push_back({3, 5000});  // rows wider than a warp's stride many times over
  for (const auto& [rows, cols] : shapes) {
    std::vector<double> v = tg::values_of(tg::random_dense(rows, cols, seed, -5.0, 5.0));
    if (rows >= 3 && cols >= 2) {
      v[static_cast<size_t>(cols + 1)] = std::numeric_limits<double>::quiet_NaN();  // row 1
      for (int64_t c = 0; c < cols; ++c)  // row 2 all -Inf: NaN everywhere, as on the CPU
        v[static_cast<size_t>(2 * cols + c)] = -std::numeric_limits<double>::infinity();
    }
    const MatrixBlock in = tg::rounded<T>(MatrixBlock::dense(rows, cols, v));
    auto din = tg::to_device<T>(in);
    auto dout = tg::device_out<T>(rows * cols);
    cuda::launch_softmax(tg::ptr<T>(din), tg::ptr<T>(dout), rows, cols, nullptr);
    DMLRT_REQUIRE_KERNEL_CLOSE(tg::label("softmax", rows, cols, tg::precision_name<T>()),
                               tg::block_from_device<T>(dout, rows, cols), cpu::softmax(in),
                               tg::tol<T>());
  }
}

TEMPLATE_TEST_CASE("unary kernels: cumulative column scans match the CPU", "[gpu][kernel][unary]",
                   double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("unary-cumulative");
  struct NamedCum {
    CumOp op;
    const char* name;
  };
  const NamedCum kOps[] = {{CumOp::kSum, "ucumk+"},
                           {CumOp::kProd, "ucum*"},
                           {CumOp::kMin, "ucummin"},
                           {CumOp::kMax, "ucummax"}};
  for (const NamedCum& nc : kOps) {
    for (const auto& [rows, cols] : kScanShapes) {
      // Products stay well-conditioned in [0.999, 1.001]; sums/min/max see [-1, 1] with specials
      // sprinkled in (min/max must propagate NaN from its row down).
      const bool prod = nc.op == CumOp::kProd;
      const MatrixBlock in = tg::rounded<T>(tg::random_dense(
          rows, cols, seed + rows, prod ? 0.999 : -1.0, prod ? 1.001 : 1.0, !prod && rows < 5000));
      auto din = tg::to_device<T>(in);
      auto dout = tg::device_out<T>(rows * cols);
      tg::DeviceBlock ws(cuda::cumulative_workspace_bytes(rows, cols, sizeof(T)));
      cuda::launch_cumulative(nc.op, tg::ptr<T>(din), tg::ptr<T>(dout), rows, cols, ws.data(),
                              nullptr);
      DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(nc.name, rows, cols, tg::precision_name<T>()),
                                 tg::block_from_device<T>(dout, rows, cols),
                                 cpu::cumulative(in, nc.op), tg::tol<T>());
    }
  }
}

TEMPLATE_TEST_CASE("unary kernels: ucumk+* (cumsumprod) matches the CPU for every row count",
                   "[gpu][kernel][unary]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("unary-cumsumprod");
  for (int64_t rows : {0, 1, 2, 7, 127, 128, 129, 1000, 1201, 100003}) {
    // [a, b] with b in [0, 0.9]: a contracting recurrence (well-conditioned).
    std::vector<double> v(static_cast<size_t>(rows * 2));
    const MatrixBlock a = tg::random_dense(rows, 1, seed, -1.0, 1.0);
    const MatrixBlock b = tg::random_dense(rows, 1, seed + 1, 0.0, 0.9);
    for (int64_t i = 0; i < rows; ++i) {
      v[static_cast<size_t>(2 * i)] = a.get(i, 0);
      v[static_cast<size_t>(2 * i + 1)] = b.get(i, 0);
    }
    const MatrixBlock in = tg::rounded<T>(MatrixBlock::dense(rows, 2, v));
    auto din = tg::to_device<T>(in);
    auto dout = tg::device_out<T>(rows);
    tg::DeviceBlock ws(cuda::cumulative_workspace_bytes(rows, 1, sizeof(T)));
    cuda::launch_cumsumprod(tg::ptr<T>(din), tg::ptr<T>(dout), rows, ws.data(), nullptr);
    DMLRT_REQUIRE_KERNEL_CLOSE(tg::label("ucumk+*", rows, 2, tg::precision_name<T>()),
                               tg::block_from_device<T>(dout, rows, 1), cpu::cumsumprod(in),
                               tg::tol<T>());
  }
}

// The vectorised cell-wise map (Note [Vectorised cell access] in kernels/cuda/kernel_utils.cuh):
// lengths around the vector width and the unroll of 4 vectors per thread, input and output at
// element offsets of one 16-byte phase (scalar head and tail) or of two (all scalar), and in
// place; guard cells around the output must stay untouched.
TEMPLATE_TEST_CASE("unary kernels: vectorised paths at odd lengths and offset pointers",
                   "[gpu][kernel][unary]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("unary-vectorised");
  const int64_t kLengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 1023, 1025, 4099};
  const std::pair<int64_t, int64_t> kOffsets[] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {0, 1}, {2, 0}};
  for (UnaryOp op : {UnaryOp::kExp, UnaryOp::kSqrt, UnaryOp::kRound, UnaryOp::kSigmoid}) {
    for (int64_t n : kLengths) {
      const MatrixBlock in =
          tg::rounded<T>(tg::random_dense(1, n, seed + n, -3.0, 3.0, /*specials=*/true));
      const MatrixBlock ref = cpu::unary(in, op);
      for (const auto& [in_off, out_off] : kOffsets) {
        auto din = tg::to_device_at<T>(tg::values_of(in), in_off);
        auto dout = tg::to_device_at<T>(std::vector<double>(static_cast<size_t>(n), -1.5), out_off);
        cuda::launch_unary(op, din.ptr(), dout.ptr(), n, nullptr);
        bool guards_ok = false;
        const MatrixBlock got = MatrixBlock::dense(1, n, tg::from_device_at(dout, &guards_ok));
        std::ostringstream os;
        os << "unary " << cpu::opcode_of(op) << " offsets in=" << in_off << " out=" << out_off;
        INFO(tg::label(os.str(), 1, n, tg::precision_name<T>()));
        CHECK(guards_ok);
        DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(os.str(), 1, n, tg::precision_name<T>()), got, ref,
                                   tg::tol<T>());
      }
      auto dio = tg::to_device_at<T>(tg::values_of(in), 3);  // in place, off a vector boundary
      cuda::launch_unary(op, dio.ptr(), dio.ptr(), n, nullptr);
      bool guards_ok = false;
      const MatrixBlock got = MatrixBlock::dense(1, n, tg::from_device_at(dio, &guards_ok));
      const std::string what = std::string("unary ") + cpu::opcode_of(op) + " in place";
      INFO(tg::label(what, 1, n, tg::precision_name<T>()));
      CHECK(guards_ok);
      DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(what, 1, n, tg::precision_name<T>()), got, ref,
                                 tg::tol<T>());
    }
  }
}
