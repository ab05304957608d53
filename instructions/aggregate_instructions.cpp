// Unary aggregates and nrow/ncol/length: parsing and CPU runs (aggregate_instructions.h).
#include "instructions/aggregate_instructions.h"

#include <cstdint>
#include <string>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;
using Direction = AggregateInstruction::Direction;
using Kind = AggregateInstruction::Kind;

struct AggregateSpec {
  const char* opcode;
  Kind kind;
  Direction dir;
  cpu::AggOp op;
};

// The plain `+` sums use Kahan summation like the k+ ones (see Note [Kahan summation]).
constexpr AggregateSpec kSpecs[] = {
    {"ua+", Kind::kAggregate, Direction::kAll, cpu::AggOp::kSum},
    {"uak+", Kind::kAggregate, Direction::kAll, cpu::AggOp::kSum},
    {"uar+", Kind::kAggregate, Direction::kRow, cpu::AggOp::kSum},
    {"uark+", Kind::kAggregate, Direction::kRow, cpu::AggOp::kSum},
    {"uac+", Kind::kAggregate, Direction::kCol, cpu::AggOp::kSum},
    {"uack+", Kind::kAggregate, Direction::kCol, cpu::AggOp::kSum},
    {"ua*", Kind::kAggregate, Direction::kAll, cpu::AggOp::kProd},
    {"uar*", Kind::kAggregate, Direction::kRow, cpu::AggOp::kProd},
    {"uac*", Kind::kAggregate, Direction::kCol, cpu::AggOp::kProd},
    {"uamean", Kind::kAggregate, Direction::kAll, cpu::AggOp::kMean},
    {"uarmean", Kind::kAggregate, Direction::kRow, cpu::AggOp::kMean},
    {"uacmean", Kind::kAggregate, Direction::kCol, cpu::AggOp::kMean},
    {"uamax", Kind::kAggregate, Direction::kAll, cpu::AggOp::kMax},
    {"uarmax", Kind::kAggregate, Direction::kRow, cpu::AggOp::kMax},
    {"uacmax", Kind::kAggregate, Direction::kCol, cpu::AggOp::kMax},
    {"uamin", Kind::kAggregate, Direction::kAll, cpu::AggOp::kMin},
    {"uarmin", Kind::kAggregate, Direction::kRow, cpu::AggOp::kMin},
    {"uacmin", Kind::kAggregate, Direction::kCol, cpu::AggOp::kMin},
    {"uasqk+", Kind::kAggregate, Direction::kAll, cpu::AggOp::kSumSq},
    {"uarsqk+", Kind::kAggregate, Direction::kRow, cpu::AggOp::kSumSq},
    {"uacsqk+", Kind::kAggregate, Direction::kCol, cpu::AggOp::kSumSq},
    {"uavar", Kind::kAggregate, Direction::kAll, cpu::AggOp::kVar},
    {"uarvar", Kind::kAggregate, Direction::kRow, cpu::AggOp::kVar},
    {"uacvar", Kind::kAggregate, Direction::kCol, cpu::AggOp::kVar},
    {"uarimax", Kind::kIndexMax, Direction::kRow, cpu::AggOp::kMax},
    {"uarimin", Kind::kIndexMin, Direction::kRow, cpu::AggOp::kMin},
    // SystemDS compiles trace(X) to uaktrace; uatrace (its uncompensated form) is parsed but never
    // emitted. Both sum the diagonal with Kahan, as ua+ does.
    {"uatrace", Kind::kAggregate, Direction::kDiag, cpu::AggOp::kSum},
    {"uaktrace", Kind::kAggregate, Direction::kDiag, cpu::AggOp::kSum},
};

const AggregateSpec& spec_of(const std::string& opcode) {
  for (const auto& spec : kSpecs)
    if (opcode == spec.opcode) return spec;
  throw NotSupported("opcode '" + opcode + "' is not an aggregate");
}

}  // namespace

