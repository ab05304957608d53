// Cell-wise binary instructions (+ - * / ^ %% %/% == != < > <= >= && || xor min max 1-* -nz):
// matrix-matrix `in1°in2°out[°k][°InPlace]` with right-vector and outer broadcasting, matrix-scalar
// in either order, and scalar-scalar `S°S°s` with SystemDS's value-type rules (GPU lines carry
// exactly `in1°in2°out`). The matrix work is in kernels/cpu/binary.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/binary.h"

#ifdef DMLRT_WITH_CUDA
#include "kernels/cuda/elementwise.h"
#include "memory/gpu_session.h"
#endif

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

class BinaryInstruction final : public Instruction {
 public:
  explicit BinaryInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(3, 5);
    op_ = binary_op_of(opcode());
    in1_ = operand(0);
    in2_ = operand(1);
    out_ = operand(2);
    for (const Operand* o : {&in1_, &in2_, &out_})
      DMLRT_REQUIRE(o->is_matrix() || o->is_scalar(), NotSupported,
                    where() << ": " << opcode() << " of a " << name_of(o->data_type)
                            << " operand ('" << o->name << "') is not supported");
    const bool any_matrix = in1_.is_matrix() || in2_.is_matrix();
    DMLRT_REQUIRE(any_matrix == out_.is_matrix(), ParseError,
                  where() << ": " << opcode() << " output '" << out_.name << "' must be a "
                          << (any_matrix ? "MATRIX" : "SCALAR"));
    lit1_ = parse_literal(in1_);
    lit2_ = parse_literal(in2_);
  }

  // Matrix-matrix and matrix-scalar forms run on the GPU (kernels/cuda/elementwise); scalar-scalar
  // and xor (no device kernel yet) stay on the CPU.
  bool has_gpu_impl() const override {
    return (in1_.is_matrix() || in2_.is_matrix()) && op_ != BinaryOp::kXor;
  }

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (has_gpu_impl() && ec.options().gpu) {
      const int64_t bytes = placement_needs_bytes(ec, *this) ? operand_bytes(ec) : -1;
      if (mem::GpuSession* gpu = ec.gpu_for(*this, bytes)) return execute_gpu(ec, *gpu);
    }
