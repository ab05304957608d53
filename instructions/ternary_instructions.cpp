// Ternary instructions: parsing, shape rule and CPU run (ternary_instructions.h).
#include "instructions/ternary_instructions.h"

#include <algorithm>
#include <string>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {

using kernels::cpu::TernaryArg;
using kernels::cpu::TernaryOp;

TernaryInstruction::TernaryInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(4, 5);
  if (opcode() == "ifelse")
    op_ = TernaryOp::kIfElse;
  else if (opcode() == "+*")
    op_ = TernaryOp::kPlusMult;
  else if (opcode() == "-*")
    op_ = TernaryOp::kMinusMult;
  else
    DMLRT_FAIL(NotSupported, "opcode '" << opcode() << "' is not a ternary op");
  for (size_t i = 0; i < 3; ++i) {
    in_[i] = operand(i);
    DMLRT_REQUIRE(in_[i].is_matrix() || in_[i].is_scalar(), NotSupported,
                  where() << ": " << opcode() << " of a " << name_of(in_[i].data_type)
                          << " operand is not supported");
  }
  out_ = operand(3);
  const bool any_matrix = in_[0].is_matrix() || in_[1].is_matrix() || in_[2].is_matrix();
  DMLRT_REQUIRE(any_matrix == out_.is_matrix(), ParseError,
                where() << ": " << opcode() << " output '" << out_.name << "' must be a "
                        << (any_matrix ? "MATRIX" : "SCALAR"));
}

Dims TernaryInstruction::output_shape(const ArgShape (&args)[3]) {
  Dims out{1, 1};
  for (const ArgShape& a : args)
    if (!a.scalar_like()) {
      out.rows = std::max(out.rows, a.rows);
      out.cols = std::max(out.cols, a.cols);
    }
  for (const ArgShape& a : args)
    if (a.is_matrix && (a.rows == 0 || a.cols == 0)) out = Dims{a.rows, a.cols};
  return out;
}

void TernaryInstruction::check(Shapes& shapes) const {
  if (!out_.is_matrix()) return;
  ArgShape args[3];
  for (int i = 0; i < 3; ++i) {
    if (!in_[i].is_matrix()) continue;
    const Dims d = shapes.dims(in_[i]);
    if (!d.known()) return;
    args[i] = {true, d.rows, d.cols};
  }
  const Dims out = output_shape(args);
  for (const ArgShape& a : args) {
    if (a.scalar_like() || (a.rows == out.rows && a.cols == out.cols)) continue;
    std::string s;
    for (int i = 0; i < 3; ++i) {
      if (i) s += ", ";
      s += args[i].is_matrix ? kernels::dims_string(args[i].rows, args[i].cols)
                             : std::string("scalar");
    }
    DMLRT_FAIL(ShapeError, opcode() << ": matrix operands differ in shape: " << s);
  }
}

void TernaryInstruction::run_cpu(ExecutionContext& ec) {
  if (!out_.is_matrix()) {
    run_scalar(ec);
    return;
  }
  std::shared_ptr<const kernels::MatrixBlock> blocks[3];
  TernaryArg args[3];
  ArgShape shapes[3];
  for (int i = 0; i < 3; ++i) {
    if (in_[i].is_matrix()) {
      blocks[i] = ec.matrix(in_[i]);
      args[i].matrix = blocks[i].get();
      shapes[i] = {true, blocks[i]->rows(), blocks[i]->cols()};
    } else {
      args[i].value = to_number(ec.scalar(in_[i]));
    }
  }
  const Dims out = output_shape(shapes);
  ec.set_matrix(out_.name,
                kernels::cpu::ternary(op_, args[0], args[1], args[2], out.rows, out.cols));
}

void TernaryInstruction::run_scalar(ExecutionContext& ec) {
  const ScalarValue c = ec.scalar(in_[0]);
  const ScalarValue a = ec.scalar(in_[1]);
  const ScalarValue b = ec.scalar(in_[2]);
  if (op_ == TernaryOp::kIfElse) {
    // SystemDS 3.4 passes the chosen input object through (an INT64 stays INT64, strings work).
    const bool cond = c.is_string() ? c.to_bool() : c.to_double() != 0.0;
    ec.set_scalar(out_.name, cond ? a : b);
    return;
  }
  // TernaryCPInstruction: double arithmetic, converted to the output's value type.
  ec.set_scalar(out_, ScalarValue::fp64(kernels::cpu::ternary_apply(op_, c.to_double(),
                                                                    a.to_double(), b.to_double())));
}

double TernaryInstruction::to_number(const ScalarValue& v) const {
  try {
    return v.to_double();
  } catch (const RuntimeError&) {
    DMLRT_FAIL(RuntimeError, opcode() << ": string scalar '" << v.to_string()
                                      << "' cannot be combined with a matrix");
  }
}

int64_t TernaryInstruction::device_bytes(ExecutionContext& ec) const {
  int64_t total = 0, out_rows = 1, out_cols = 1;
  const mem::GpuSession* gpu = ec.options().gpu.get();
  for (const Operand& o : in_) {
    if (!o.is_matrix()) continue;
    const MatrixMeta& meta = ec.matrix_object_ref(o.name)->meta();
    const int64_t b = dense_device_bytes(gpu, meta.rows, meta.cols);
    if (b < 0) return -1;
    total += b;
    out_rows = std::max(out_rows, meta.rows);
    out_cols = std::max(out_cols, meta.cols);
  }
  return total + dense_device_bytes(gpu, out_rows, out_cols);
}

}  // namespace dmlrt::inst
