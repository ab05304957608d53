// Indexing instructions rightIndex (X[rl:ru, cl:cu]) and leftIndex (X[rl:ru, cl:cu] = Y or = s),
// SystemDS layouts (reference/systemds-format.md §3): 1-based inclusive scalar bounds, checked
// here (the same checks and messages on both backends); slicing and assignment in
// kernels/cpu/indexing, and on the GPU in kernels/cuda/indexing (dense) and kernels/cuda/csr_ops
// (CSR slices that never densify the whole input).
#include <cmath>
#include <initializer_list>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/indexing.h"

#ifdef DMLRT_WITH_CUDA
#include <cuda_runtime_api.h>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/csr_ops.h"
#include "kernels/cuda/indexing.h"
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {
namespace {

// SystemDS reads index scalars with getLongValue(): doubles go through UtilFunctions.toLong,
// sign(x) * floor(|x| + 2^-53).
int64_t long_value(const ScalarValue& v, const char* what) {
  if (v.type() != ValueType::kFP64 && v.type() != ValueType::kFP32) return v.to_int();
  const double d = v.to_double();
  DMLRT_REQUIRE(std::isfinite(d), RuntimeError, "invalid " << what << " index " << d);
  const double s = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
  return static_cast<int64_t>(s * std::floor(std::fabs(d) + std::ldexp(1.0, -53)));
}

// 1-based inclusive index range [rl:ru, cl:cu].
struct IndexRange {
  int64_t rl, ru, cl, cu;
  int64_t rows() const { return ru - rl + 1; }
  int64_t cols() const { return cu - cl + 1; }
};

// Shared parsing of the four bound operands and the bounds check against the indexed matrix.
class IndexingInstruction : public Instruction {
 protected:
  IndexingInstruction(InstructionText t, const char* name)
      : Instruction(std::move(t)), name_(name) {}

  void parse_bounds(size_t first) {
    for (size_t i = 0; i < 4; ++i) {
      bounds_[i] = operand(first + i);
      DMLRT_REQUIRE(bounds_[i].is_scalar(), ParseError,
                    where() << ": " << name_ << " expects scalar index bounds, got "
                            << bounds_[i].to_string());
    }
  }

  // Both instructions run on the GPU (dense kernels; CSR slices for rightIndex).
  bool has_gpu_impl() const override { return true; }

  // Device bytes of `ops` (each counted twice: input and a result of at most its size) from the
  // metadata; -1 when a shape is unknown.
  static int64_t operand_bytes(ExecutionContext& ec, std::initializer_list<const Operand*> ops) {
    int64_t total = 0;
    for (const Operand* o : ops) {
      if (!o->is_matrix()) continue;
      const MatrixMeta& m = ec.matrix_object(o->name)->meta();
      const int64_t b = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
      if (b < 0) return -1;
      total += 2 * b;
    }
    return total;
  }

  IndexRange range(ExecutionContext& ec, const kernels::MatrixBlock& x) const {
    return range(ec, x.rows(), x.cols());
  }
  IndexRange range(ExecutionContext& ec, int64_t rows, int64_t cols) const {
    IndexRange r{long_value(ec.scalar(bounds_[0]), "row"), long_value(ec.scalar(bounds_[1]), "row"),
                 long_value(ec.scalar(bounds_[2]), "column"),
                 long_value(ec.scalar(bounds_[3]), "column")};
    DMLRT_REQUIRE(r.rl <= r.ru, ShapeError,
                  name_ << ": rows " << r.rl << ":" << r.ru
                        << " is an empty range (lower > upper) for a "
                        << kernels::dims_string(rows, cols) << " matrix");
    DMLRT_REQUIRE(r.cl <= r.cu, ShapeError,
                  name_ << ": columns " << r.cl << ":" << r.cu
                        << " is an empty range (lower > upper) for a "
                        << kernels::dims_string(rows, cols) << " matrix");
    DMLRT_REQUIRE(r.rl >= 1 && r.ru <= rows, ShapeError,
                  name_ << ": rows " << r.rl << ":" << r.ru << " out of bounds for a "
                        << kernels::dims_string(rows, cols) << " matrix");
    DMLRT_REQUIRE(r.cl >= 1 && r.cu <= cols, ShapeError,
                  name_ << ": columns " << r.cl << ":" << r.cu << " out of bounds for a "
                        << kernels::dims_string(rows, cols) << " matrix");
    return r;
  }

  const char* name_;
  Operand bounds_[4];
};

#ifdef DMLRT_WITH_CUDA
// One int32 of device memory, synchronously (a CSR slice's nnz sizes its output).
int64_t read_device_int32(mem::GpuSession& gpu, const int32_t* p) {
  int32_t v = 0;
  DMLRT_CUDA_CHECK(cudaMemcpyAsync(&v, p, sizeof v, cudaMemcpyDeviceToHost, gpu.cuda_stream()));
  DMLRT_CUDA_CHECK(cudaStreamSynchronize(gpu.cuda_stream()));
  return v;
}

// rows [r0, r1) x columns [c0, c1) of an int32 CSR as a CSR: per-row counts, a scan, one
// synchronous read of the nnz, then the ordered copy (columns rebased).
mem::DeviceMatrix slice_csr(mem::GpuSession& gpu, const mem::DeviceMatrix& x, int64_t r0,
                            int64_t r1, int64_t c0, int64_t c1) {
  const int64_t rows = r1 - r0, cols = c1 - c0;
  const std::string what = "gpu_rightIndex output";
  mem::DeviceAllocation rp =
      gpu.scratch(static_cast<size_t>(rows + 1) * sizeof(int32_t), what + " (csr row offsets)");
  kernels::cuda::launch_csr_slice_count(static_cast<const int32_t*>(x.row_ptr()),
                                        static_cast<const int32_t*>(x.col_idx()), r0, r1, c0, c1,
                                        x.cols(), rp.as<int32_t>(), gpu.stream());
  const size_t ws_bytes = kernels::cuda::csr_scan_workspace_bytes(rows + 1);
  {
    mem::DeviceAllocation ws = gpu.scratch(ws_bytes, "csr slice scan workspace");
    kernels::cuda::launch_csr_scan(rp.as<int32_t>(), rows + 1, ws.data(), ws_bytes, gpu.stream());
  }
  const int64_t nnz = read_device_int32(gpu, rp.as<int32_t>() + rows);
  const size_t es = mem::dtype_size(gpu.dtype());
  mem::DeviceAllocation ci =
      gpu.scratch(static_cast<size_t>(nnz) * sizeof(int32_t), what + " (csr column indices)");
  mem::DeviceAllocation vals = gpu.scratch(static_cast<size_t>(nnz) * es, what + " (csr values)");
  if (nnz > 0)
    with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_csr_slice_fill(static_cast<const int32_t*>(x.row_ptr()),
                                           static_cast<const int32_t*>(x.col_idx()),
                                           x.values_as<T>(), r0, r1, c0, c1, rp.as<int32_t>(),
                                           ci.as<int32_t>(), vals.as<T>(), gpu.stream());
    });
  return mem::DeviceMatrix::adopt_csr(rows, cols, nnz, gpu.dtype(), mem::IndexWidth::k32,
                                      std::move(rp), std::move(ci), std::move(vals));
}

