// Reorganisation instructions r' rshape rdiag rev (SystemDS layouts, reference/systemds-format.md
// §3): operand parsing and shape checks here, the work in kernels/cpu/reorg on the CPU and in
// kernels/cuda/{reorg,csr_ops} on the GPU (CSR inputs of r', rev and rdiag stay sparse there;
// rshape densifies them).
#include <cmath>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/reorg.h"

#ifdef DMLRT_WITH_CUDA
#include "kernels/cuda/csr_ops.h"
#include "kernels/cuda/reorg.h"
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {
namespace {

// SystemDS reads dimension scalars with getLongValue(): doubles go through UtilFunctions.toLong,
// sign(x) * floor(|x| + 2^-53), so 2.9999999999999996 is 2 but values within an ulp of an
// integer round to it.
int64_t long_value(const ScalarValue& v) {
  if (v.type() != ValueType::kFP64 && v.type() != ValueType::kFP32) return v.to_int();
  const double d = v.to_double();
  // Beyond int64 the conversion would be undefined; no matrix has 2^63 rows anyway.
  DMLRT_REQUIRE(std::isfinite(d) && std::fabs(d) < 9.2e18, RuntimeError,
                "invalid dimension value " << format_double_java(d));
  const double s = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
  return static_cast<int64_t>(s * std::floor(std::fabs(d) + std::ldexp(1.0, -53)));
}

// rows x cols == cells without int64 wrap-around (2^32 x 2^32 is not 0 cells).
bool same_cells(int64_t rows, int64_t cols, int64_t cells) {
  return static_cast<__int128>(rows) * cols == cells;
}

// Base of the four reorg instructions: one matrix input, one matrix output.
class ReorgInstruction : public Instruction {
 public:
  // On the GPU when the placement allows (every reorg op has a GPU path), else on the CPU.
  void execute(ExecutionContext& ec) final {
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu)
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec))) return execute_gpu(ec, *gpu);
#endif
    execute_cpu(ec);
  }

 protected:
  explicit ReorgInstruction(InstructionText t) : Instruction(std::move(t)) {}

  virtual void execute_cpu(ExecutionContext& ec) = 0;
#ifdef DMLRT_WITH_CUDA
  virtual void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) = 0;
#endif

  void parse_in_out(size_t in_pos, size_t out_pos) {
    in_ = operand(in_pos);
    out_ = operand(out_pos);
    DMLRT_REQUIRE(
        in_.is_matrix(), ParseError,
        where() << ": " << opcode() << " expects a matrix input, got " << in_.to_string());
    DMLRT_REQUIRE(
        out_.is_matrix(), ParseError,
        where() << ": " << opcode() << " expects a matrix output, got " << out_.to_string());
  }

  // Every reorg op has a GPU implementation (dense kernels; CSR paths where noted).
  bool has_gpu_impl() const override { return true; }

  // Device bytes of the input and the output from the metadata (-1 when unknown). The output is
  // at most the input's size (rdiag of a vector gives a CSR of the vector's nonzeros on the GPU).
  int64_t operand_bytes(ExecutionContext& ec) const {
    const MatrixMeta& m = ec.matrix_object(in_.name)->meta();
    const int64_t in = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
    return in < 0 ? -1 : 2 * in;
  }

  Operand in_, out_;
};

#ifdef DMLRT_WITH_CUDA
bool is_csr32(const mem::DeviceMatrix& m) {
  return m.is_sparse() && m.index_width() == mem::IndexWidth::k32;
}
#endif

// r' in out [k]: transpose.
class Transpose final : public ReorgInstruction {
 public:
  explicit Transpose(InstructionText t) : ReorgInstruction(std::move(t)) {
    expect_fields(2, 3);
    parse_in_out(0, 1);
  }
  void execute_cpu(ExecutionContext& ec) override {
    ec.set_matrix(out_.name, kernels::cpu::transpose(*ec.matrix(in_)));
  }

 private:
#ifdef DMLRT_WITH_CUDA
  // CSR: cuSPARSE csr2csc, the output stays CSR (int64-index CSRs take the dense path: csr2csc
  // is int32 only). Dense: the tiled transpose kernel.
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) override {
    DeviceRead x = gpu_read(ec, gpu, in_);
    if (x->is_empty_sparse() || is_csr32(*x)) {
      set_gpu_output(ec, gpu, out_.name, gpu.transpose(*x, "gpu_r' output"));
      return;
    }
    const mem::DeviceMatrix& xd = x.dense(gpu);  // (m, n) row-major
    mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), xd.cols(), xd.rows(),
                                                     gpu.dtype(), gpu.stream(), "gpu_r' output");
    with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_transpose(xd.values_as<T>(), out.values_as<T>(), xd.rows(), xd.cols(),
                                      gpu.stream());
    });
    out.set_nnz(x->nnz());
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }
#endif
};

