// Unary aggregates (sum, sum of squares, prod, mean, max, min, var over all cells, rows or
// columns; rowIndexMax/Min) and nrow/ncol/length. Layouts (SystemDS): `in°out°k` (CP; out is a
// scalar for full aggregates, a (m, 1) / (1, n) matrix for row / column ones), `in°out` (GPU),
// `in°out°k°1` for uarimax/uarimin, `in°out[°k]` for nrow/ncol/length (their input may carry the
// literal flag, `X·MATRIX·FP64·false`). Trailing k and flags are accepted and ignored. Every
// aggregate runs on the GPU too (kernels/cuda/reduce); nrow/ncol/length read only metadata.
#include <cctype>
#include <cstdint>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/aggregate.h"

#ifdef DMLRT_WITH_CUDA
#include "kernels/cuda/reduce.h"
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

enum class Direction { kAll, kRow, kCol };
enum class Kind { kAggregate, kIndexMax, kIndexMin };

struct AggregateSpec {
  const char* opcode;
  Kind kind;
  Direction dir;
  cpu::AggOp op;
};

// The plain `+` sums use Kahan summation like the k+ ones (see Note [Kahan summation]).
constexpr AggregateSpec kSpecs[] = {
    {"ua+", Kind::kAggregate, Direction::kAll, cpu::AggOp::kSum},
    {"uak+", Kind::kAggregate, Direction::kAll, cpu::AggOp::kSum},
    {"uar+", Kind::kAggregate, Direction::kRow, cpu::AggOp::kSum},
    {"uark+", Kind::kAggregate, Direction::kRow, cpu::AggOp::kSum},
    {"uac+", Kind::kAggregate, Direction::kCol, cpu::AggOp::kSum},
    {"uack+", Kind::kAggregate, Direction::kCol, cpu::AggOp::kSum},
    {"ua*", Kind::kAggregate, Direction::kAll, cpu::AggOp::kProd},
    {"uar*", Kind::kAggregate, Direction::kRow, cpu::AggOp::kProd},
    {"uac*", Kind::kAggregate, Direction::kCol, cpu::AggOp::kProd},
    {"uamean", Kind::kAggregate, Direction::kAll, cpu::AggOp::kMean},
    {"uarmean", Kind::kAggregate, Direction::kRow, cpu::AggOp::kMean},
    {"uacmean", Kind::kAggregate, Direction::kCol, cpu::AggOp::kMean},
    {"uamax", Kind::kAggregate, Direction::kAll, cpu::AggOp::kMax},
    {"uarmax", Kind::kAggregate, Direction::kRow, cpu::AggOp::kMax},
    {"uacmax", Kind::kAggregate, Direction::kCol, cpu::AggOp::kMax},
    {"uamin", Kind::kAggregate, Direction::kAll, cpu::AggOp::kMin},
    {"uarmin", Kind::kAggregate, Direction::kRow, cpu::AggOp::kMin},
    {"uacmin", Kind::kAggregate, Direction::kCol, cpu::AggOp::kMin},
    {"uasqk+", Kind::kAggregate, Direction::kAll, cpu::AggOp::kSumSq},
    {"uarsqk+", Kind::kAggregate, Direction::kRow, cpu::AggOp::kSumSq},
    {"uacsqk+", Kind::kAggregate, Direction::kCol, cpu::AggOp::kSumSq},
    {"uavar", Kind::kAggregate, Direction::kAll, cpu::AggOp::kVar},
    {"uarvar", Kind::kAggregate, Direction::kRow, cpu::AggOp::kVar},
    {"uacvar", Kind::kAggregate, Direction::kCol, cpu::AggOp::kVar},
    {"uarimax", Kind::kIndexMax, Direction::kRow, cpu::AggOp::kMax},
    {"uarimin", Kind::kIndexMin, Direction::kRow, cpu::AggOp::kMin},
};

