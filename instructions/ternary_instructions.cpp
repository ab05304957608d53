// Ternary instructions: ifelse (`c°a°b°out[°k]`) and the axpy forms +* / -* (`X°s°Y°out[°k]`,
// X + s*Y and X - s*Y). Any input may be a scalar or a matrix; matrices must agree in shape and
// 1x1 matrices act as scalars (SystemDS ternaryOperations). All-scalar inputs give a scalar.
// Forms with a matrix run on the GPU too (kernels/cuda/elementwise launch_ternary); all-scalar
// forms stay on the CPU (host arithmetic, no device work worth a launch).
#include <algorithm>
#include <string>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/ternary.h"

#ifdef DMLRT_WITH_CUDA
#include "kernels/cuda/elementwise.h"
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {
namespace {

using kernels::cpu::TernaryArg;
using kernels::cpu::TernaryOp;

class TernaryInstruction final : public Instruction {
 public:
  explicit TernaryInstruction(InstructionText t) : Instruction(std::move(t)) {
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

  bool has_gpu_impl() const override { return out_.is_matrix(); }

  void execute(ExecutionContext& ec) override {
    if (!out_.is_matrix()) {
      execute_scalar(ec);
      return;
    }
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu) {
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec))) return execute_gpu(ec, *gpu);
    }
#endif
    std::shared_ptr<const kernels::MatrixBlock> blocks[3];
    TernaryArg args[3];
    Dims dims[3];
    for (int i = 0; i < 3; ++i) {
      if (in_[i].is_matrix()) {
        blocks[i] = ec.matrix(in_[i]);
        args[i].matrix = blocks[i].get();
        dims[i] = {true, blocks[i]->rows(), blocks[i]->cols()};
      } else {
        args[i].value = to_number(ec.scalar(in_[i]));
      }
    }
    int64_t rows = 1, cols = 1;
    output_shape(dims, &rows, &cols);
    ec.set_matrix(out_.name, kernels::cpu::ternary(op_, args[0], args[1], args[2], rows, cols));
  }

 private:
  double to_number(const ScalarValue& v) const {
    try {
      return v.to_double();
    } catch (const RuntimeError&) {
      DMLRT_FAIL(RuntimeError, opcode() << ": string scalar '" << v.to_string()
                                        << "' cannot be combined with a matrix");
    }
  }

  // The shape of a matrix input (is_matrix false for a scalar operand).
  struct Dims {
    bool is_matrix = false;
    int64_t rows = 1, cols = 1;
    bool scalar_like() const { return !is_matrix || (rows == 1 && cols == 1); }
  };

  // The output shape: the common shape of the inputs that are not scalar-like (scalars and 1x1
  // matrices broadcast); with an empty matrix input the output takes its shape (max would miss 0
  // dims). Throws ShapeError when the full-shape inputs disagree. Shared by both backends.
  void output_shape(const Dims (&dims)[3], int64_t* rows, int64_t* cols) const {
    int64_t r = 1, c = 1;
    for (const Dims& d : dims)
      if (!d.scalar_like()) {
        r = std::max(r, d.rows);
        c = std::max(c, d.cols);
      }
    for (const Dims& d : dims)
      if (d.is_matrix && (d.rows == 0 || d.cols == 0)) {
        r = d.rows;
        c = d.cols;
      }
    for (const Dims& d : dims)
      DMLRT_REQUIRE(d.scalar_like() || (d.rows == r && d.cols == c), ShapeError,
                    opcode() << ": matrix operands differ in shape: " << shapes(dims));
    *rows = r;
    *cols = c;
  }

  static std::string shapes(const Dims (&dims)[3]) {
    std::string s;
    for (int i = 0; i < 3; ++i) {
      if (i) s += ", ";
      s += dims[i].is_matrix ? kernels::dims_string(dims[i].rows, dims[i].cols)
                             : std::string("scalar");
    }
    return s;
  }

  // Device bytes of the matrix inputs and the output from the metadata (-1 when unknown).
  int64_t operand_bytes(ExecutionContext& ec) const {
    int64_t total = 0, out_rows = 1, out_cols = 1;
    const mem::GpuSession* gpu = ec.options().gpu.get();
    for (const Operand& o : in_) {
      if (!o.is_matrix()) continue;
      const MatrixMeta& meta = ec.matrix_object(o.name)->meta();
      const int64_t b = dense_device_bytes(gpu, meta.rows, meta.cols);
      if (b < 0) return -1;
      total += b;
      out_rows = std::max(out_rows, meta.rows);
      out_cols = std::max(out_cols, meta.cols);
    }
    return total + dense_device_bytes(gpu, out_rows, out_cols);
  }

#ifdef DMLRT_WITH_CUDA
  // Full-shape matrix inputs are read on the device (sparse ones through a dense temporary);
  // scalars and broadcast 1x1 matrices are passed by value, as the CPU kernel does — a 1x1 whose
  // only copy is on the device comes back first (one element, one sync; the device copy stays).
  // The output is dense.
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    DeviceRead reads[3];
    Dims dims[3];
    double values[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
      if (in_[i].is_matrix()) {
        reads[i] = gpu_read(ec, gpu, in_[i]);
        dims[i] = {true, reads[i]->rows(), reads[i]->cols()};
      } else {
        values[i] = to_number(ec.scalar(in_[i]));
      }
    }
    int64_t rows = 1, cols = 1;
    output_shape(dims, &rows, &cols);
    const int64_t n = rows * cols;
    const mem::DeviceMatrix* data[3] = {nullptr, nullptr, nullptr};
    for (int i = 0; i < 3; ++i) {
      if (!dims[i].is_matrix || n == 0) continue;
      if (dims[i].rows == rows && dims[i].cols == cols)
        data[i] = &reads[i].dense(gpu);
      else  // a 1x1 broadcast over a larger output: its value, from the host copy
        values[i] = ec.matrix(in_[i])->get(0, 0);
    }
    mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                     gpu.stream(), "gpu_" + opcode() + " output");
    if (gpu.dtype() == mem::DType::kFloat64)
      launch<double>(data, values, out, n, gpu);
    else
      launch<float>(data, values, out, n, gpu);
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }

  template <typename T>
  void launch(const mem::DeviceMatrix* const (&data)[3], const double (&values)[3],
              mem::DeviceMatrix& out, int64_t n, mem::GpuSession& gpu) const {
    kernels::cuda::CellArg<T> args[3];
    for (int i = 0; i < 3; ++i) {
      args[i].data = data[i] ? data[i]->values_as<T>() : nullptr;
      args[i].value = values[i];
    }
    kernels::cuda::launch_ternary(op_, args[0], args[1], args[2], out.values_as<T>(), n,
                                  gpu.stream());
  }
#endif

  void execute_scalar(ExecutionContext& ec) {
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
    ec.set_scalar(out_, ScalarValue::fp64(kernels::cpu::ternary_apply(
                            op_, c.to_double(), a.to_double(), b.to_double())));
  }

  TernaryOp op_ = TernaryOp::kIfElse;
  Operand in_[3];
  Operand out_;
};

}  // namespace

InstructionPtr make_ternary(InstructionText text) {
  return std::make_unique<TernaryInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
