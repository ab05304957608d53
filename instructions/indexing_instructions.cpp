// Indexing instructions rightIndex (X[rl:ru, cl:cu]) and leftIndex (X[rl:ru, cl:cu] = Y or = s),
// SystemDS layouts (reference/systemds-format.md §3): 1-based inclusive scalar bounds, checked
// here; slicing and assignment in kernels/cpu/indexing.
#include <cmath>

#include "gpu_context/error.h"
#include "instructions/families.h"
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

// 1-based inclusive index range [rl:ru, cl:cu].
struct IndexRange {
  int64_t rl, ru, cl, cu;
  int64_t rows() const { return ru - rl + 1; }
  int64_t cols() const { return cu - cl + 1; }
};

// Shared parsing of the four bound operands and the bounds check against the indexed matrix.
class IndexingInstruction : public Instruction {
 protected:
  IndexingInstruction(InstructionText t, const char* name)
      : Instruction(std::move(t)), name_(name) {}

  void parse_bounds(size_t first) {
    for (size_t i = 0; i < 4; ++i) {
      bounds_[i] = operand(first + i);
      DMLRT_REQUIRE(bounds_[i].is_scalar(), ParseError,
                    where() << ": " << name_ << " expects scalar index bounds, got "
                            << bounds_[i].to_string());
    }
  }

  IndexRange range(ExecutionContext& ec, const kernels::MatrixBlock& x) const {
    IndexRange r{long_value(ec.scalar(bounds_[0]), "row"), long_value(ec.scalar(bounds_[1]), "row"),
                 long_value(ec.scalar(bounds_[2]), "column"),
                 long_value(ec.scalar(bounds_[3]), "column")};
    DMLRT_REQUIRE(r.rl <= r.ru, ShapeError,
                  name_ << ": rows " << r.rl << ":" << r.ru
                        << " is an empty range (lower > upper) for a " << shape_of(x) << " matrix");
    DMLRT_REQUIRE(r.cl <= r.cu, ShapeError,
                  name_ << ": columns " << r.cl << ":" << r.cu
                        << " is an empty range (lower > upper) for a " << shape_of(x) << " matrix");
    DMLRT_REQUIRE(r.rl >= 1 && r.ru <= x.rows(), ShapeError,
                  name_ << ": rows " << r.rl << ":" << r.ru << " out of bounds for a "
                        << shape_of(x) << " matrix");
    DMLRT_REQUIRE(r.cl >= 1 && r.cu <= x.cols(), ShapeError,
                  name_ << ": columns " << r.cl << ":" << r.cu << " out of bounds for a "
                        << shape_of(x) << " matrix");
    return r;
  }

  const char* name_;
  Operand bounds_[4];
};

// rightIndex X rl ru cl cu out: out is a matrix, or a scalar when SystemDS indexes one cell
// (as.scalar(X[i,j]) and X[i,j] compile to a SCALAR output).
class RightIndex final : public IndexingInstruction {
 public:
  explicit RightIndex(InstructionText t) : IndexingInstruction(std::move(t), "rightIndex") {
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

  void execute(ExecutionContext& ec) override {
    auto x = ec.matrix(in_);
    const IndexRange r = range(ec, *x);
    if (out_.is_scalar()) {
      DMLRT_REQUIRE(r.rows() == 1 && r.cols() == 1, ShapeError,
                    "rightIndex: a scalar output needs a single cell, got rows "
                        << r.rl << ":" << r.ru << ", columns " << r.cl << ":" << r.cu << " of a "
                        << shape_of(*x) << " matrix");
      ec.set_scalar(out_, ScalarValue::fp64(x->get(r.rl - 1, r.cl - 1)));
      return;
    }
    ec.set_matrix(out_.name, kernels::cpu::slice(*x, r.rl - 1, r.ru, r.cl - 1, r.cu));
  }

 private:
  Operand in_, out_;
};

// leftIndex X rhs rl ru cl cu out: out = X with [rl:ru, cl:cu] replaced by the matrix rhs (of the
// range's shape) or by the scalar rhs. SystemDS only emits scalar rhs for single cells; a scalar
// over a larger range fills it.
class LeftIndex final : public IndexingInstruction {
 public:
  explicit LeftIndex(InstructionText t) : IndexingInstruction(std::move(t), "leftIndex") {
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

  void execute(ExecutionContext& ec) override {
    auto x = ec.matrix(in_);
    const IndexRange r = range(ec, *x);
    if (rhs_.is_scalar()) {
      const double v = ec.scalar(rhs_).to_double();
      ec.set_matrix(out_.name, kernels::cpu::assign_scalar(*x, v, r.rl - 1, r.ru, r.cl - 1, r.cu));
      return;
    }
    auto y = ec.matrix(rhs_);
    DMLRT_REQUIRE(y->rows() == r.rows() && y->cols() == r.cols(), ShapeError,
                  "leftIndex: the right-hand side is "
                      << shape_of(*y) << " but the target range [" << r.rl << ":" << r.ru << ", "
                      << r.cl << ":" << r.cu << "] of the " << shape_of(*x) << " matrix is "
                      << r.rows() << "x" << r.cols());
    ec.set_matrix(out_.name, kernels::cpu::assign_range(*x, *y, r.rl - 1, r.cl - 1));
  }

 private:
  Operand in_, rhs_, out_;
};

}  // namespace

InstructionPtr make_indexing(InstructionText text) {
  const std::string op = text.opcode;
  if (op == "rightindex") return std::make_unique<RightIndex>(std::move(text));
  if (op == "leftindex") return std::make_unique<LeftIndex>(std::move(text));
  DMLRT_FAIL(ParseError, "indexing: unknown opcode '" << op << "'");
}

}  // namespace dmlrt::inst