// rev in out [k]: reverse the row order.
class Reverse final : public ReorgInstruction {
 public:
  explicit Reverse(InstructionText t) : ReorgInstruction(std::move(t)) {
    expect_fields(2, 3);
    parse_in_out(0, 1);
  }
  void execute_cpu(ExecutionContext& ec) override {
    ec.set_matrix(out_.name, kernels::cpu::reverse_rows(*ec.matrix(in_)));
  }

 private:
#ifdef DMLRT_WITH_CUDA
  // CSR (int32): rows reversed in CSR form, nnz unchanged (no densification, no sync).
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) override {
    DeviceRead x = gpu_read(ec, gpu, in_);
    if (x->is_empty_sparse() || is_csr32(*x)) {
      mem::DeviceMatrix out =
          mem::DeviceMatrix::csr(gpu.memory(), x->rows(), x->cols(), x->nnz(), gpu.dtype(),
                                 mem::IndexWidth::k32, gpu.stream(), "gpu_rev output");
      with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kernels::cuda::launch_csr_reverse_rows(
            static_cast<const int32_t*>(x->row_ptr()), static_cast<const int32_t*>(x->col_idx()),
            x->values_as<T>(), x->rows(), x->nnz(), static_cast<int32_t*>(out.row_ptr()),
            static_cast<int32_t*>(out.col_idx()), out.values_as<T>(), gpu.stream());
      });
      set_gpu_output(ec, gpu, out_.name, std::move(out));
      return;
    }
    const mem::DeviceMatrix& xd = x.dense(gpu);  // (m, n) row-major
    mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), xd.rows(), xd.cols(),
                                                     gpu.dtype(), gpu.stream(), "gpu_rev output");
    with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_reverse_rows(xd.values_as<T>(), out.values_as<T>(), xd.rows(),
                                         xd.cols(), gpu.stream());
    });
    out.set_nnz(x->nnz());
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }
#endif
};

// rdiag in out [k]: column vector -> diagonal matrix, square matrix -> diagonal as a column.
class Diag final : public ReorgInstruction {
 public:
  explicit Diag(InstructionText t) : ReorgInstruction(std::move(t)) {
    expect_fields(2, 3);
    parse_in_out(0, 1);
  }
  void execute_cpu(ExecutionContext& ec) override {
    auto in = ec.matrix(in_);
    // SystemDS's validator rejects other shapes at compile time ("diag can either: (1) create
    // diagonal matrix from (n x 1) matrix, or (2) take diagonal from a square matrix").
    DMLRT_REQUIRE(
        in->cols() == 1 || in->rows() == in->cols(), ShapeError,
        "rdiag: expects a column vector (n x 1) or a square matrix, got " << shape_of(*in));
    ec.set_matrix(out_.name, kernels::cpu::diag(*in));
  }

 private:
#ifdef DMLRT_WITH_CUDA
  // vector -> diagonal: a CSR result with the vector's nonzeros (a dense vector is converted to
  // CSR first), never an n x n dense matrix. square -> vector: dense output; a CSR input is
  // searched row by row, not densified.
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) override {
    DeviceRead x = gpu_read(ec, gpu, in_);
    const int64_t n = x->rows();
    DMLRT_REQUIRE(x->cols() == 1 || n == x->cols(), ShapeError,
                  "rdiag: expects a column vector (n x 1) or a square matrix, got "
                      << kernels::dims_string(x->rows(), x->cols()));
    if (x->cols() == 1) {
      const mem::DeviceMatrix& xs = x.csr(gpu);
      if (xs.is_empty_sparse() || is_csr32(xs)) {
        mem::DeviceMatrix out =
            mem::DeviceMatrix::csr(gpu.memory(), n, n, xs.nnz(), gpu.dtype(), mem::IndexWidth::k32,
                                   gpu.stream(), "gpu_rdiag output");
        with_dtype(gpu.dtype(), [&](auto tag) {
          using T = decltype(tag);
          kernels::cuda::launch_csr_diag_from_vector(
              static_cast<const int32_t*>(xs.row_ptr()), xs.values_as<T>(), n, xs.nnz(),
              static_cast<int32_t*>(out.row_ptr()), static_cast<int32_t*>(out.col_idx()),
              out.values_as<T>(), gpu.stream());
        });
        set_gpu_output(ec, gpu, out_.name, std::move(out));
        return;
      }
      // int64-index vectors (over 2^31 rows): the dense kernel.
      const mem::DeviceMatrix& xd = x.dense(gpu);
      mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), n, n, gpu.dtype(),
                                                       gpu.stream(), "gpu_rdiag output");
      with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kernels::cuda::launch_diag_from_vector(xd.values_as<T>(), out.values_as<T>(), n,
                                               gpu.stream());
      });
      set_gpu_output(ec, gpu, out_.name, std::move(out));
      return;
    }
    // (n, n) -> (n, 1)
    mem::DeviceMatrix out =
        mem::DeviceMatrix::dense(gpu.memory(), n, 1, gpu.dtype(), gpu.stream(), "gpu_rdiag output",
                                 /*zero=*/x->is_empty_sparse());
    if (x->is_empty_sparse()) {
      set_gpu_output(ec, gpu, out_.name, std::move(out));
      return;
    }
    with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (!x->is_sparse())
        kernels::cuda::launch_diag_to_vector(x->values_as<T>(), out.values_as<T>(), n,
                                             gpu.stream());
      else if (x->index_width() == mem::IndexWidth::k32)
        kernels::cuda::launch_csr_diag_to_vector(
            static_cast<const int32_t*>(x->row_ptr()), static_cast<const int32_t*>(x->col_idx()),
            x->values_as<T>(), n, out.values_as<T>(), gpu.stream());
      else
        kernels::cuda::launch_csr_diag_to_vector(
            static_cast<const int64_t*>(x->row_ptr()), static_cast<const int64_t*>(x->col_idx()),
            x->values_as<T>(), n, out.values_as<T>(), gpu.stream());
    });
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }
#endif
};