class AggregateInstruction final : public Instruction {
 public:
  AggregateInstruction(InstructionText t, const AggregateSpec& spec)
      : Instruction(std::move(t)), spec_(spec) {
    // uarimax/uarimin carry one more flag after k (SystemDS prints `°1`).
    expect_fields(2, spec_.kind == Kind::kAggregate ? 3 : 4);
    in_ = operand(0);
    out_ = operand(1);
    if (num_fields() >= 3)
      DMLRT_REQUIRE(is_integer_text(field(2)), ParseError,
                    where() << ": " << opcode() << ": thread count must be an integer, got '"
                            << field(2) << "'");
    DMLRT_REQUIRE(
        in_.is_matrix(), ParseError,
        where() << ": " << opcode() << " needs a matrix input, got " << name_of(in_.data_type));
    // A full aggregate writes a scalar (a 1x1 matrix is accepted too); row and column
    // aggregates write a matrix.
    if (spec_.dir == Direction::kAll)
      DMLRT_REQUIRE(
          out_.is_scalar() || out_.is_matrix(), ParseError,
          where() << ": " << opcode() << " needs a scalar output, got " << name_of(out_.data_type));
    else
      DMLRT_REQUIRE(
          out_.is_matrix(), ParseError,
          where() << ": " << opcode() << " needs a matrix output, got " << name_of(out_.data_type));
  }

  bool has_gpu_impl() const override { return true; }

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu) {
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec))) return execute_gpu(ec, *gpu);
    }
#endif
    const auto in = ec.matrix(in_);
    if (spec_.kind == Kind::kIndexMax) {
      ec.set_matrix(out_.name, cpu::row_index_max(*in));
    } else if (spec_.kind == Kind::kIndexMin) {
      ec.set_matrix(out_.name, cpu::row_index_min(*in));
    } else if (spec_.dir == Direction::kRow) {
      ec.set_matrix(out_.name, cpu::aggregate_rows(*in, spec_.op));
    } else if (spec_.dir == Direction::kCol) {
      ec.set_matrix(out_.name, cpu::aggregate_cols(*in, spec_.op));
    } else {
      const double v = cpu::aggregate_all(*in, spec_.op);
      if (out_.is_matrix())
        ec.set_matrix(out_.name, kernels::MatrixBlock::dense(1, 1, v));
      else
        ec.set_scalar(out_, ScalarValue::fp64(v));
    }
  }

 private:
  // Device bytes of the input and the output from the metadata (-1 when the shape is unknown).
  int64_t operand_bytes(ExecutionContext& ec) const {
    const MatrixMeta& meta = ec.matrix_object(in_.name)->meta();
    const mem::GpuSession* gpu = ec.options().gpu.get();
    const int64_t in = dense_device_bytes(gpu, meta.rows, meta.cols);
    if (in < 0) return -1;
    switch (spec_.dir) {
      case Direction::kRow:
        return in + dense_device_bytes(gpu, meta.rows, 1);
      case Direction::kCol:
        return in + dense_device_bytes(gpu, 1, meta.cols);
      case Direction::kAll:
        break;
    }
    return in + dense_device_bytes(gpu, 1, 1);
  }

