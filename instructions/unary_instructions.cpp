// Unary builtins: parsing, shape rules and CPU runs (unary_instructions.h).
#include "instructions/unary_instructions.h"

#include <cstdint>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {

namespace cpu = kernels::cpu;

UnaryInstruction::UnaryInstruction(InstructionText t) : Instruction(std::move(t)) {
  // SystemDS compiles X^2 and X*2 as `X°2·SCALAR·INT64·true°out°k`: the constant operand is
  // carried as a literal second input, which these opcodes imply and skip.
  size_t skip = 0;
  if ((opcode() == "^2" || opcode() == "*2") && num_fields() >= 3) {
    const Operand second = operand(1);
    if (second.is_scalar() && second.literal && !operand(2).literal) skip = 1;
  }
  expect_fields(2 + skip, 4 + skip);
  in_ = operand(0);
  out_ = operand(1 + skip);
  if (num_fields() >= 3 + skip)
    DMLRT_REQUIRE(is_integer_text(field(2 + skip)), ParseError,
                  where() << ": " << opcode() << ": thread count must be an integer, got '"
                          << field(2 + skip) << "'");
  if (cpu::unary_op_from_opcode(opcode(), &op_)) {
    kind_ = Kind::kCellwise;
  } else if (opcode() == "ucumk+*") {
    kind_ = Kind::kCumSumProd;
  } else if (opcode() == "urowcumk+") {
    kind_ = Kind::kRowCumSum;
  } else if (opcode() == "softmax") {
    kind_ = Kind::kSoftmax;
  } else {
    kind_ = Kind::kCumulative;
    if (opcode() == "ucumk+")
      cum_ = cpu::CumOp::kSum;
    else if (opcode() == "ucum*")
      cum_ = cpu::CumOp::kProd;
    else if (opcode() == "ucummin")
      cum_ = cpu::CumOp::kMin;
    else if (opcode() == "ucummax")
      cum_ = cpu::CumOp::kMax;
    else
      DMLRT_FAIL(NotSupported, where() << ": unknown unary opcode '" << opcode() << "'");
  }
  DMLRT_REQUIRE(in_.is_matrix() || in_.is_scalar(), ParseError,
                where() << ": " << opcode() << " needs a matrix or scalar input, got "
                        << name_of(in_.data_type));
  if (kind_ != Kind::kCellwise)
    DMLRT_REQUIRE(in_.is_matrix() && out_.is_matrix(), ParseError,
                  where() << ": " << opcode() << " needs a matrix input and output, got "
                          << name_of(in_.data_type) << " -> " << name_of(out_.data_type));
  DMLRT_REQUIRE(in_.data_type == out_.data_type, ParseError,
                where() << ": " << opcode() << " of a " << name_of(in_.data_type)
                        << " input needs a " << name_of(in_.data_type) << " output, got "
                        << name_of(out_.data_type));
}

InstructionPtr UnaryInstruction::make(InstructionText t) {
  if (t.fields.size() >= 3 && !is_integer_text(t.fields[2]))
    return std::make_unique<LogBaseInstruction>(std::move(t));
  return std::make_unique<UnaryInstruction>(std::move(t));
}

void UnaryInstruction::check(Shapes& shapes) const {
  if (kind_ != Kind::kCumSumProd) return;
  const Dims d = shapes.dims(in_);
  if (!d.known()) return;
  // The same rule and message as kernels/cpu cumsumprod, which keeps its own check.
  DMLRT_REQUIRE(d.cols == 2, ShapeError,
                "ucumk+*: cumsumprod needs a 2-column input [a, b], got "
                    << kernels::dims_string(d.rows, d.cols));
}

void UnaryInstruction::run_cpu(ExecutionContext& ec) {
  if (in_.is_scalar()) {
    ec.set_scalar(out_, scalar_result(ec.scalar(in_)));
    return;
  }
  const auto in = ec.matrix(in_);
  switch (kind_) {
    case Kind::kCellwise:
      ec.set_matrix(out_.name, cpu::unary(*in, op_));
      break;
    case Kind::kCumulative:
      ec.set_matrix(out_.name, cpu::cumulative(*in, cum_));
      break;
    case Kind::kCumSumProd:
      ec.set_matrix(out_.name, cpu::cumsumprod(*in));
      break;
    case Kind::kRowCumSum:
      ec.set_matrix(out_.name, cpu::row_cumsum(*in));
      break;
    case Kind::kSoftmax:
      ec.set_matrix(out_.name, cpu::softmax(*in));
      break;
  }
}

