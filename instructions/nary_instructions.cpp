// N-ary instructions: parsing, shape rule and CPU run (nary_instructions.h).
#include "instructions/nary_instructions.h"

#include <string>
#include <vector>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {

using kernels::cpu::NaryOp;

NaryInstruction::NaryInstruction(InstructionText t) : Instruction(std::move(t)) {
  if (opcode() == "n+")
    op_ = NaryOp::kPlus;
  else if (opcode() == "n*")
    op_ = NaryOp::kMult;
  else if (opcode() == "nmin")
    op_ = NaryOp::kMin;
  else if (opcode() == "nmax")
    op_ = NaryOp::kMax;
  else
    DMLRT_FAIL(NotSupported, "opcode '" << opcode() << "' is not an n-ary op");
  expect_fields(3, 10000);
  for (size_t i = 0; i + 1 < num_fields(); ++i) {
    in_.push_back(operand(i));
    DMLRT_REQUIRE(in_.back().is_matrix() || in_.back().is_scalar(), NotSupported,
                  where() << ": " << opcode() << " of a " << name_of(in_.back().data_type)
                          << " operand is not supported");
    any_matrix_ = any_matrix_ || in_.back().is_matrix();
  }
  out_ = operand(num_fields() - 1);
  DMLRT_REQUIRE(any_matrix_ == out_.is_matrix(), ParseError,
                where() << ": " << opcode() << " output '" << out_.name << "' must be a "
                        << (any_matrix_ ? "MATRIX" : "SCALAR"));
}

// Every matrix has the first one's shape (the first known one under -explain).
void NaryInstruction::check(Shapes& shapes) const {
  Dims first;
  for (const Operand& op : in_) {
    if (!op.is_matrix()) continue;
    const Dims d = shapes.dims(op);
    if (!d.known()) continue;
    if (!first.known()) first = d;
    DMLRT_REQUIRE(d.rows == first.rows && d.cols == first.cols, ShapeError,
                  opcode() << ": matrix operands differ in shape: "
                           << kernels::dims_string(first.rows, first.cols) << " and "
                           << kernels::dims_string(d.rows, d.cols));
  }
}

void NaryInstruction::run_cpu(ExecutionContext& ec) {
  if (any_matrix_)
    run_matrix(ec);
  else
    run_scalar(ec);
}

void NaryInstruction::run_matrix(ExecutionContext& ec) {
  std::vector<std::shared_ptr<const kernels::MatrixBlock>> holders;
  std::vector<const kernels::MatrixBlock*> mats;
  std::vector<double> scalars;
  for (const Operand& op : in_) {
    if (op.is_matrix()) {
      holders.push_back(ec.matrix(op));
      mats.push_back(holders.back().get());
    } else {
      scalars.push_back(scalar_operand(ec, op));
    }
  }
  ec.set_matrix(out_.name, kernels::cpu::nary(op_, mats, scalars));
}

double NaryInstruction::scalar_operand(ExecutionContext& ec, const Operand& op) const {
  const ScalarValue v = ec.scalar(op);
  DMLRT_REQUIRE(
      !v.is_string(), RuntimeError,
      opcode() << ": string scalar '" << v.to_string() << "' cannot be combined with a matrix");
  return v.to_double();
}

// Every matrix input and the output, dense in the session's element type.
int64_t NaryInstruction::device_bytes(ExecutionContext& ec) const {
  const mem::GpuSession* gpu = ec.options().gpu.get();
  int64_t total = 0, rows = -1, cols = -1;
  for (const Operand& op : in_) {
    if (!op.is_matrix()) continue;
    const MatrixMeta& meta = ec.matrix_object_ref(op.name)->meta();
    const int64_t b = dense_device_bytes(gpu, meta.rows, meta.cols);
    if (b < 0) return -1;
    total += b;
    rows = meta.rows;
    cols = meta.cols;
  }
  return total + dense_device_bytes(gpu, rows, cols);
}

namespace {

// n+, n*, nmin, nmax over scalars: strings concatenate (n+ only), INT64 and BOOLEAN operands give
// an INT64 for an INT64 output, everything else a double.
ScalarValue nary_scalar(const std::string& opcode, NaryOp op, const std::vector<ScalarValue>& vals,
                        bool any_string, bool all_integral, ValueType out_vt) {
  if (any_string) {
    DMLRT_REQUIRE(op == NaryOp::kPlus, RuntimeError,
                  opcode << ": string operands are only supported by n+");
    std::string s;
    for (const auto& v : vals) s += v.to_string();
    return ScalarValue::string(std::move(s));
  }
  if (all_integral && out_vt == ValueType::kINT64) {
    int64_t acc = vals[0].to_int();
    for (size_t i = 1; i < vals.size(); ++i) {
      const int64_t x = vals[i].to_int();
      switch (op) {
        case NaryOp::kPlus:
          acc += x;
          break;
        case NaryOp::kMult:
          acc *= x;
          break;
        case NaryOp::kMin:
          acc = x < acc ? x : acc;
          break;
        case NaryOp::kMax:
          acc = x > acc ? x : acc;
          break;
      }
    }
    return ScalarValue::int64(acc);
  }
  double acc = kernels::cpu::nary_init(op);
  for (const auto& v : vals) acc = kernels::cpu::nary_apply(op, acc, v.to_double());
  return ScalarValue::fp64(acc);
}

}  // namespace

void NaryInstruction::run_scalar(ExecutionContext& ec) {
  std::vector<ScalarValue> vals;
  bool any_string = out_.value_type == ValueType::kString;
  bool all_integral = true, any_deferred = false;
  for (const Operand& op : in_) {
    vals.push_back(ec.scalar(op));
    any_string = any_string || vals.back().is_string();
    const ValueType vt = vals.back().type();
    all_integral = all_integral && (vt == ValueType::kINT64 || vt == ValueType::kBoolean);
    any_deferred = any_deferred || vals.back().is_deferred();
  }
  // A deferred operand (Note [Deferred scalars] in scalar_value.cpp): computed on first use,
  // unless it could fail (strings under another operation than n+).
  if (any_deferred && (!any_string || op_ == NaryOp::kPlus)) {
    const ValueType vt = any_string                                             ? ValueType::kString
                         : all_integral && out_.value_type == ValueType::kINT64 ? ValueType::kINT64
                                                                                : ValueType::kFP64;
    ec.set_scalar(out_,
                  ScalarValue::deferred(vt, [opc = opcode(), op = op_, vals = std::move(vals),
                                             any_string, all_integral, out_vt = out_.value_type] {
                    return nary_scalar(opc, op, vals, any_string, all_integral, out_vt);
                  }));
    return;
  }
  ec.set_scalar(out_, nary_scalar(opcode(), op_, vals, any_string, all_integral, out_.value_type));
}

}  // namespace dmlrt::inst
