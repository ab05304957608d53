// Device tests of the cell-wise kernel family against the CPU kernels: every binary op in every
// broadcast form and matrix-scalar either way, and ifelse / +* / -* with matrix and scalar mixes,
// on the shared shape list with NaN/Inf/0/-0 inputs, in FP64 and FP32; plus the vectorised paths
// (odd lengths, offset and mixed-phase pointers, in place, vector-width broadcasts).
#include <catch2/catch.hpp>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/cpu/binary.h"
#include "kernels/cpu/ternary.h"
#include "kernels/cuda/elementwise.h"

namespace {

using dmlrt::kernels::MatrixBlock;
using dmlrt::kernels::cpu::BinaryOp;
using dmlrt::kernels::cpu::Broadcast;
using dmlrt::kernels::cpu::TernaryOp;
namespace cuda = dmlrt::kernels::cuda;
namespace cpu = dmlrt::kernels::cpu;
namespace tg = dmlrt::test::gpu;

struct NamedOp {
  BinaryOp op;
  const char* name;
};
const NamedOp kBinaryOps[] = {
    {BinaryOp::kPlus, "+"},      {BinaryOp::kMinus, "-"}, {BinaryOp::kMult, "*"},
    {BinaryOp::kDiv, "/"},       {BinaryOp::kPow, "^"},   {BinaryOp::kMod, "%%"},
    {BinaryOp::kIntDiv, "%/%"},  {BinaryOp::kEq, "=="},   {BinaryOp::kNeq, "!="},
    {BinaryOp::kLt, "<"},        {BinaryOp::kGt, ">"},    {BinaryOp::kLe, "<="},
    {BinaryOp::kGe, ">="},       {BinaryOp::kAnd, "&&"},  {BinaryOp::kOr, "||"},
    {BinaryOp::kMin, "min"},     {BinaryOp::kMax, "max"}, {BinaryOp::kMinus1Mult, "1-*"},
    {BinaryOp::kMinusNz, "-nz"},
};

const char* broadcast_name(Broadcast bc) {
  switch (bc) {
    case Broadcast::kNone:
      return "same-shape";
    case Broadcast::kColVector:
      return "col-vector";
    case Broadcast::kRowVector:
      return "row-vector";
    case Broadcast::kOuter:
      return "outer";
    default:
      return "invalid";
  }
}

// Inputs for `op`: %% and %/% in FP32 get integer values, since a float quotient that lands next
// to an integer would truncate differently from the double one (ill-conditioned, DESIGN.md §6).
template <typename T>
MatrixBlock input_for(BinaryOp op, int64_t rows, int64_t cols, uint64_t seed) {
  const bool integers = sizeof(T) == 4 && (op == BinaryOp::kMod || op == BinaryOp::kIntDiv);
  MatrixBlock m = tg::random_dense(rows, cols, seed, -4.0, 4.0, /*specials=*/true, integers);
  return tg::rounded<T>(m);
}

}  // namespace

TEMPLATE_TEST_CASE("elementwise kernels: binary matrix-matrix with broadcasting match the CPU",
                   "[gpu][kernel][elementwise]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("elementwise-mm");
  for (const NamedOp& nop : kBinaryOps) {
    for (const auto& [rows, cols] : tg::kernel_shapes()) {
      for (Broadcast bc :
           {Broadcast::kNone, Broadcast::kColVector, Broadcast::kRowVector, Broadcast::kOuter}) {
        const int64_t a_cols = bc == Broadcast::kOuter ? 1 : cols;
        const int64_t b_rows = bc == Broadcast::kNone || bc == Broadcast::kColVector ? rows : 1;
        const int64_t b_cols = bc == Broadcast::kColVector ? 1 : cols;
        const MatrixBlock a = input_for<T>(nop.op, rows, a_cols, seed + rows);
        const MatrixBlock b = input_for<T>(nop.op, b_rows, b_cols, seed + 7 * cols + 1);
        const std::string what =
            tg::label(std::string("binary ") + nop.name + " " + broadcast_name(bc), rows, cols,
                      tg::precision_name<T>());
        const MatrixBlock ref = cpu::binary_matrix_matrix(nop.op, a, b);
        auto da = tg::to_device<T>(a);
        auto db = tg::to_device<T>(b);
        auto dout = tg::device_out<T>(rows * cols);
        cuda::launch_binary_matrix_matrix(nop.op, bc, tg::ptr<T>(da), tg::ptr<T>(db),
                                          tg::ptr<T>(dout), rows, cols, nullptr);
        DMLRT_REQUIRE_KERNEL_CLOSE(what, tg::block_from_device<T>(dout, rows, cols), ref,
                                   tg::tol<T>());
      }
    }
  }
}