// SystemDS picks the output value type at compile time (abs of an INT64 is INT64, round and sign of
// an INT64 are FP64, ! is BOOLEAN); set_scalar converts to it. Integer results are computed in
// integers so large INT64 values stay exact.
ScalarValue UnaryInstruction::scalar_result(const ScalarValue& v) const {
  DMLRT_REQUIRE(!v.is_string(), RuntimeError,
                opcode() << ": cannot apply to the STRING value '" << v.to_string() << "'");
  if (op_ == cpu::UnaryOp::kNot) return ScalarValue::boolean(!v.to_bool());
  if (v.type() == ValueType::kINT64 && is_integer(out_.value_type)) {
    const int64_t x = v.to_int();
    const uint64_t ux = static_cast<uint64_t>(x);  // Java long arithmetic wraps
    switch (op_) {
      case cpu::UnaryOp::kAbs:
        return ScalarValue::int64(x < 0 ? static_cast<int64_t>(0 - ux) : x);
      case cpu::UnaryOp::kSign:
        return ScalarValue::int64(x > 0 ? 1 : (x < 0 ? -1 : 0));
      case cpu::UnaryOp::kRound:
      case cpu::UnaryOp::kFloor:
      case cpu::UnaryOp::kCeil:
        return ScalarValue::int64(x);
      case cpu::UnaryOp::kSquare:
        return ScalarValue::int64(static_cast<int64_t>(ux * ux));
      case cpu::UnaryOp::kTimes2:
        return ScalarValue::int64(static_cast<int64_t>(ux + ux));
      default:
        break;
    }
  }
  return ScalarValue::fp64(cpu::apply_unary(op_, v.to_double()));
}

int64_t UnaryInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& meta = ec.matrix_object_ref(in_.name)->meta();
  const int64_t in = dense_device_bytes(ec.options().gpu.get(), meta.rows, meta.cols);
  if (in < 0) return -1;
  return kind_ == Kind::kCumSumProd ? in + dense_device_bytes(ec.options().gpu.get(), meta.rows, 1)
                                    : 2 * in;
}

LogBaseInstruction::LogBaseInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(3, 4);
  x_ = operand(0);
  base_ = operand(1);
  out_ = operand(2);
  if (num_fields() == 4)
    DMLRT_REQUIRE(is_integer_text(field(3)), ParseError,
                  where() << ": log: thread count must be an integer, got '" << field(3) << "'");
  for (const Operand* op : {&x_, &base_})
    DMLRT_REQUIRE(
        op->is_matrix() || op->is_scalar(), ParseError,
        where() << ": log needs matrix or scalar operands, got " << name_of(op->data_type));
  const bool matrix_out = x_.is_matrix() || base_.is_matrix();
  DMLRT_REQUIRE(out_.is_matrix() == matrix_out && (out_.is_matrix() || out_.is_scalar()),
                ParseError,
                where() << ": log with a base needs a " << (matrix_out ? "MATRIX" : "SCALAR")
                        << " output, got " << name_of(out_.data_type));
}

void LogBaseInstruction::check(Shapes& shapes) const {
  if (!x_.is_matrix() || !base_.is_matrix()) return;
  const Dims x = shapes.dims(x_), b = shapes.dims(base_);
  if (!x.known() || !b.known()) return;
  DMLRT_REQUIRE((b.rows == x.rows || b.rows == 1) && (b.cols == x.cols || b.cols == 1), ShapeError,
                "log: base of shape " << kernels::dims_string(b.rows, b.cols)
                                      << " does not fit x of shape "
                                      << kernels::dims_string(x.rows, x.cols)
                                      << " (needs the same shape or a row/column vector)");
}

void LogBaseInstruction::run_cpu(ExecutionContext& ec) {
  if (x_.is_matrix() && base_.is_matrix()) {
    const auto x = ec.matrix(x_);
    const auto b = ec.matrix(base_);
    ec.set_matrix(out_.name, cpu::log_base(*x, *b));
  } else if (x_.is_matrix()) {
    ec.set_matrix(out_.name, cpu::log_base(*ec.matrix(x_), number(ec, base_)));
  } else if (base_.is_matrix()) {
    ec.set_matrix(out_.name, cpu::log_base(number(ec, x_), *ec.matrix(base_)));
  } else {
    ec.set_scalar(out_, ScalarValue::fp64(cpu::log_base(number(ec, x_), number(ec, base_))));
  }
}

double LogBaseInstruction::number(ExecutionContext& ec, const Operand& op) {
  const ScalarValue v = ec.scalar(op);
  DMLRT_REQUIRE(!v.is_string(), RuntimeError,
                "log: cannot apply to the STRING value '" << v.to_string() << "'");
  return v.to_double();
}

// The matrix operands and the output (the shape of x, or of base when x is a scalar).
int64_t LogBaseInstruction::device_bytes(ExecutionContext& ec) const {
  int64_t total = 0, out_bytes = 0;
  for (const Operand* o : {&base_, &x_}) {
    if (!o->is_matrix()) continue;
    const MatrixMeta& meta = ec.matrix_object_ref(o->name)->meta();
    const int64_t b = dense_device_bytes(ec.options().gpu.get(), meta.rows, meta.cols);
    if (b < 0) return -1;
    total += b;
    out_bytes = b;  // x's shape when x is a matrix (visited last)
  }
  return total + out_bytes;
}

}  // namespace dmlrt::inst
