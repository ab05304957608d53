// Unary builtins: cell-wise functions on matrices and scalars, log with a base (SystemDS's Binary
// form of log), isnan, the cumulative column scans ucumk+ ucum* ucummin ucummax ucumk+*, the row
// scan urowcumk+, and softmax.
// Layouts (SystemDS): matrix `in°out°k[°inplace]` (CP) or `in°out` (GPU); scalar `in°out°k`;
// log with a base `x°base°out[°k]`. The trailing k and inplace flag are accepted and ignored.
// Matrix forms run on the GPU (kernels/cuda/unary) except isnan and urowcumk+, which have no
// device kernel; scalar forms always run on the CPU.
#include <cctype>
#include <cstdint>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/unary.h"

#ifdef DMLRT_WITH_CUDA
#include "kernels/cuda/unary.h"
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

// What a unary opcode computes, beyond the cell-wise functions of kernels/cpu/unary.h.
enum class Kind { kCellwise, kCumulative, kCumSumProd, kRowCumSum, kSoftmax };

class UnaryInstruction final : public Instruction {
 public:
  explicit UnaryInstruction(InstructionText t) : Instruction(std::move(t)) {
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

  // Scalar inputs, isnan and urowcumk+ stay on the CPU (no device kernel; a scalar is not worth a
  // launch).
  bool has_gpu_impl() const override {
    if (!in_.is_matrix() || kind_ == Kind::kRowCumSum) return false;
    return !(kind_ == Kind::kCellwise && op_ == cpu::UnaryOp::kIsNan);
  }

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (has_gpu_impl() && ec.options().gpu) {
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec))) return execute_gpu(ec, *gpu);
    }
#endif
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

 private:
  // SystemDS picks the output value type at compile time (abs of an INT64 is INT64, round and
  // sign of an INT64 are FP64, ! is BOOLEAN); set_scalar converts to it. Integer results are
  // computed in integers so large INT64 values stay exact.
  ScalarValue scalar_result(const ScalarValue& v) const {
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

  // Device bytes of the input and the output from the metadata (-1 when the shape is unknown).
  int64_t operand_bytes(ExecutionContext& ec) const {
    const MatrixMeta& meta = ec.matrix_object(in_.name)->meta();
    const int64_t in = dense_device_bytes(ec.options().gpu.get(), meta.rows, meta.cols);
    if (in < 0) return -1;
    return kind_ == Kind::kCumSumProd
               ? in + dense_device_bytes(ec.options().gpu.get(), meta.rows, 1)
               : 2 * in;
  }

#ifdef DMLRT_WITH_CUDA
  // Sparse inputs are densified into a temporary (the kernels are dense; the input keeps its
  // format); the output is dense with unknown nnz and takes the host format SystemDS would pick
  // when it is copied back.
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    DeviceRead x = gpu_read(ec, gpu, in_);
    if (kind_ == Kind::kCumSumProd)
      DMLRT_REQUIRE(x->cols() == 2, ShapeError,
                    "ucumk+*: cumsumprod needs a 2-column input [a, b], got "
                        << kernels::dims_string(x->rows(), x->cols()));
    const mem::DeviceMatrix& xd = x.dense(gpu);
    const int64_t rows = xd.rows(), cols = xd.cols();
    mem::DeviceMatrix out =
        mem::DeviceMatrix::dense(gpu.memory(), rows, kind_ == Kind::kCumSumProd ? 1 : cols,
                                 gpu.dtype(), gpu.stream(), "gpu_" + opcode() + " output");
    if (gpu.dtype() == mem::DType::kFloat64)
      launch<double>(gpu, xd, out);
    else
      launch<float>(gpu, xd, out);
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }

  // (rows, cols) row-major xd -> out, on gpu.stream(); scans take their workspace from scratch,
  // returned (stream-ordered) when this returns.
  template <typename T>
  void launch(mem::GpuSession& gpu, const mem::DeviceMatrix& xd, mem::DeviceMatrix& out) const {
    namespace cuda = kernels::cuda;
    const int64_t rows = xd.rows(), cols = xd.cols();
    const T* in = xd.values_as<T>();
    T* o = out.values_as<T>();
    switch (kind_) {
      case Kind::kCellwise:
        cuda::launch_unary(op_, in, o, rows * cols, gpu.stream());
        break;
      case Kind::kSoftmax:
        cuda::launch_softmax(in, o, rows, cols, gpu.stream());
        break;
      case Kind::kCumulative: {
        mem::DeviceAllocation ws = gpu.scratch(
            cuda::cumulative_workspace_bytes(rows, cols, sizeof(T)), "gpu_" + opcode() + " scan");
        cuda::launch_cumulative(cum_, in, o, rows, cols, ws.data(), gpu.stream());
        break;
      }
      case Kind::kCumSumProd: {
        mem::DeviceAllocation ws =
            gpu.scratch(cuda::cumulative_workspace_bytes(rows, 1, sizeof(T)), "gpu_ucumk+* scan");
        cuda::launch_cumsumprod(in, o, rows, ws.data(), gpu.stream());
        break;
      }
      case Kind::kRowCumSum:  // has_gpu_impl() keeps it on the CPU
        DMLRT_FAIL(NotSupported, "urowcumk+ has no GPU implementation");
    }
  }