// rshape in rows cols dims byrow out: matrix(X, rows=, cols=, byrow=). `dims` is SystemDS's
// tensor-shape operand (-1 for matrices) and is not used.
class Reshape final : public ReorgInstruction {
 public:
  explicit Reshape(InstructionText t) : ReorgInstruction(std::move(t)) {
    expect_fields(6);
    parse_in_out(0, 5);
    rows_ = operand(1);
    cols_ = operand(2);
    byrow_ = operand(4);
    for (const Operand* op : {&rows_, &cols_, &byrow_})
      DMLRT_REQUIRE(op->is_scalar(), ParseError,
                    where() << ": rshape expects scalar rows, cols and byrow operands, got "
                            << op->to_string());
  }
  void execute_cpu(ExecutionContext& ec) override {
    auto in = ec.matrix(in_);
    const int64_t rows = long_value(ec.scalar(rows_));
    const int64_t cols = long_value(ec.scalar(cols_));
    const bool byrow = ec.scalar(byrow_).to_bool();
    DMLRT_REQUIRE(rows >= 0 && cols >= 0 && same_cells(rows, cols, in->size()), ShapeError,
                  "rshape: cannot reshape a " << shape_of(*in) << " matrix (" << in->size()
                                              << " cells) into " << rows << "x" << cols << " ("
                                              << static_cast<double>(rows) * cols << " cells)");
    ec.set_matrix(out_.name, kernels::cpu::reshape(*in, rows, cols, byrow));
  }

 private:
#ifdef DMLRT_WITH_CUDA
  // Dense kernels (a copy by row, the column-major walk otherwise); CSR inputs are densified
  // into a temporary.
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) override {
    DeviceRead x = gpu_read(ec, gpu, in_);
    const int64_t rows = long_value(ec.scalar(rows_));
    const int64_t cols = long_value(ec.scalar(cols_));
    const bool byrow = ec.scalar(byrow_).to_bool();
    DMLRT_REQUIRE(rows >= 0 && cols >= 0 && same_cells(rows, cols, x->size()), ShapeError,
                  "rshape: cannot reshape a " << kernels::dims_string(x->rows(), x->cols())
                                              << " matrix (" << x->size() << " cells) into " << rows
                                              << "x" << cols << " ("
                                              << static_cast<double>(rows) * cols << " cells)");
    if (x->is_empty_sparse()) {  // stays an empty CSR, no device memory
      set_gpu_output(
          ec, gpu, out_.name,
          mem::DeviceMatrix::csr(gpu.memory(), rows, cols, 0, gpu.dtype(), mem::IndexWidth::k32,
                                 gpu.stream(), "gpu_rshape output"));
      return;
    }
    const mem::DeviceMatrix& xd = x.dense(gpu);  // (m, n) row-major
    mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                     gpu.stream(), "gpu_rshape output");
    with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_reshape(xd.values_as<T>(), out.values_as<T>(), xd.rows(), xd.cols(),
                                    rows, cols, byrow, gpu.stream());
    });
    out.set_nnz(x->nnz());
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }
#endif

  Operand rows_, cols_, byrow_;
};

}  // namespace

InstructionPtr make_reorg(InstructionText text) {
  const std::string op = text.opcode;
  if (op == "r'") return std::make_unique<Transpose>(std::move(text));
  if (op == "rev") return std::make_unique<Reverse>(std::move(text));
  if (op == "rdiag") return std::make_unique<Diag>(std::move(text));
  if (op == "rshape") return std::make_unique<Reshape>(std::move(text));
  DMLRT_FAIL(ParseError, "reorg: unknown opcode '" << op << "'");
}

}  // namespace dmlrt::inst