// rows [r0, r1) x columns [c0, c1) of a CSR (either index width) into a dense (zeroed) result:
// only the selected rows are read.
mem::DeviceMatrix slice_csr_to_dense(mem::GpuSession& gpu, const mem::DeviceMatrix& x, int64_t r0,
                                     int64_t r1, int64_t c0, int64_t c1, const std::string& what) {
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), r1 - r0, c1 - c0, gpu.dtype(),
                                                   gpu.stream(), what, /*zero=*/true);
  if (x.is_empty_sparse()) return out;
  with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (x.index_width() == mem::IndexWidth::k32)
      kernels::cuda::launch_csr_slice_to_dense(
          static_cast<const int32_t*>(x.row_ptr()), static_cast<const int32_t*>(x.col_idx()),
          x.values_as<T>(), r0, r1, c0, c1, out.values_as<T>(), gpu.stream());
    else
      kernels::cuda::launch_csr_slice_to_dense(
          static_cast<const int64_t*>(x.row_ptr()), static_cast<const int64_t*>(x.col_idx()),
          x.values_as<T>(), r0, r1, c0, c1, out.values_as<T>(), gpu.stream());
  });
  out.set_nnz(-1);  // the zero fill made it 0; the slice's count is unknown
  return out;
}
#endif

// rightIndex X rl ru cl cu out: out is a matrix, or a scalar when SystemDS indexes one cell
// (as.scalar(X[i,j]) and X[i,j] compile to a SCALAR output).
class RightIndex final : public IndexingInstruction {
 public:
  explicit RightIndex(InstructionText t) : IndexingInstruction(std::move(t), "rightIndex") {
    expect_fields(6);
    in_ = operand(0);
    DMLRT_REQUIRE(in_.is_matrix(), ParseError,
                  where() << ": rightIndex expects a matrix input, got " << in_.to_string());
    parse_bounds(1);
    out_ = operand(5);
    DMLRT_REQUIRE(
        out_.is_matrix() || out_.is_scalar(), ParseError,
        where() << ": rightIndex expects a matrix or scalar output, got " << out_.to_string());
  }

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu)
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec, {&in_})))
        return execute_gpu(ec, *gpu);