#endif

  Operand in_, out_;
  Kind kind_ = Kind::kCellwise;
  cpu::UnaryOp op_ = cpu::UnaryOp::kExp;
  cpu::CumOp cum_ = cpu::CumOp::kSum;
};

// log(x, base) = log(x) / log(base): `x°base°out[°k]` with matrix or scalar x and base.
class LogBaseInstruction final : public Instruction {
 public:
  explicit LogBaseInstruction(InstructionText t) : Instruction(std::move(t)) {
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

  // Forms with a matrix run on the GPU; log of two scalars stays on the CPU.
  bool has_gpu_impl() const override { return x_.is_matrix() || base_.is_matrix(); }

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (has_gpu_impl() && ec.options().gpu) {
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec))) return execute_gpu(ec, *gpu);
    }
#endif
    if (x_.is_matrix() && base_.is_matrix()) {
      const auto x = ec.matrix(x_);
      const auto b = ec.matrix(base_);
      DMLRT_REQUIRE(
          (b->rows() == x->rows() || b->rows() == 1) && (b->cols() == x->cols() || b->cols() == 1),
          ShapeError,
          "log: base of shape " << shape_of(*b) << " does not fit x of shape " << shape_of(*x)
                                << " (needs the same shape or a row/column vector)");
      ec.set_matrix(out_.name, cpu::log_base(*x, *b));
    } else if (x_.is_matrix()) {
      ec.set_matrix(out_.name, cpu::log_base(*ec.matrix(x_), number(ec, base_)));
    } else if (base_.is_matrix()) {
      ec.set_matrix(out_.name, cpu::log_base(number(ec, x_), *ec.matrix(base_)));
    } else {
      ec.set_scalar(out_, ScalarValue::fp64(cpu::log_base(number(ec, x_), number(ec, base_))));
    }
  }

 private:
  static double number(ExecutionContext& ec, const Operand& op) {
    const ScalarValue v = ec.scalar(op);
    DMLRT_REQUIRE(!v.is_string(), RuntimeError,
                  "log: cannot apply to the STRING value '" << v.to_string() << "'");
    return v.to_double();
  }

  // Device bytes of the matrix operands and the output (the shape of x, or of base when x is a
  // scalar) from the metadata (-1 when a shape is unknown).
  int64_t operand_bytes(ExecutionContext& ec) const {
    int64_t total = 0, out_bytes = 0;
    for (const Operand* o : {&base_, &x_}) {
      if (!o->is_matrix()) continue;
      const MatrixMeta& meta = ec.matrix_object(o->name)->meta();
      const int64_t b = dense_device_bytes(ec.options().gpu.get(), meta.rows, meta.cols);
      if (b < 0) return -1;
      total += b;
      out_bytes = b;  // x's shape when x is a matrix (visited last)
    }
    return total + out_bytes;
  }

#ifdef DMLRT_WITH_CUDA
  // Sparse operands are densified into temporaries; the output is dense, as in the binary family.
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    DeviceRead x, b;
    double x_value = 0, base_value = 0;
    if (x_.is_matrix())
      x = gpu_read(ec, gpu, x_);
    else
      x_value = number(ec, x_);
    if (base_.is_matrix())
      b = gpu_read(ec, gpu, base_);
    else
      base_value = number(ec, base_);
    if (x_.is_matrix() && base_.is_matrix())
      DMLRT_REQUIRE(
          (b->rows() == x->rows() || b->rows() == 1) && (b->cols() == x->cols() || b->cols() == 1),
          ShapeError,
          "log: base of shape " << kernels::dims_string(b->rows(), b->cols())
                                << " does not fit x of shape "
                                << kernels::dims_string(x->rows(), x->cols())
                                << " (needs the same shape or a row/column vector)");
    const mem::DeviceMatrix* xd = x_.is_matrix() ? &x.dense(gpu) : nullptr;
    const mem::DeviceMatrix* bd = base_.is_matrix() ? &b.dense(gpu) : nullptr;
    const mem::DeviceMatrix& shape = xd != nullptr ? *xd : *bd;
    const int64_t rows = shape.rows(), cols = shape.cols();
    // A scalar x has a (rows, cols) matrix base, which the kernel reads without broadcasting.
    const int64_t br = bd != nullptr ? bd->rows() : 1, bc = bd != nullptr ? bd->cols() : 1;
    mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                     gpu.stream(), "gpu_log output");
    if (gpu.dtype() == mem::DType::kFloat64)
      kernels::cuda::launch_log_base(xd != nullptr ? xd->values_as<double>() : nullptr, x_value,
                                     bd != nullptr ? bd->values_as<double>() : nullptr, base_value,
                                     br, bc, out.values_as<double>(), rows, cols, gpu.stream());
    else
      kernels::cuda::launch_log_base(xd != nullptr ? xd->values_as<float>() : nullptr, x_value,
                                     bd != nullptr ? bd->values_as<float>() : nullptr, base_value,
                                     br, bc, out.values_as<float>(), rows, cols, gpu.stream());
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }
#endif

  Operand x_, base_, out_;
};

}  // namespace

InstructionPtr make_unary(InstructionText text) {
  // CPInstructionParser: log is the Unary form when its third field is the thread count (or it
  // has only in°out, the GPU layout), else the Binary form with a base.
  if (text.opcode == "log" && text.fields.size() >= 3 && !is_integer_text(text.fields[2]))
    return std::make_unique<LogBaseInstruction>(std::move(text));
  return std::make_unique<UnaryInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