#endif
    if (in1_.is_matrix() && in2_.is_matrix()) {
      auto a = ec.matrix(in1_);
      auto b = ec.matrix(in2_);
      DMLRT_REQUIRE(kernels::cpu::binary_broadcast(a->rows(), a->cols(), b->rows(), b->cols()) !=
                        kernels::cpu::Broadcast::kInvalid,
                    ShapeError,
                    opcode() << ": incompatible shapes " << shape_of(*a) << " and " << shape_of(*b)
                             << " (operands must agree, or the right one be a row or column "
                                "vector, or a column vector op a row vector)");
      ec.set_matrix(out_.name, kernels::cpu::binary_matrix_matrix(op_, *a, *b));
    } else if (in1_.is_matrix() || in2_.is_matrix()) {
      const bool scalar_left = in1_.is_scalar();
      auto m = ec.matrix(scalar_left ? in2_ : in1_);
      const double sv = scalar_as_double(ec, scalar_left);
      ec.set_matrix(out_.name, kernels::cpu::binary_matrix_scalar(op_, *m, sv, scalar_left));
    } else {
      ec.set_scalar(out_.name, scalar_binary(opcode(), op_, scalar_of(ec, in1_, lit1_),
                                             scalar_of(ec, in2_, lit2_), out_.value_type));
    }
  }

 private:
  // A literal operand's value, parsed once here instead of at every execution (a bad literal is
  // left to the execution, which raises the usual error).
  static std::optional<ScalarValue> parse_literal(const Operand& op) {
    if (!op.is_scalar() || !op.literal) return std::nullopt;
    try {
      return ScalarValue::from_literal(op.name, op.value_type);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  static ScalarValue scalar_of(ExecutionContext& ec, const Operand& op,
                               const std::optional<ScalarValue>& lit) {
    return lit ? *lit : ec.scalar(op);
  }
  // The scalar operand of a matrix-scalar op as a double.
  double scalar_as_double(ExecutionContext& ec, bool scalar_left) const {
    const ScalarValue s = scalar_left ? scalar_of(ec, in1_, lit1_) : scalar_of(ec, in2_, lit2_);
    try {
      return s.to_double();
    } catch (const RuntimeError&) {
      DMLRT_FAIL(RuntimeError, opcode() << ": string scalar '" << s.to_string()
                                        << "' cannot be combined with a matrix");
    }
  }

  // Device bytes of the inputs and the output from the metadata (-1 when a shape is unknown).
  int64_t operand_bytes(ExecutionContext& ec) const {
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

#ifdef DMLRT_WITH_CUDA
  // Sparse inputs are densified into temporaries (the kernels are dense); the output is dense with
  // unknown nnz, and takes the host format SystemDS would pick when it is copied back.
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    if (in1_.is_matrix() && in2_.is_matrix()) {
      DeviceRead a = gpu_read(ec, gpu, in1_);
      DeviceRead b = gpu_read(ec, gpu, in2_);
      const kernels::cpu::Broadcast bc =
          kernels::cpu::binary_broadcast(a->rows(), a->cols(), b->rows(), b->cols());
      DMLRT_REQUIRE(bc != kernels::cpu::Broadcast::kInvalid, ShapeError,
                    opcode() << ": incompatible shapes "
                             << kernels::dims_string(a->rows(), a->cols()) << " and "
                             << kernels::dims_string(b->rows(), b->cols())
                             << " (operands must agree, or the right one be a row or column "
                                "vector, or a column vector op a row vector)");
      const int64_t rows = a->rows();
      const int64_t cols = bc == kernels::cpu::Broadcast::kOuter ? b->cols() : a->cols();
      const mem::DeviceMatrix& ad = a.dense(gpu);
      const mem::DeviceMatrix& bd = b.dense(gpu);
      mem::DeviceMatrix c = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                     gpu.stream(), output_label());
      if (gpu.dtype() == mem::DType::kFloat64)
        kernels::cuda::launch_binary_matrix_matrix(op_, bc, ad.values_as<double>(),
                                                   bd.values_as<double>(), c.values_as<double>(),
                                                   rows, cols, gpu.stream());
      else
        kernels::cuda::launch_binary_matrix_matrix(op_, bc, ad.values_as<float>(),
                                                   bd.values_as<float>(), c.values_as<float>(),
                                                   rows, cols, gpu.stream());
      set_gpu_output(ec, gpu, out_.name, std::move(c));
      return;
    }
    const bool scalar_left = in1_.is_scalar();
    const double sv = scalar_as_double(ec, scalar_left);
    DeviceRead m = gpu_read(ec, gpu, scalar_left ? in2_ : in1_);
    const mem::DeviceMatrix& md = m.dense(gpu);
    mem::DeviceMatrix c = mem::DeviceMatrix::dense(gpu.memory(), md.rows(), md.cols(), gpu.dtype(),
                                                   gpu.stream(), output_label());
    if (gpu.dtype() == mem::DType::kFloat64)
      kernels::cuda::launch_binary_matrix_scalar(op_, md.values_as<double>(), sv, scalar_left,
                                                 c.values_as<double>(), md.size(), gpu.stream());
    else
      kernels::cuda::launch_binary_matrix_scalar(op_, md.values_as<float>(), sv, scalar_left,
                                                 c.values_as<float>(), md.size(), gpu.stream());
    set_gpu_output(ec, gpu, out_.name, std::move(c));
  }
  // "gpu_<opcode> output", formatted only when printed (Note [Allocation labels]).
  mem::AllocLabel output_label() const { return mem::AllocLabel("gpu_", opcode(), " output"); }
#endif

  BinaryOp op_ = BinaryOp::kPlus;
  Operand in1_, in2_, out_;
  std::optional<ScalarValue> lit1_, lit2_;  // parsed literal operands (parse_literal)
};

}  // namespace

InstructionPtr make_binary(InstructionText text) {
  return std::make_unique<BinaryInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