TEMPLATE_TEST_CASE("elementwise kernels: in-place binary (out aliases a)",
                   "[gpu][kernel][elementwise]", double, float) {
  using T = TestType;
  const MatrixBlock a = tg::rounded<T>(tg::random_dense(33, 65, 3, -2.0, 2.0));
  const MatrixBlock b = tg::rounded<T>(tg::random_dense(1, 65, 4, -2.0, 2.0));
  auto da = tg::to_device<T>(a);
  auto db = tg::to_device<T>(b);
  cuda::launch_binary_matrix_matrix(BinaryOp::kMult, Broadcast::kRowVector, tg::ptr<T>(da),
                                    tg::ptr<T>(db), tg::ptr<T>(da), 33, 65, nullptr);
  DMLRT_REQUIRE_KERNEL_CLOSE(
      tg::label("binary * row-vector in place", 33, 65, tg::precision_name<T>()),
      tg::block_from_device<T>(da, 33, 65), cpu::binary_matrix_matrix(BinaryOp::kMult, a, b),
      tg::tol<T>());
}

TEMPLATE_TEST_CASE("elementwise kernels: binary matrix-scalar both ways match the CPU",
                   "[gpu][kernel][elementwise]", double, float) {
  using T = TestType;
  const double kInf = std::numeric_limits<double>::infinity();
  const double kNaN = std::numeric_limits<double>::quiet_NaN();
  const uint64_t seed = dmlrt::test::seed_from("elementwise-ms");
  for (const NamedOp& nop : kBinaryOps) {
    for (const auto& [rows, cols] : tg::kernel_shapes()) {
      const MatrixBlock a = input_for<T>(nop.op, rows, cols, seed + rows * 31 + cols);
      auto da = tg::to_device<T>(a);
      for (double s : {2.5, 0.0, -3.0, 1.0, kNaN, kInf}) {
        if (sizeof(T) == 4 && (nop.op == BinaryOp::kMod || nop.op == BinaryOp::kIntDiv) && s == 2.5)
          s = 2.0;  // integer operands in FP32, see input_for
        const double st = static_cast<double>(static_cast<T>(s));
        for (bool left : {false, true}) {
          std::ostringstream os;
          os << "binary " << nop.name << (left ? " scalar(" : " matrix,scalar(") << s << ")"
             << (left ? ",matrix" : "");
          const MatrixBlock ref = cpu::binary_matrix_scalar(nop.op, a, st, left);
          auto dout = tg::device_out<T>(rows * cols);
          cuda::launch_binary_matrix_scalar(nop.op, tg::ptr<T>(da), s, left, tg::ptr<T>(dout),
                                            rows * cols, nullptr);
          DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(os.str(), rows, cols, tg::precision_name<T>()),
                                     tg::block_from_device<T>(dout, rows, cols), ref, tg::tol<T>());
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE("elementwise kernels: ifelse, +* and -* with matrix/scalar mixes match the CPU",
                   "[gpu][kernel][elementwise]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("elementwise-ternary");
  struct NamedTernary {
    TernaryOp op;
    const char* name;
  };
  const NamedTernary kOps[] = {
      {TernaryOp::kIfElse, "ifelse"}, {TernaryOp::kPlusMult, "+*"}, {TernaryOp::kMinusMult, "-*"}};
  for (const NamedTernary& nt : kOps) {
    for (const auto& [rows, cols] : tg::kernel_shapes()) {
      const bool ifelse = nt.op == TernaryOp::kIfElse;
      // ifelse(cond, x, y): the condition has many zeros (and NaN, which counts as true).
      // +* / -*: x + z*y.
      const MatrixBlock first =
          ifelse ? tg::random_dense(rows, cols, seed + 1, -1.0, 1.0, true, true)
                 : tg::rounded<T>(tg::random_dense(rows, cols, seed + 1, -3.0, 3.0, true));
      const MatrixBlock second =
          tg::rounded<T>(tg::random_dense(rows, cols, seed + 2, -2.0, 2.0, true));
      const MatrixBlock third =
          tg::rounded<T>(tg::random_dense(rows, cols, seed + 3, -3.0, 3.0, true));
      const MatrixBlock* mats[3] = {&first, &second, &third};
      tg::DeviceBlock dev[3] = {tg::to_device<T>(first), tg::to_device<T>(second),
                                tg::to_device<T>(third)};
      const double scalars[3] = {ifelse ? 0.0 : 1.5, -0.75, 2.25};
      // Bit k of mask set: operand k is the matrix, else the scalar. ifelse also runs with a true
      // scalar condition (NaN).
      for (int mask = 0; mask < 8; ++mask) {
        for (double cond_scalar : {scalars[0], std::numeric_limits<double>::quiet_NaN()}) {
          if (cond_scalar != scalars[0] && (!ifelse || (mask & 1))) continue;
          cpu::TernaryArg args[3];
          cuda::CellArg<T> dargs[3];
          std::ostringstream os;
          os << nt.name << "(";
          for (int k = 0; k < 3; ++k) {
            const double sv = k == 0 ? cond_scalar : scalars[k];
            if (mask & (1 << k)) {
              args[k].matrix = mats[k];
              dargs[k].data = tg::ptr<T>(dev[k]);
              os << (k ? ", M" : "M");
            } else {
              args[k].value = sv;
              dargs[k].value = sv;
              os << (k ? ", " : "") << sv;
            }
          }
          os << ")";
          const MatrixBlock ref = cpu::ternary(nt.op, args[0], args[1], args[2], rows, cols);
          auto dout = tg::device_out<T>(rows * cols);
          cuda::launch_ternary(nt.op, dargs[0], dargs[1], dargs[2], tg::ptr<T>(dout), rows * cols,
                               nullptr);
          DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(os.str(), rows, cols, tg::precision_name<T>()),
                                     tg::block_from_device<T>(dout, rows, cols), ref, tg::tol<T>());
        }
      }
    }
  }
}

// The vectorised cell-wise map (Note [Vectorised cell access] in kernels/cuda/kernel_utils.cuh):
// lengths around the vector width and the per-thread unroll, operands at element offsets that
// share one 16-byte phase (scalar head, vectors, scalar tail) or not (all cells one at a time),
// and in place; guard cells around the output must stay untouched.
TEMPLATE_TEST_CASE("elementwise kernels: vectorised paths at odd lengths and offset pointers",
                   "[gpu][kernel][elementwise]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("elementwise-vectorised");
  const int64_t kLengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 17, 31, 33, 1023, 1025, 4099};
  struct Offsets {
    int64_t a, b, out;
  };
  const Offsets kOffsets[] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3},
                              {0, 1, 0}, {1, 0, 2}, {0, 0, 3}};
  const BinaryOp kOps[] = {BinaryOp::kPlus, BinaryOp::kMax, BinaryOp::kMinus1Mult};
  for (BinaryOp op : kOps) {
    for (int64_t n : kLengths) {
      const MatrixBlock a = input_for<T>(op, 1, n, seed + n);
      const MatrixBlock b = input_for<T>(op, 1, n, seed + 3 * n + 1);
      for (const Offsets& o : kOffsets) {
        std::ostringstream os;
        os << "binary op=" << static_cast<int>(op) << " offsets a=" << o.a << " b=" << o.b
           << " out=" << o.out;
        auto da = tg::to_device_at<T>(tg::values_of(a), o.a);
        auto db = tg::to_device_at<T>(tg::values_of(b), o.b);
        auto dout = tg::to_device_at<T>(std::vector<double>(static_cast<size_t>(n), -1.5), o.out);
        cuda::launch_binary_matrix_matrix(op, Broadcast::kNone, da.ptr(), db.ptr(), dout.ptr(), 1,
                                          n, nullptr);
        bool guards_ok = false;
        const MatrixBlock got = MatrixBlock::dense(1, n, tg::from_device_at(dout, &guards_ok));
        INFO(tg::label(os.str(), 1, n, tg::precision_name<T>()));
        CHECK(guards_ok);
        DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(os.str(), 1, n, tg::precision_name<T>()), got,
                                   cpu::binary_matrix_matrix(op, a, b), tg::tol<T>());
        for (bool left : {false, true}) {
          auto ds = tg::to_device_at<T>(std::vector<double>(static_cast<size_t>(n), -1.5), o.out);
          cuda::launch_binary_matrix_scalar(op, da.ptr(), 0.5, left, ds.ptr(), n, nullptr);
          const MatrixBlock gs = MatrixBlock::dense(1, n, tg::from_device_at(ds, &guards_ok));
          const std::string what = os.str() + (left ? " scalar left" : " scalar right");
          INFO(tg::label(what, 1, n, tg::precision_name<T>()));
          CHECK(guards_ok);
          DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(what, 1, n, tg::precision_name<T>()), gs,
                                     cpu::binary_matrix_scalar(op, a, 0.5, left), tg::tol<T>());
        }
      }
      // In place (out == a) at an offset that is not a vector boundary.
      auto da = tg::to_device_at<T>(tg::values_of(a), 1);
      auto db = tg::to_device_at<T>(tg::values_of(b), 1);
      cuda::launch_binary_matrix_matrix(op, Broadcast::kNone, da.ptr(), db.ptr(), da.ptr(), 1, n,
                                        nullptr);
      bool guards_ok = false;
      const MatrixBlock got = MatrixBlock::dense(1, n, tg::from_device_at(da, &guards_ok));
      INFO(tg::label("binary in place at offset 1", 1, n, tg::precision_name<T>()));
      CHECK(guards_ok);
      DMLRT_REQUIRE_KERNEL_CLOSE(
          tg::label("binary in place at offset 1", 1, n, tg::precision_name<T>()), got,
          cpu::binary_matrix_matrix(op, a, b), tg::tol<T>());
    }
  }
  // Ternary +* with a scalar middle operand and matrices at offsets of one phase or of two.
  for (int64_t n : kLengths) {
    const MatrixBlock x = tg::rounded<T>(tg::random_dense(1, n, seed + 5 * n, -3.0, 3.0, true));
    const MatrixBlock z = tg::rounded<T>(tg::random_dense(1, n, seed + 7 * n, -3.0, 3.0, true));
    cpu::TernaryArg args[3];
    args[0].matrix = &x;
    args[1].value = -0.75;
    args[2].matrix = &z;
    const MatrixBlock ref = cpu::ternary(TernaryOp::kPlusMult, args[0], args[1], args[2], 1, n);
    for (const Offsets& o : kOffsets) {
      auto dx = tg::to_device_at<T>(tg::values_of(x), o.a);
      auto dz = tg::to_device_at<T>(tg::values_of(z), o.b);
      auto dout = tg::to_device_at<T>(std::vector<double>(static_cast<size_t>(n), -1.5), o.out);
      cuda::CellArg<T> ca, cb, cc;
      ca.data = dx.ptr();
      cb.value = -0.75;
      cc.data = dz.ptr();
      cuda::launch_ternary(TernaryOp::kPlusMult, ca, cb, cc, dout.ptr(), n, nullptr);
      bool guards_ok = false;
      const MatrixBlock got = MatrixBlock::dense(1, n, tg::from_device_at(dout, &guards_ok));
      std::ostringstream os;
      os << "+*(M, -0.75, M) offsets " << o.a << "," << o.b << "," << o.out;
      INFO(tg::label(os.str(), 1, n, tg::precision_name<T>()));
      CHECK(guards_ok);
      DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(os.str(), 1, n, tg::precision_name<T>()), got, ref,
                                 tg::tol<T>());
    }
  }
}

