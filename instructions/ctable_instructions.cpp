// table(): parsing, shape rules and CPU run (ctable_instructions.h).
#include <cstdlib>

#include "instructions/ctable_instructions.h"

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/ctable.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

bool is_seq_literal(const Operand& op) {
  return op.is_scalar() && op.literal && op.value_type == ValueType::kString &&
         op.name.rfind("seq(", 0) == 0;
}

// A dim1/dim2 value: a literal or a scalar variable, as a Java (long) cast, which saturates (a
// static_cast of 1e300 would be undefined); the kernel checks the resulting size before
// allocating (kernels/host_memory.h).
int64_t dim_value(ExecutionContext& ec, const std::string& value, bool literal) {
  const ScalarValue v =
      literal ? ScalarValue::from_literal(value, ValueType::kFP64) : ec.scalar(value);
  return ScalarValue::fp64(v.to_double()).to_int();
}

}  // namespace

CtableInstruction::CtableInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(7, 8);
  for (size_t i = 0; i < 3; ++i) in_[i] = operand(i);
  dim_[0] = split_dim(field(3));
  dim_[1] = split_dim(field(4));
  out_ = operand(5);
  ignore_zeros_ = field(6) == "true";
  DMLRT_REQUIRE(out_.is_matrix(), ParseError,
                where() << ": " << opcode() << " output must be a MATRIX");
  expand_ = opcode() == "ctableexpand";
  if (expand_) {
    DMLRT_REQUIRE(is_seq_literal(in_[0]) != is_seq_literal(in_[1]), ParseError,
                  where() << ": ctableexpand needs exactly one seq(1, m) literal input");
    seq_left_ = is_seq_literal(in_[0]);
    const Operand& seq = seq_left_ ? in_[0] : in_[1];
    // "seq(1, 5)": the sequence must start at 1 with step 1 (the only form SystemDS fuses).
    const std::string body = seq.name.substr(4);
    char* end = nullptr;
    const double from = std::strtod(body.c_str(), &end);
    DMLRT_REQUIRE(from == 1.0 && end && *end == ',', ParseError,
                  where() << ": ctableexpand: unsupported sequence '" << seq.name << "'");
    seq_len_ = std::strtoll(end + 1, &end, 10);
    DMLRT_REQUIRE(end && *end == ')', ParseError,
                  where() << ": ctableexpand: unsupported sequence '" << seq.name << "'");
    DMLRT_REQUIRE((seq_left_ ? in_[1] : in_[0]).is_matrix(), ParseError,
                  where() << ": ctableexpand: the non-sequence input must be a matrix");
  }
}

CtableInstruction::Dim CtableInstruction::split_dim(const std::string& f) const {
  const std::string sep = kTypeDelim;
  const size_t p = f.rfind(sep);
  DMLRT_REQUIRE(p != std::string::npos, ParseError,
                where() << ": " << opcode() << ": dimension field '" << f << "' is not value" << sep
                        << "isLiteral");
  return Dim{f.substr(0, p), f.substr(p + sep.size()) == "true"};
}

void CtableInstruction::check(Shapes& shapes) const {
  if (expand_) {
    const Dims v = shapes.dims(seq_left_ ? in_[1] : in_[0]);
    // seq(1, -1): the plan did not know nrow(v) (SystemDS recompiles it at run time); the
    // sequence then has one element per row of v, whatever v turns out to be.
    DMLRT_REQUIRE(seq_len_ < 0 || !v.known() || v.rows == seq_len_, ShapeError,
                  "ctableexpand: invalid input sizes for table(seq(1, "
                      << seq_len_ << "), v): v is " << kernels::dims_string(v.rows, v.cols));
    return;
  }
  // The first matrix input sets the shape the others must have (as kernels/cpu/ctable says it).
  bool have_first = false;
  Dims first;
  for (const Operand& in : in_) {
    if (!in.is_matrix()) continue;
    const Dims d = shapes.dims(in);
    if (!have_first) {
      have_first = true;
      first = d;
      continue;
    }
    if (!first.known() || !d.known()) continue;
    // A column vector pairs with a row-vector first input of as many cells (kernels/cpu/ctable).
    DMLRT_REQUIRE((d.rows == first.rows && d.cols == first.cols) ||
                      (first.rows == 1 && d.cols == 1 && d.rows == first.cols),
                  ShapeError,
                  "ctable: inputs must have the same dimensions, got "
                      << kernels::dims_string(first.rows, first.cols) << " and "
                      << kernels::dims_string(d.rows, d.cols));
  }
}

int64_t CtableInstruction::dim(ExecutionContext& ec, int i) const {
  return dim_value(ec, dim_[i].value, dim_[i].literal);
}

// The matrix inputs (dense) and as much again for the output: a table's size depends on the data
// (the GPU run falls back to the CPU for a dense table far larger than its input).
int64_t CtableInstruction::device_bytes(ExecutionContext& ec) const {
  int64_t total = 0;
  for (int i = 0; i < 3; ++i) {
    if (!in_[i].is_matrix()) continue;
    const MatrixMeta& meta = ec.matrix_object_ref(in_[i].name)->meta();
    const int64_t b = dense_device_bytes(ec.options().gpu.get(), meta.rows, meta.cols);
    if (b < 0) return -1;
    total += 2 * b;
  }
  return total;
}

void CtableInstruction::run_cpu(ExecutionContext& ec) {
  const int64_t d1 = dim(ec, 0);
  const int64_t d2 = dim(ec, 1);
  std::shared_ptr<const kernels::MatrixBlock> held[3];
  cpu::CtableArg args[3];
  for (int i = 0; i < 3; ++i) {
    if (expand_ && i < 2 && is_seq_literal(in_[i])) continue;
    if (in_[i].is_matrix()) {
      held[i] = ec.matrix(in_[i]);
      args[i].matrix = held[i].get();
    } else {
      args[i].scalar = ec.scalar(in_[i]).to_double();
    }
  }
  if (expand_) {
    const kernels::MatrixBlock& v = *(seq_left_ ? held[1] : held[0]);
    ec.set_matrix(out_.name, cpu::ctable_expand(v, args[2], seq_left_ ? d2 : d1, seq_left_));
    return;
  }
  ec.set_matrix(out_.name, cpu::ctable(args[0], args[1], args[2], d1, d2, ignore_zeros_));
}

}  // namespace dmlrt::inst
