// Cell-wise binary instructions: parsing, shape rule and CPU run (binary_instructions.h).
#include "instructions/binary_instructions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {
namespace {

using kernels::cpu::BinaryOp;

BinaryOp binary_op_of(const std::string& opcode) {
  BinaryOp op = BinaryOp::kPlus;
  DMLRT_REQUIRE(kernels::cpu::binary_op_from_opcode(opcode, &op), NotSupported,
                "opcode '" << opcode << "' is not a cell-wise binary op");
  return op;
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::kEq || op == BinaryOp::kNeq || op == BinaryOp::kLt ||
         op == BinaryOp::kGt || op == BinaryOp::kLe || op == BinaryOp::kGe;
}

bool compare_result(BinaryOp op, int c) {  // c = sign of (x <=> y)
  switch (op) {
    case BinaryOp::kEq:
      return c == 0;
    case BinaryOp::kNeq:
      return c != 0;
    case BinaryOp::kLt:
      return c < 0;
    case BinaryOp::kGt:
      return c > 0;
    case BinaryOp::kLe:
      return c <= 0;
    default:
      return c >= 0;  // kGe
  }
}

// Java's String.valueOf of a scalar object (booleans lower case), as SystemDS compares strings.
std::string java_string_value(const ScalarValue& v) {
  if (v.type() == ValueType::kBoolean) return v.to_bool() ? "true" : "false";
  return v.to_string();
}

bool is_fp(const ScalarValue& v) { return is_floating(v.type()); }
bool is_int(const ScalarValue& v) { return is_integer(v.type()); }

// Note [Scalar binary value types]
// Follows BinaryScalarScalarCPInstruction: comparisons give BOOLEAN (strings compare as strings,
// else as doubles, longs or booleans by promotion); `+` with a string concatenates DML's print
// forms; a double input or an FP64 output computes in double; two integers compute in double and
// are cast to INT64 (Java's (long): NaN -> 0, so 7 %% 0 is 0 and 7 %/% 0 overflows); two booleans
// compute in double except && and ||. As in SystemDS, the computed value is stored with its own
// type, not converted to the output operand's declared type.
ScalarValue scalar_binary(const std::string& opcode, BinaryOp op, const ScalarValue& x,
                          const ScalarValue& y, ValueType out_vt) {
  if (is_comparison(op)) {
    if (x.is_string() || y.is_string()) {
      const int c = java_string_value(x).compare(java_string_value(y));
      return ScalarValue::boolean(compare_result(op, c));
    }
    if (is_fp(x) || is_fp(y))
      return ScalarValue::boolean(kernels::cpu::binary_apply(op, x.to_double(), y.to_double()) !=
                                  0);
    const int64_t a = x.to_int(), b = y.to_int();  // longs, or booleans as 0/1
    return ScalarValue::boolean(compare_result(op, a < b ? -1 : (a > b ? 1 : 0)));
  }
  if (x.is_string() || y.is_string()) {
    DMLRT_REQUIRE(op == BinaryOp::kPlus, RuntimeError,
                  opcode << ": arithmetic '" << opcode << "' is not supported over string inputs ('"
                         << x.to_string() << "', '" << y.to_string() << "')");
    return ScalarValue::string(x.to_string() + y.to_string());
  }
  const bool logical = op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kXor;
  const double r = kernels::cpu::binary_apply(op, x.to_double(), y.to_double());
  if (is_fp(x) || is_fp(y) || is_floating(out_vt)) return ScalarValue::fp64(r);
  if ((is_int(x) || is_int(y)) && !logical) {
    // Java compares against (double) Long.MAX_VALUE == 2^63.
    DMLRT_REQUIRE(!(r > 9223372036854775808.0), RuntimeError,
                  opcode << ": integer operation created numerical result overflow ("
                         << format_double_java(r) << " > 9223372036854775807)");
    if (std::isnan(r)) return ScalarValue::int64(0);
    if (r >= 9223372036854775807.0) return ScalarValue::int64(std::numeric_limits<int64_t>::max());
    if (r <= -9223372036854775808.0) return ScalarValue::int64(std::numeric_limits<int64_t>::min());
    return ScalarValue::int64(static_cast<int64_t>(r));
  }
  // Booleans (or, where SystemDS has no rule, integers under && / ||).
  if (logical) return ScalarValue::boolean(r != 0.0);
  return ScalarValue::fp64(r);
}

// The type of scalar_binary's result when it cannot fail and its type follows from the operands'
// types alone, so that it may be computed later (Note [Deferred scalars] in scalar_value.cpp);
// nullopt otherwise.
std::optional<ValueType> deferrable_type(BinaryOp op, const ScalarValue& x, const ScalarValue& y,
                                         ValueType out_vt) {
  if (is_comparison(op)) return ValueType::kBoolean;
  if (x.is_string() || y.is_string())
    return op == BinaryOp::kPlus ? std::optional<ValueType>(ValueType::kString) : std::nullopt;
  if (is_fp(x) || is_fp(y) || is_floating(out_vt)) return ValueType::kFP64;
  return std::nullopt;
}

// A literal operand's value, parsed once here instead of at every execution (a bad literal is
// left to the execution, which raises the usual error).
std::optional<ScalarValue> parse_literal(const Operand& op) {
  if (!op.is_scalar() || !op.literal) return std::nullopt;
  try {
    return ScalarValue::from_literal(op.name, op.value_type);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

BinaryInstruction::BinaryInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(3, 5);
  op_ = binary_op_of(opcode());
  in1_ = operand(0);
  in2_ = operand(1);
  out_ = operand(2);
  for (const Operand* o : {&in1_, &in2_, &out_})
    DMLRT_REQUIRE(o->is_matrix() || o->is_scalar(), NotSupported,
                  where() << ": " << opcode() << " of a " << name_of(o->data_type) << " operand ('"
                          << o->name << "') is not supported");
  const bool any_matrix = in1_.is_matrix() || in2_.is_matrix();
  DMLRT_REQUIRE(any_matrix == out_.is_matrix(), ParseError,
                where() << ": " << opcode() << " output '" << out_.name << "' must be a "
                        << (any_matrix ? "MATRIX" : "SCALAR"));
  lit1_ = parse_literal(in1_);
  lit2_ = parse_literal(in2_);
}

void BinaryInstruction::check(Shapes& shapes) const {
  if (!in1_.is_matrix() || !in2_.is_matrix()) return;
  const Dims a = shapes.dims(in1_), b = shapes.dims(in2_);
  if (!a.known() || !b.known()) return;
  DMLRT_REQUIRE(kernels::cpu::binary_broadcast(a.rows, a.cols, b.rows, b.cols) !=
                    kernels::cpu::Broadcast::kInvalid,
                ShapeError,
                opcode() << ": incompatible shapes " << kernels::dims_string(a.rows, a.cols)
                         << " and " << kernels::dims_string(b.rows, b.cols)
                         << " (operands must agree, or the right one be a row or column "
                            "vector, or a column vector op a row vector)");
}

void BinaryInstruction::run_cpu(ExecutionContext& ec) {
  if (in1_.is_matrix() && in2_.is_matrix()) {
    auto a = ec.matrix(in1_);
    auto b = ec.matrix(in2_);
    ec.set_matrix(out_.name, kernels::cpu::binary_matrix_matrix(op_, *a, *b));
  } else if (in1_.is_matrix() || in2_.is_matrix()) {
    const bool scalar_left = in1_.is_scalar();
    auto m = ec.matrix(scalar_left ? in2_ : in1_);
    const double sv = scalar_as_double(ec, scalar_left);
    ec.set_matrix(out_.name, kernels::cpu::binary_matrix_scalar(op_, *m, sv, scalar_left));
  } else {
    ScalarValue a = scalar_of(ec, in1_, lit1_), b = scalar_of(ec, in2_, lit2_);
    if (a.is_deferred() || b.is_deferred()) {
      if (const auto vt = deferrable_type(op_, a, b, out_.value_type)) {
        ec.set_scalar(out_.name, ScalarValue::deferred(*vt, [opc = opcode(), op = op_, a, b,
                                                             out_vt = out_.value_type] {
                        return scalar_binary(opc, op, a, b, out_vt);
                      }));
        return;
      }
    }
    ec.set_scalar(out_.name, scalar_binary(opcode(), op_, a, b, out_.value_type));
  }
}

double BinaryInstruction::scalar_as_double(ExecutionContext& ec, bool scalar_left) const {
  const ScalarValue s = scalar_left ? scalar_of(ec, in1_, lit1_) : scalar_of(ec, in2_, lit2_);
  try {
    return s.to_double();
  } catch (const RuntimeError&) {
    DMLRT_FAIL(RuntimeError, opcode() << ": string scalar '" << s.to_string()
                                      << "' cannot be combined with a matrix");
  }
}

int64_t BinaryInstruction::device_bytes(ExecutionContext& ec) const {
  int64_t total = 0, out_rows = 0, out_cols = 0;
  for (const Operand* o : {&in1_, &in2_}) {
    if (!o->is_matrix()) continue;
    const MatrixMeta& meta = ec.matrix_object_ref(o->name)->meta();
    const int64_t b = dense_device_bytes(ec.options().gpu.get(), meta.rows, meta.cols);
    if (b < 0) return -1;
    total += b;
    out_rows = std::max(out_rows, meta.rows);
    out_cols = std::max(out_cols, meta.cols);
  }
  return total + dense_device_bytes(ec.options().gpu.get(), out_rows, out_cols);
}

}  // namespace dmlrt::inst
