// Device tests of the cell-wise kernel family against the CPU kernels: every binary op in every
// broadcast form and matrix-scalar either way, and ifelse / +* / -* with matrix and scalar mixes,
// on the shared shape list with NaN/Inf/0/-0 inputs, in FP64 and FP32.
#include <catch2/catch.hpp>
#include <limits>
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
      dmlrt::mem::DeviceBuffer dev[3] = {tg::to_device<T>(first), tg::to_device<T>(second),
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