#ifdef DMLRT_WITH_CUDA
  // Sparse inputs are densified into a temporary (the kernels are dense; implicit zeros then take
  // part as the CPU's add_zeros does). Row and column aggregates stay on the device; a full
  // aggregate with a scalar output is read back (the one synchronisation), one with a 1x1 matrix
  // output stays on the device.
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    DeviceRead x = gpu_read(ec, gpu, in_);
    const mem::DeviceMatrix& xd = x.dense(gpu);
    const int64_t rows = xd.rows(), cols = xd.cols();
    const int64_t out_rows =
        spec_.dir == Direction::kCol ? 1 : (spec_.dir == Direction::kRow ? rows : 1);
    const int64_t out_cols =
        spec_.dir == Direction::kRow ? 1 : (spec_.dir == Direction::kCol ? cols : 1);
    mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), out_rows, out_cols, gpu.dtype(),
                                                     gpu.stream(), "gpu_" + opcode() + " output");
    if (gpu.dtype() == mem::DType::kFloat64)
      launch<double>(gpu, xd, out);
    else
      launch<float>(gpu, xd, out);
    if (spec_.dir == Direction::kAll && out_.is_scalar()) {
      ec.set_scalar(out_, ScalarValue::fp64(gpu.read_element(out, 0, 0)));
      return;
    }
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }

  // (rows, cols) row-major xd -> out on gpu.stream(); workspaces come from scratch and return
  // (stream-ordered) when this returns.
  template <typename T>
  void launch(mem::GpuSession& gpu, const mem::DeviceMatrix& xd, mem::DeviceMatrix& out) const {
    namespace cuda = kernels::cuda;
    const int64_t rows = xd.rows(), cols = xd.cols();
    const T* in = xd.values_as<T>();
    T* o = out.values_as<T>();
    if (spec_.kind != Kind::kAggregate) {
      cuda::launch_row_index(spec_.kind == Kind::kIndexMax, in, rows, cols, o, gpu.stream());
      return;
    }
    switch (spec_.dir) {
      case Direction::kRow:
        cuda::launch_reduce_rows(spec_.op, in, rows, cols, o, gpu.stream());
        return;
      case Direction::kCol: {
        mem::DeviceAllocation ws = gpu.scratch(cuda::reduce_cols_workspace_bytes(rows, cols),
                                               "gpu_" + opcode() + " column partials");
        cuda::launch_reduce_cols(spec_.op, in, rows, cols, o, ws.data(), gpu.stream());
        return;
      }
      case Direction::kAll: {
        mem::DeviceAllocation ws = gpu.scratch(cuda::reduce_all_workspace_bytes(rows * cols),
                                               "gpu_" + opcode() + " partials");
        cuda::launch_reduce_all(spec_.op, in, rows * cols, o, ws.data(), gpu.stream());
        return;
      }
    }
  }
#endif

  AggregateSpec spec_;
  Operand in_, out_;
};

// nrow, ncol, length: INT64 from the matrix's dimensions, without reading its file when createvar
// (or an earlier op) already knows them.
class DimsInstruction final : public Instruction {
 public:
  explicit DimsInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(2, 3);
    in_ = operand(0);
    out_ = operand(1);
    if (num_fields() == 3)
      DMLRT_REQUIRE(is_integer_text(field(2)), ParseError,
                    where() << ": " << opcode() << ": thread count must be an integer, got '"
                            << field(2) << "'");
    DMLRT_REQUIRE(
        in_.is_matrix(), ParseError,
        where() << ": " << opcode() << " needs a matrix input, got " << name_of(in_.data_type));
    DMLRT_REQUIRE(
        out_.is_scalar(), ParseError,
        where() << ": " << opcode() << " needs a scalar output, got " << name_of(out_.data_type));
  }

  // The metadata is current whenever the data is in memory (set_block and set_device_result refresh
  // it), so device-resident data is never copied back just for its dims.
  void execute(ExecutionContext& ec) override {
    const auto mo = ec.matrix_object(in_.name);
    int64_t rows = mo->meta().rows, cols = mo->meta().cols;
    if (mo->host_valid() || rows < 0 || cols < 0) {
      const auto b = ec.matrix(in_);  // reads the file when the dims are unknown
      rows = b->rows();
      cols = b->cols();
    }
    int64_t v = rows * cols;
    if (opcode() == "nrow")
      v = rows;
    else if (opcode() == "ncol")
      v = cols;
    ec.set_scalar(out_, ScalarValue::int64(v));
  }

 private:
  Operand in_, out_;
};

}  // namespace

InstructionPtr make_aggregate(InstructionText text) {
  if (text.opcode == "nrow" || text.opcode == "ncol" || text.opcode == "length")
    return std::make_unique<DimsInstruction>(std::move(text));
  for (const auto& spec : kSpecs)
    if (text.opcode == spec.opcode)
      return std::make_unique<AggregateInstruction>(std::move(text), spec);
  throw NotSupported("opcode '" + text.opcode + "' is not an aggregate");
}

}  // namespace dmlrt::inst