#endif
    auto x = ec.matrix(in_);
    const IndexRange r = range(ec, *x);
    if (out_.is_scalar()) {
      DMLRT_REQUIRE(r.rows() == 1 && r.cols() == 1, ShapeError,
                    "rightIndex: a scalar output needs a single cell, got rows "
                        << r.rl << ":" << r.ru << ", columns " << r.cl << ":" << r.cu << " of a "
                        << shape_of(*x) << " matrix");
      ec.set_scalar(out_, ScalarValue::fp64(x->get(r.rl - 1, r.cl - 1)));
      return;
    }
    ec.set_matrix(out_.name, kernels::cpu::slice(*x, r.rl - 1, r.ru, r.cl - 1, r.cu));
  }

 private:
#ifdef DMLRT_WITH_CUDA
  // Dense input: the slice kernel. CSR input: a CSR slice when the result is expected to be
  // sparse (the input's density over the selected cells, SystemDS's format rule), else only the
  // selected rows scattered into a dense result. A scalar output reads one cell (one sync).
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    DeviceRead x = gpu_read(ec, gpu, in_);
    const IndexRange r = range(ec, x->rows(), x->cols());
    const int64_t r0 = r.rl - 1, r1 = r.ru, c0 = r.cl - 1, c1 = r.cu;
    if (out_.is_scalar()) {
      DMLRT_REQUIRE(r.rows() == 1 && r.cols() == 1, ShapeError,
                    "rightIndex: a scalar output needs a single cell, got rows "
                        << r.rl << ":" << r.ru << ", columns " << r.cl << ":" << r.cu << " of a "
                        << kernels::dims_string(x->rows(), x->cols()) << " matrix");
      double v = 0;
      if (!x->is_sparse()) {
        v = gpu.read_element(*x, r0, c0);
      } else if (!x->is_empty_sparse()) {
        mem::DeviceMatrix cell = slice_csr_to_dense(gpu, *x, r0, r1, c0, c1, "gpu_rightIndex cell");
        v = gpu.read_element(cell, 0, 0);
      }
      ec.set_scalar(out_, ScalarValue::fp64(v));
      return;
    }
    const int64_t rows = r.rows(), cols = r.cols();
    if (x->is_empty_sparse()) {
      set_gpu_output(
          ec, gpu, out_.name,
          mem::DeviceMatrix::csr(gpu.memory(), rows, cols, 0, gpu.dtype(), mem::IndexWidth::k32,
                                 gpu.stream(), "gpu_rightIndex output"));
      return;
    }
    if (x->is_sparse()) {
      const double expected_nnz = static_cast<double>(x->nnz()) * static_cast<double>(rows) /
                                  static_cast<double>(x->rows()) * static_cast<double>(cols) /
                                  static_cast<double>(x->cols());
      if (x->index_width() == mem::IndexWidth::k32 &&
          kernels::MatrixBlock::prefers_sparse(rows, cols,
                                               static_cast<int64_t>(std::ceil(expected_nnz))))
        set_gpu_output(ec, gpu, out_.name, slice_csr(gpu, *x, r0, r1, c0, c1));
      else
        set_gpu_output(ec, gpu, out_.name,
                       slice_csr_to_dense(gpu, *x, r0, r1, c0, c1, "gpu_rightIndex output"));
      return;
    }
    mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                     gpu.stream(), "gpu_rightIndex output");
    with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kernels::cuda::launch_slice(x->values_as<T>(), x->cols(), r0, r1, c0, c1, out.values_as<T>(),
                                  gpu.stream());
    });
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }
#endif

  Operand in_, out_;
};