// The vectorised broadcast kernel runs when cols is a multiple of the vector width and every
// pointer is 16-byte aligned; an offset operand takes the scalar kernel. Both against the CPU.
TEMPLATE_TEST_CASE("elementwise kernels: broadcasting with vector-width columns and offsets",
                   "[gpu][kernel][elementwise]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("elementwise-broadcast-vectorised");
  const std::pair<int64_t, int64_t> kShapes[] = {{1, 4}, {3, 8}, {33, 64}, {17, 1028}, {2, 4}};
  for (const auto& [rows, cols] : kShapes) {
    for (Broadcast bc : {Broadcast::kColVector, Broadcast::kRowVector, Broadcast::kOuter}) {
      for (int64_t offset : {0, 1}) {
        for (BinaryOp op : {BinaryOp::kMinus, BinaryOp::kMax}) {
          const int64_t a_cols = bc == Broadcast::kOuter ? 1 : cols;
          const int64_t b_rows = bc == Broadcast::kColVector ? rows : 1;
          const int64_t b_cols = bc == Broadcast::kColVector ? 1 : cols;
          const MatrixBlock a = input_for<T>(op, rows, a_cols, seed + rows);
          const MatrixBlock b = input_for<T>(op, b_rows, b_cols, seed + cols + 1);
          auto da = tg::to_device_at<T>(tg::values_of(a), offset);
          auto db = tg::to_device<T>(b);
          auto dout =
              tg::to_device_at<T>(std::vector<double>(static_cast<size_t>(rows * cols), -1.5), 0);
          cuda::launch_binary_matrix_matrix(op, bc, da.ptr(), tg::ptr<T>(db), dout.ptr(), rows,
                                            cols, nullptr);
          bool guards_ok = false;
          const MatrixBlock got =
              MatrixBlock::dense(rows, cols, tg::from_device_at(dout, &guards_ok));
          std::ostringstream os;
          os << "binary op=" << static_cast<int>(op) << " " << broadcast_name(bc) << " a offset "
             << offset;
          INFO(tg::label(os.str(), rows, cols, tg::precision_name<T>()));
          CHECK(guards_ok);
          DMLRT_REQUIRE_KERNEL_CLOSE(tg::label(os.str(), rows, cols, tg::precision_name<T>()), got,
                                     cpu::binary_matrix_matrix(op, a, b), tg::tol<T>());
        }
      }
    }
  }
}
