// Sorting and order statistics: parsing, shape rules and CPU runs (sort_instructions.h).
#include "instructions/sort_instructions.h"

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/sort.h"

namespace dmlrt::inst {

namespace cpu = kernels::cpu;

// --- rsort ---

RsortInstruction::RsortInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(5, 6);
  in_ = operand(0);
  by_ = operand(1);
  decreasing_ = operand(2);
  index_return_ = operand(3);
  out_ = operand(4);
  DMLRT_REQUIRE(in_.is_matrix() && out_.is_matrix(), ParseError,
                where() << ": rsort needs a matrix input and output");
}

std::vector<int64_t> RsortInstruction::sort_columns(ExecutionContext& ec) const {
  std::vector<int64_t> by;
  if (by_.is_matrix()) {
    auto b = ec.matrix(by_);
    for (int64_t i = 0; i < b->rows(); ++i)
      for (int64_t j = 0; j < b->cols(); ++j) by.push_back(static_cast<int64_t>(b->get(i, j)));
  } else {
    by.push_back(ec.scalar(by_).to_int());
  }
  return by;
}

void RsortInstruction::run_cpu(ExecutionContext& ec) {
  ec.set_matrix(out_.name, cpu::order(*ec.matrix(in_), sort_columns(ec),
                                      ec.scalar(decreasing_).to_bool(),
                                      ec.scalar(index_return_).to_bool()));
}

// Input and output (the sorted rows; the index column is smaller), from the metadata.
int64_t RsortInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& m = ec.matrix_object(in_.name)->meta();
  const int64_t in = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
  return in < 0 ? -1 : 2 * in;
}

// --- qsort ---

QsortInstruction::QsortInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 4);
  size_t n = num_fields();
  if (n >= 3 && is_integer_text(field(n - 1))) --n;  // trailing k
  DMLRT_REQUIRE(n == 2 || n == 3, ParseError,
                where() << ": qsort takes `values[°weights]°out[°k]`");
  in_ = operand(0);
  if (n == 3) weights_ = operand(1);
  out_ = operand(n - 1);
  DMLRT_REQUIRE(in_.is_matrix() && out_.is_matrix() && (n == 2 || weights_.is_matrix()), ParseError,
                where() << ": qsort needs matrix values, weights and output");
}

void QsortInstruction::run_cpu(ExecutionContext& ec) {
  // Unweighted: the sorted column; weighted: SystemDS's (value, weight) table (k, 2). qpick
  // tells them apart by their column count.
  if (weights_.name.empty()) {
    ec.set_matrix(out_.name, cpu::sort_values(*ec.matrix(in_)));
  } else {
    ec.set_matrix(out_.name, cpu::sort_weighted(*ec.matrix(in_), *ec.matrix(weights_)));
  }
}

// Values (and weights) in, about as much out.
int64_t QsortInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& m = ec.matrix_object(in_.name)->meta();
  const int64_t in = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
  return in < 0 ? -1 : (weights_.name.empty() ? 2 : 4) * in;
}

// --- qpick ---

QpickInstruction::QpickInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(3, 5);
  size_t type_at = 0;
  for (size_t i = 1; i < num_fields(); ++i) {
    const std::string& f = field(i);
    if (f == "VALUEPICK" || f == "RANGEPICK" || f == "MEDIAN" || f == "IQM") type_at = i;
  }
  DMLRT_REQUIRE(type_at >= 2, ParseError,
                where() << ": qpick: missing operation type (VALUEPICK, RANGEPICK, MEDIAN, IQM)");
  type_ = field(type_at);
  in_ = operand(0);
  out_ = operand(type_at - 1);
  if (type_ == "MEDIAN" || type_ == "IQM") {
    DMLRT_REQUIRE(type_at == 2, ParseError,
                  where() << ": qpick " << type_ << " takes `sorted°out`");
  } else {
    DMLRT_REQUIRE(type_at == 3, ParseError,
                  where() << ": qpick " << type_ << " takes `sorted°q°out`");
    q_ = operand(1);
  }
}

void QpickInstruction::check(Shapes& shapes) const {
  const Dims sorted = shapes.dims(in_);
  DMLRT_REQUIRE(sorted.cols < 0 || sorted.cols == 1 || sorted.cols == 2, ShapeError,
                "qpick: expects qsort's output (m x 1, or m x 2 with weights), got "
                    << kernels::dims_string(sorted.rows, sorted.cols));
  if (type_ == "MEDIAN" || type_ == "IQM" || !q_.is_matrix()) return;
  const Dims q = shapes.dims(q_);
  DMLRT_REQUIRE(q.cols < 0 || q.cols == 1, ShapeError,
                "qpick: multiple quantiles must be a column vector, got "
                    << kernels::dims_string(q.rows, q.cols));
}

// The sorted input; the outputs are scalars or a few quantiles.
int64_t QpickInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& m = ec.matrix_object(in_.name)->meta();
  return dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
}

void QpickInstruction::run_cpu(ExecutionContext& ec) {
  auto sorted = ec.matrix(in_);
  if (type_ == "IQM") {
    ec.set_scalar(out_.name, ScalarValue::fp64(cpu::inter_quartile_mean(*sorted)));
    return;
  }
  // A weighted table (k, 2): SystemDS averages for the median and a scalar quantile (the
  // table's length is even) but not for a vector of quantiles.
  const bool weighted = sorted->cols() == 2;
  auto pick = [&](double q, bool average) {
    return weighted ? cpu::pick_weighted_value(*sorted, q, average)
                    : cpu::pick_value(*sorted, q, average);
  };
  if (type_ == "MEDIAN") {
    ec.set_scalar(out_.name, ScalarValue::fp64(pick(0.5, true)));
  } else if (q_.is_matrix()) {
    auto q = ec.matrix(q_);
    std::vector<double> v(static_cast<size_t>(q->rows()));
    for (int64_t i = 0; i < q->rows(); ++i) v[static_cast<size_t>(i)] = pick(q->get(i, 0), false);
    kernels::MatrixBlock out = kernels::MatrixBlock::dense(q->rows(), 1, std::move(v));
    out.examine_format();
    ec.set_matrix(out_.name, std::move(out));
  } else {
    ec.set_scalar(out_.name, ScalarValue::fp64(pick(ec.scalar(q_).to_double(), true)));
  }
}

}  // namespace dmlrt::inst