// leftIndex X rhs rl ru cl cu out: out = X with [rl:ru, cl:cu] replaced by the matrix rhs (of the
// range's shape) or by the scalar rhs. SystemDS only emits scalar rhs for single cells; a scalar
// over a larger range fills it.
class LeftIndex final : public IndexingInstruction {
 public:
  explicit LeftIndex(InstructionText t) : IndexingInstruction(std::move(t), "leftIndex") {
    expect_fields(7);
    in_ = operand(0);
    rhs_ = operand(1);
    DMLRT_REQUIRE(in_.is_matrix(), ParseError,
                  where() << ": leftIndex expects a matrix target, got " << in_.to_string());
    DMLRT_REQUIRE(rhs_.is_matrix() || rhs_.is_scalar(), ParseError,
                  where() << ": leftIndex expects a matrix or scalar right-hand side, got "
                          << rhs_.to_string());
    parse_bounds(2);
    out_ = operand(6);
    DMLRT_REQUIRE(out_.is_matrix(), ParseError,
                  where() << ": leftIndex expects a matrix output, got " << out_.to_string());
  }

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu)
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec, {&in_, &rhs_})))
        return execute_gpu(ec, *gpu);
#endif
    auto x = ec.matrix(in_);
    const IndexRange r = range(ec, *x);
    if (rhs_.is_scalar()) {
      const double v = ec.scalar(rhs_).to_double();
      ec.set_matrix(out_.name, kernels::cpu::assign_scalar(*x, v, r.rl - 1, r.ru, r.cl - 1, r.cu));
      return;
    }
    auto y = ec.matrix(rhs_);
    DMLRT_REQUIRE(y->rows() == r.rows() && y->cols() == r.cols(), ShapeError,
                  "leftIndex: the right-hand side is "
                      << shape_of(*y) << " but the target range [" << r.rl << ":" << r.ru << ", "
                      << r.cl << ":" << r.cu << "] of the " << shape_of(*x) << " matrix is "
                      << r.rows() << "x" << r.cols());
    ec.set_matrix(out_.name, kernels::cpu::assign_range(*x, *y, r.rl - 1, r.cl - 1));
  }

 private:
#ifdef DMLRT_WITH_CUDA
  // The result is a dense copy of the target (a CSR target is densified into it) with the range
  // overwritten: the target itself is never written, since other variables may share it.
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    DeviceRead x = gpu_read(ec, gpu, in_);
    const IndexRange r = range(ec, x->rows(), x->cols());
    const int64_t r0 = r.rl - 1, r1 = r.ru, c0 = r.cl - 1, c1 = r.cu;
    double value = 0;
    DeviceRead y;
    if (rhs_.is_scalar()) {
      value = ec.scalar(rhs_).to_double();
    } else {
      y = gpu_read(ec, gpu, rhs_);
      DMLRT_REQUIRE(y->rows() == r.rows() && y->cols() == r.cols(), ShapeError,
                    "leftIndex: the right-hand side is "
                        << kernels::dims_string(y->rows(), y->cols()) << " but the target range ["
                        << r.rl << ":" << r.ru << ", " << r.cl << ":" << r.cu << "] of the "
                        << kernels::dims_string(x->rows(), x->cols()) << " matrix is " << r.rows()
                        << "x" << r.cols());
    }
    const std::string what = "gpu_leftIndex output";
    mem::DeviceMatrix out;  // (m, n) row-major
    if (x->is_sparse()) {
      out = gpu.to_dense(*x, what);
    } else {
      out = mem::DeviceMatrix::dense(gpu.memory(), x->rows(), x->cols(), gpu.dtype(), gpu.stream(),
                                     what);
      with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kernels::cuda::launch_copy_block(x->values_as<T>(), x->rows(), x->cols(),
                                         out.values_as<T>(), x->cols(), 0, 0, gpu.stream());
      });
    }
    const mem::DeviceMatrix* yd = nullptr;
    if (!rhs_.is_scalar() && !y->is_empty_sparse()) yd = &y.dense(gpu);
    with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (yd == nullptr)  // a scalar, or an empty CSR right-hand side (zeros)
        kernels::cuda::launch_fill_block(out.values_as<T>(), out.cols(), r0, r1, c0, c1,
                                         static_cast<T>(value), gpu.stream());
      else
        kernels::cuda::launch_copy_block(yd->values_as<T>(), yd->rows(), yd->cols(),
                                         out.values_as<T>(), out.cols(), r0, c0, gpu.stream());
    });
    out.set_nnz(-1);
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }
#endif

  Operand in_, rhs_, out_;
};

}  // namespace

InstructionPtr make_indexing(InstructionText text) {
  const std::string op = text.opcode;
  if (op == "rightindex") return std::make_unique<RightIndex>(std::move(text));
  if (op == "leftindex") return std::make_unique<LeftIndex>(std::move(text));
  DMLRT_FAIL(ParseError, "indexing: unknown opcode '" << op << "'");
}

}  // namespace dmlrt::inst