AggregateInstruction::AggregateInstruction(InstructionText t) : Instruction(std::move(t)) {
  const AggregateSpec& spec = spec_of(opcode());
  kind_ = spec.kind;
  dir_ = spec.dir;
  op_ = spec.op;
  // uarimax/uarimin carry one more flag after k (SystemDS prints `°1`).
  expect_fields(2, kind_ == Kind::kAggregate ? 3 : 4);
  in_ = operand(0);
  out_ = operand(1);
  if (num_fields() >= 3)
    DMLRT_REQUIRE(is_integer_text(field(2)), ParseError,
                  where() << ": " << opcode() << ": thread count must be an integer, got '"
                          << field(2) << "'");
  DMLRT_REQUIRE(
      in_.is_matrix(), ParseError,
      where() << ": " << opcode() << " needs a matrix input, got " << name_of(in_.data_type));
  // A full aggregate writes a scalar (a 1x1 matrix is accepted too); row and column aggregates
  // write a matrix.
  if (dir_ == Direction::kAll || dir_ == Direction::kDiag)
    DMLRT_REQUIRE(
        out_.is_scalar() || out_.is_matrix(), ParseError,
        where() << ": " << opcode() << " needs a scalar output, got " << name_of(out_.data_type));
  else
    DMLRT_REQUIRE(
        out_.is_matrix(), ParseError,
        where() << ": " << opcode() << " needs a matrix output, got " << name_of(out_.data_type));
}

void AggregateInstruction::check(Shapes& shapes) const {
  if (dir_ != Direction::kDiag) return;
  const Dims x = shapes.dims(in_);
  // SystemDS's validator: "Trace is only defined on squared matrices".
  DMLRT_REQUIRE(!x.known() || x.rows == x.cols, ShapeError,
                opcode() << ": trace is only defined on square matrices, got " << in_.name << " "
                         << kernels::dims_string(x.rows, x.cols));
}

void AggregateInstruction::run_cpu(ExecutionContext& ec) {
  const auto in = ec.matrix(in_);
  if (kind_ == Kind::kIndexMax) {
    ec.set_matrix(out_.name, cpu::row_index_max(*in));
  } else if (kind_ == Kind::kIndexMin) {
    ec.set_matrix(out_.name, cpu::row_index_min(*in));
  } else if (dir_ == Direction::kRow) {
    ec.set_matrix(out_.name, cpu::aggregate_rows(*in, op_));
  } else if (dir_ == Direction::kCol) {
    ec.set_matrix(out_.name, cpu::aggregate_cols(*in, op_));
  } else {
    const double v = dir_ == Direction::kDiag ? cpu::trace(*in) : cpu::aggregate_all(*in, op_);
    if (out_.is_matrix())
      ec.set_matrix(out_.name, kernels::MatrixBlock::dense(1, 1, v));
    else
      ec.set_scalar(out_, ScalarValue::fp64(v));
  }
}

int64_t AggregateInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& meta = ec.matrix_object_ref(in_.name)->meta();
  const mem::GpuSession* gpu = ec.options().gpu.get();
  const int64_t in = dense_device_bytes(gpu, meta.rows, meta.cols);
  if (in < 0) return -1;
  switch (dir_) {
    case Direction::kRow:
      return in + dense_device_bytes(gpu, meta.rows, 1);
    case Direction::kCol:
      return in + dense_device_bytes(gpu, 1, meta.cols);
    case Direction::kDiag:  // the diagonal, staged before its sum
      return in + dense_device_bytes(gpu, meta.rows, 1) + dense_device_bytes(gpu, 1, 1);
    case Direction::kAll:
      break;
  }
  return in + dense_device_bytes(gpu, 1, 1);
}

DimsInstruction::DimsInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 3);
  in_ = operand(0);
  out_ = operand(1);
  if (num_fields() == 3)
    DMLRT_REQUIRE(is_integer_text(field(2)), ParseError,
                  where() << ": " << opcode() << ": thread count must be an integer, got '"
                          << field(2) << "'");
  DMLRT_REQUIRE(
      in_.is_matrix(), ParseError,
      where() << ": " << opcode() << " needs a matrix input, got " << name_of(in_.data_type));
  DMLRT_REQUIRE(
      out_.is_scalar(), ParseError,
      where() << ": " << opcode() << " needs a scalar output, got " << name_of(out_.data_type));
}

// The metadata is current whenever the data is in memory (set_block and set_device_result refresh
// it), so device-resident data is never copied back just for its dims.
void DimsInstruction::run_cpu(ExecutionContext& ec) {
  const auto mo = ec.matrix_object(in_.name);
  int64_t rows = mo->meta().rows, cols = mo->meta().cols;
  if (mo->host_valid() || rows < 0 || cols < 0) {
    const auto b = ec.matrix(in_);  // reads the file when the dims are unknown
    rows = b->rows();
    cols = b->cols();
  }
  int64_t v = rows * cols;
  if (opcode() == "nrow")
    v = rows;
  else if (opcode() == "ncol")
    v = cols;
  ec.set_scalar(out_, ScalarValue::int64(v));
}

}  // namespace dmlrt::inst
