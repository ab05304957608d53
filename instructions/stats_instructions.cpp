// Statistics and fused ternary aggregates: parsing, shape rules, device bytes and CPU runs
// (stats_instructions.h).
#include "instructions/stats_instructions.h"

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/stats.h"

namespace dmlrt::inst {

namespace cpu = kernels::cpu;

namespace {

// The shape rule of a column-vector operand of m rows, worded as kernels/cpu/stats.cpp words it
// (the CPU kernel keeps its own check for callers outside an instruction).
void require_column(const char* op, const Dims& v, int64_t m, const char* what) {
  if (!v.known() || m < 0) return;
  DMLRT_REQUIRE(v.cols == 1 && v.rows == m, ShapeError,
                op << ": " << what << " must be a column vector of " << m << " rows, got "
                   << kernels::dims_string(v.rows, v.cols));
}

}  // namespace

StatsInstruction::StatsInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 6);
  size_t n = num_fields();
  if (n >= 3 && is_integer_text(field(n - 1))) --n;  // trailing k
  for (size_t i = 0; i + 1 < n; ++i) ins_.push_back(operand(i));
  out_ = operand(n - 1);
}

bool StatsInstruction::all_matrices(size_t n) const {
  for (size_t i = 0; i < n && i < ins_.size(); ++i)
    if (!ins_[i].is_matrix()) return false;
  return true;
}

int64_t StatsInstruction::inputs_device_bytes(ExecutionContext& ec, int64_t out_cells) const {
  const mem::GpuSession* gpu = ec.options().gpu.get();
  int64_t total = dense_device_bytes(gpu, 1, out_cells);
  if (total < 0) return -1;
  for (const Operand& in : ins_) {
    if (!in.is_matrix()) continue;
    const MatrixMeta& m = ec.matrix_object_ref(in.name)->meta();
    const int64_t b = dense_device_bytes(gpu, m.rows, m.cols);
    if (b < 0) return -1;
    total += b;
  }
  return total;
}

// --- cov ---

CovInstruction::CovInstruction(InstructionText t) : StatsInstruction(std::move(t)) {
  DMLRT_REQUIRE(ins_.size() == 2 || ins_.size() == 3, ParseError,
                where() << ": cov expects x, y[, weights] and an output");
}

void CovInstruction::check(Shapes& shapes) const {
  if (!all_matrices(ins_.size())) return;  // the run reports the operand that is not one
  const Dims x = shapes.dims(ins_[0]);
  if (x.known())
    DMLRT_REQUIRE(x.cols == 1, ShapeError,
                  "cov: covariance can be computed only on 1-dimensional column matrices, got "
                      << kernels::dims_string(x.rows, x.cols));
  require_column("cov", shapes.dims(ins_[1]), x.rows, "the second input");
  if (ins_.size() == 3) require_column("cov", shapes.dims(ins_[2]), x.rows, "the weights");
}

int64_t CovInstruction::device_bytes(ExecutionContext& ec) const {
  return inputs_device_bytes(ec, 1);
}

void CovInstruction::run_cpu(ExecutionContext& ec) {
  auto x = ec.matrix(ins_[0]);
  auto y = ec.matrix(ins_[1]);
  std::shared_ptr<const kernels::MatrixBlock> w;
  if (ins_.size() == 3) w = ec.matrix(ins_[2]);
  ec.set_scalar(out_.name, ScalarValue::fp64(cpu::covariance(*x, *y, w.get())));
}

// --- cm ---

CentralMomentInstruction::CentralMomentInstruction(InstructionText t)
    : StatsInstruction(std::move(t)) {
  DMLRT_REQUIRE(ins_.size() == 2 || ins_.size() == 3, ParseError,
                where() << ": cm expects x[, weights], order and an output");
}

void CentralMomentInstruction::check(Shapes& shapes) const {
  if (!all_matrices(ins_.size() - 1)) return;  // the run reports the operand that is not one
  const Dims x = shapes.dims(ins_[0]);
  if (x.known())
    DMLRT_REQUIRE(x.cols == 1, ShapeError,
                  "cm: central moments can be computed only on column vectors, got "
                      << kernels::dims_string(x.rows, x.cols));
  if (ins_.size() == 3) require_column("cm", shapes.dims(ins_[1]), x.rows, "the weights");
}

int64_t CentralMomentInstruction::device_bytes(ExecutionContext& ec) const {
  return inputs_device_bytes(ec, 1);
}

void CentralMomentInstruction::run_cpu(ExecutionContext& ec) {
  auto x = ec.matrix(ins_[0]);
  std::shared_ptr<const kernels::MatrixBlock> w;
  if (ins_.size() == 3) w = ec.matrix(ins_[1]);
  const int order = static_cast<int>(ec.scalar(ins_.back()).to_int());
  ec.set_scalar(out_.name, ScalarValue::fp64(cpu::central_moment(*x, w.get(), order)));
}

// --- tak+*, tack+* ---

TernaryAggInstruction::TernaryAggInstruction(InstructionText t)
    : StatsInstruction(std::move(t)), col_(opcode() == "tack+*") {
  DMLRT_REQUIRE(ins_.size() == 3, ParseError,
                where() << ": " << opcode() << " expects three inputs and an output");
  DMLRT_REQUIRE(col_ ? out_.is_matrix() : out_.is_scalar(), ParseError,
                where() << ": " << opcode() << " output must be a "
                        << (col_ ? "MATRIX" : "SCALAR"));
}

// Matrix inputs share one shape (worded as kernels/cpu/stats.cpp words it).
void TernaryAggInstruction::check(Shapes& shapes) const {
  Dims first;
  for (const Operand& in : ins_) {
    if (!in.is_matrix()) continue;
    const Dims d = shapes.dims(in);
    if (!d.known()) continue;
    if (!first.known()) first = d;
    DMLRT_REQUIRE(d.rows == first.rows && d.cols == first.cols, ShapeError,
                  opcode() << ": inputs must have the same dimensions, got "
                           << kernels::dims_string(first.rows, first.cols) << " and "
                           << kernels::dims_string(d.rows, d.cols));
  }
}

bool TernaryAggInstruction::has_gpu_impl() const {
  for (const Operand& in : ins_)
    if (in.is_matrix()) return true;
  return false;
}

// The output: one cell (tak+*) or a row of the inputs' columns (tack+*).
int64_t TernaryAggInstruction::device_bytes(ExecutionContext& ec) const {
  int64_t cols = 1;
  if (col_)
    for (const Operand& in : ins_)
      if (in.is_matrix()) cols = ec.matrix_object_ref(in.name)->meta().cols;
  return cols < 0 ? -1 : inputs_device_bytes(ec, cols);
}

void TernaryAggInstruction::run_cpu(ExecutionContext& ec) {
  std::shared_ptr<const kernels::MatrixBlock> held[3];
  cpu::TernaryAggArg args[3];
  for (int i = 0; i < 3; ++i) {
    if (ins_[i].is_matrix()) {
      held[i] = ec.matrix(ins_[i]);
      args[i].matrix = held[i].get();
    } else {
      args[i].scalar = ec.scalar(ins_[i]).to_double();
    }
  }
  if (col_)
    ec.set_matrix(out_.name, cpu::col_sum_product3(args[0], args[1], args[2]));
  else
    ec.set_scalar(out_, ScalarValue::fp64(cpu::sum_product3(args[0], args[1], args[2])));
}

}  // namespace dmlrt::inst
