// Indexing instructions: parsing, the bounds checks both runs share, and the CPU runs
// (indexing_instructions.h).
#include "instructions/indexing_instructions.h"

#include <cmath>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/indexing.h"

namespace dmlrt::inst {
namespace {

// SystemDS reads index scalars with getLongValue(): doubles go through UtilFunctions.toLong,
// sign(x) * floor(|x| + 2^-53).
int64_t long_value(const ScalarValue& v, const char* what) {
  if (v.type() != ValueType::kFP64 && v.type() != ValueType::kFP32) return v.to_int();
  const double d = v.to_double();
  DMLRT_REQUIRE(std::isfinite(d), RuntimeError, "invalid " << what << " index " << d);
  const double s = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
  return static_cast<int64_t>(s * std::floor(std::fabs(d) + std::ldexp(1.0, -53)));
}

}  // namespace

void IndexingInstruction::parse_bounds(size_t first) {
  for (size_t i = 0; i < 4; ++i) {
    bounds_[i] = operand(first + i);
    DMLRT_REQUIRE(
        bounds_[i].is_scalar(), ParseError,
        where() << ": " << name_ << " expects scalar index bounds, got " << bounds_[i].to_string());
  }
}

IndexingInstruction::Range IndexingInstruction::range(ExecutionContext& ec, Dims x) const {
  const Range r{long_value(ec.scalar(bounds_[0]), "row"), long_value(ec.scalar(bounds_[1]), "row"),
                long_value(ec.scalar(bounds_[2]), "column"),
                long_value(ec.scalar(bounds_[3]), "column")};
  DMLRT_REQUIRE(r.rl <= r.ru, ShapeError,
                name_ << ": rows " << r.rl << ":" << r.ru
                      << " is an empty range (lower > upper) for a "
                      << kernels::dims_string(x.rows, x.cols) << " matrix");
  DMLRT_REQUIRE(r.cl <= r.cu, ShapeError,
                name_ << ": columns " << r.cl << ":" << r.cu
                      << " is an empty range (lower > upper) for a "
                      << kernels::dims_string(x.rows, x.cols) << " matrix");
  DMLRT_REQUIRE(r.rl >= 1 && r.ru <= x.rows, ShapeError,
                name_ << ": rows " << r.rl << ":" << r.ru << " out of bounds for a "
                      << kernels::dims_string(x.rows, x.cols) << " matrix");
  DMLRT_REQUIRE(r.cl >= 1 && r.cu <= x.cols, ShapeError,
                name_ << ": columns " << r.cl << ":" << r.cu << " out of bounds for a "
                      << kernels::dims_string(x.rows, x.cols) << " matrix");
  return r;
}

int64_t IndexingInstruction::bytes_of(ExecutionContext& ec,
                                      std::initializer_list<const Operand*> ops) {
  int64_t total = 0;
  for (const Operand* o : ops) {
    if (!o->is_matrix()) continue;
    const MatrixMeta& m = ec.matrix_object(o->name)->meta();
    const int64_t b = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
    if (b < 0) return -1;
    total += 2 * b;
  }
  return total;
}

RightIndexInstruction::RightIndexInstruction(InstructionText t)
    : IndexingInstruction(std::move(t), "rightIndex") {
  expect_fields(6);
  in_ = operand(0);
  DMLRT_REQUIRE(in_.is_matrix(), ParseError,
                where() << ": rightIndex expects a matrix input, got " << in_.to_string());
  parse_bounds(1);
  out_ = operand(5);
  DMLRT_REQUIRE(
      out_.is_matrix() || out_.is_scalar(), ParseError,
      where() << ": rightIndex expects a matrix or scalar output, got " << out_.to_string());
}

IndexingInstruction::Range RightIndexInstruction::cells(ExecutionContext& ec, Dims x) const {
  const Range r = range(ec, x);
  if (out_.is_scalar())
    DMLRT_REQUIRE(r.rows() == 1 && r.cols() == 1, ShapeError,
                  "rightIndex: a scalar output needs a single cell, got rows "
                      << r.rl << ":" << r.ru << ", columns " << r.cl << ":" << r.cu << " of a "
                      << kernels::dims_string(x.rows, x.cols) << " matrix");
  return r;
}

void RightIndexInstruction::run_cpu(ExecutionContext& ec) {
  auto x = ec.matrix(in_);
  const Range r = cells(ec, Dims{x->rows(), x->cols()});
  if (out_.is_scalar()) {
    ec.set_scalar(out_, ScalarValue::fp64(x->get(r.rl - 1, r.cl - 1)));
    return;
  }
  ec.set_matrix(out_.name, kernels::cpu::slice(*x, r.rl - 1, r.ru, r.cl - 1, r.cu));
}

LeftIndexInstruction::LeftIndexInstruction(InstructionText t)
    : IndexingInstruction(std::move(t), "leftIndex") {
  expect_fields(7);
  in_ = operand(0);
  rhs_ = operand(1);
  DMLRT_REQUIRE(in_.is_matrix(), ParseError,
                where() << ": leftIndex expects a matrix target, got " << in_.to_string());
  DMLRT_REQUIRE(rhs_.is_matrix() || rhs_.is_scalar(), ParseError,
                where() << ": leftIndex expects a matrix or scalar right-hand side, got "
                        << rhs_.to_string());
  parse_bounds(2);
  out_ = operand(6);
  DMLRT_REQUIRE(out_.is_matrix(), ParseError,
                where() << ": leftIndex expects a matrix output, got " << out_.to_string());
}

void LeftIndexInstruction::check_rhs(const Range& r, Dims x, Dims y) const {
  DMLRT_REQUIRE(y.rows == r.rows() && y.cols == r.cols(), ShapeError,
                "leftIndex: the right-hand side is "
                    << kernels::dims_string(y.rows, y.cols) << " but the target range [" << r.rl
                    << ":" << r.ru << ", " << r.cl << ":" << r.cu << "] of the "
                    << kernels::dims_string(x.rows, x.cols) << " matrix is " << r.rows() << "x"
                    << r.cols());
}

void LeftIndexInstruction::run_cpu(ExecutionContext& ec) {
  auto x = ec.matrix(in_);
  const Dims xd{x->rows(), x->cols()};
  const Range r = range(ec, xd);
  if (rhs_.is_scalar()) {
    const double v = ec.scalar(rhs_).to_double();
    ec.set_matrix(out_.name, kernels::cpu::assign_scalar(*x, v, r.rl - 1, r.ru, r.cl - 1, r.cu));
    return;
  }
  auto y = ec.matrix(rhs_);
  check_rhs(r, xd, Dims{y->rows(), y->cols()});
  ec.set_matrix(out_.name, kernels::cpu::assign_range(*x, *y, r.rl - 1, r.cl - 1));
}

}  // namespace dmlrt::inst
