// The conv instructions: parsing, shape rules, CPU run and the sparse-filter path's cost model
// (dnn_conv_instructions.h). make_conv2d_bias_add_relu builds a conv2d_bias_add whose output is
// max(conv + bias, 0) on both backends, for a fusing plan rewrite.
//
// Note [Sparse-filter conv2d cost model]
// Both paths are costed in multiply-adds (MACs) of the dense convolution. With NPQ = N*P*Q:
//   dense  = K*CRS*NPQ + kMoveCost*K*CRS           (densify the filter, then the dense convolution)
//   sparse = kSpmmCost*nnz(W)*NPQ + kMoveCost*(CRS + 3K)*NPQ
// The SpMM does nnz(W)*NPQ MACs at about 1/kSpmmCost of the dense convolution's rate (cuSPARSE's
// CSR x row-major-dense SpMM gathers a row of the im2col matrix per filter nonzero: memory-bound,
// no tensor cores). Every element the sparse path moves through memory costs kMoveCost MACs (a
// memory-bound move, 4.3 TB/s on the H200, against compute-bound MACs at tens of TFLOP/s): im2col
// writes CRS*NPQ, the SpMM writes K*NPQ, reorg_knpq reads and writes K*NPQ. The path is taken when
// sparse < dense, e.g. for K = 64, CRS = 576 (64 channels, 3x3) below a filter density of about
// 0.13 in FP64 and 0.036 in FP32, and never for K = 1 or small CRS. An empty filter always takes
// it (the output is the bias).
// Calibration (H200, 2026-11-30, dmlrt_bench --sections spconv: five layer shapes x densities
// 0.001-0.3, both paths timed in the same run, constants fitted by least squares of relative
// residuals): FP64 kSpmmCost 4.46, kMoveCost 19.9 (the faster path picked at 25 of 25 points; the
// first estimates 8 and 16 got 21); FP32 6.41 and 37.4 (23 of 25; 21 before). The fits' relative
// RMS errors, 0.37 and 0.29, say the model ranks the two paths; it does not predict their times.
#include "instructions/dnn_conv_instructions.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "gpu_context/error.h"
#include "instructions/dnn_gpu_common.h"
#include "instructions/gpu_placement.h"
#include "kernels/host_memory.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

// max(x, 0) of every cell as Java's Math.max computes it (NaN stays NaN, -0 becomes 0).
kernels::MatrixBlock relu_of(const kernels::MatrixBlock& y) {
  kernels::MatrixBlock d = y.to_dense();
  for (double& v : d.dense_values())
    if (!(v > 0.0) && !std::isnan(v)) v = 0.0;
  d.examine_format();
  return d;
}

struct CostConstants {
  double spmm;  // kSpmmCost: MACs of the dense convolution per SpMM MAC
  double move;  // kMoveCost: MACs of the dense convolution per element moved
};
constexpr CostConstants kFp64Costs{4.5, 20.0};
constexpr CostConstants kFp32Costs{6.4, 37.0};

const CostConstants& costs(bool fp64) { return fp64 ? kFp64Costs : kFp32Costs; }

}  // namespace

Conv2dInstruction::Conv2dInstruction(InstructionText t, bool relu)
    : Instruction(std::move(t)), relu_(relu) {
  if (opcode() == "conv2d")
    op_ = ConvOp::kForward;
  else if (opcode() == "conv2d_bias_add")
    op_ = ConvOp::kForwardBias;
  else if (opcode() == "conv2d_backward_filter")
    op_ = ConvOp::kBackwardFilter;
  else if (opcode() == "conv2d_backward_data")
    op_ = ConvOp::kBackwardData;
  else
    DMLRT_FAIL(NotSupported, where() << ": opcode '" << opcode() << "' is not a conv op");
  const size_t n_in = op_ == ConvOp::kForwardBias ? 3 : 2;
  // inputs, 12 shape scalars, out, then the optional k and memory budget.
  expect_fields(n_in + 13, n_in + 15);
  for (size_t i = 0; i < n_in; ++i) {
    inputs_.push_back(operand(i));
    DMLRT_REQUIRE(inputs_.back().is_matrix(), ParseError,
                  where() << ": " << opcode() << " expects a matrix as operand " << i + 1
                          << ", got " << inputs_.back().to_string());
  }
  for (size_t i = 0; i < 12; ++i) {
    shape_ops_.push_back(operand(n_in + i));
    DMLRT_REQUIRE(shape_ops_.back().is_scalar(), ParseError,
                  where() << ": " << opcode() << " expects a scalar as shape operand " << i + 1
                          << ", got " << shape_ops_.back().to_string());
  }
  out_ = operand(n_in + 12);
  DMLRT_REQUIRE(
      out_.is_matrix(), ParseError,
      where() << ": " << opcode() << " expects a matrix output, got " << out_.to_string());
  // Literal shape values, read once (a bad literal is left to the run, which raises the usual
  // error).
  std::array<int64_t, 12> v{};
  try {
    for (size_t i = 0; i < 12; ++i) {
      const Operand& op = shape_ops_[i];
      if (!op.literal) return;
      v[i] = ScalarValue::from_literal(op.name, op.value_type).to_int();
    }
  } catch (const std::exception&) {
    return;
  }
  literal_shape_ = v;
}

void Conv2dInstruction::check(Shapes& shapes) const {
  if (literal_shape_) check_dims(shape_from(*literal_shape_), shapes);
}

cpu::ConvShape Conv2dInstruction::scalar_shape(ExecutionContext& ec) const {
  if (literal_shape_) return shape_from(*literal_shape_);
  std::array<int64_t, 12> v{};
  for (size_t i = 0; i < 12; ++i) v[i] = ec.scalar(shape_ops_[i]).to_int();
  return shape_from(v);
}

cpu::ConvShape Conv2dInstruction::run_shape(ExecutionContext& ec) const {
  const cpu::ConvShape sh = scalar_shape(ec);
  if (!literal_shape_) check_dims(sh, ec);
  return sh;
}

cpu::ConvShape Conv2dInstruction::shape_from(const std::array<int64_t, 12>& v) const {
  cpu::ConvShape sh;
  sh.stride_h = v[0], sh.stride_w = v[1], sh.pad_h = v[2], sh.pad_w = v[3];
  sh.n = v[4], sh.c = v[5], sh.h = v[6], sh.w = v[7];
  sh.k = v[8], sh.r = v[10], sh.s = v[11];
  DMLRT_REQUIRE(v[9] == v[5], ShapeError,
                opcode() << ": the image channel count C=" << v[5]
                         << " differs from the filter channel count C=" << v[9]);
  DMLRT_REQUIRE(
      sh.stride_h >= 1 && sh.stride_w >= 1, ShapeError,
      opcode() << ": strides must be >= 1, got [" << sh.stride_h << ", " << sh.stride_w << "]");
  DMLRT_REQUIRE(sh.pad_h >= 0 && sh.pad_w >= 0, ShapeError,
                opcode() << ": padding must be >= 0, got [" << sh.pad_h << ", " << sh.pad_w << "]");
  DMLRT_REQUIRE(
      sh.n >= 0 && sh.c >= 0 && sh.h >= 0 && sh.w >= 0 && sh.k >= 0 && sh.r >= 0 && sh.s >= 0,
      ShapeError, opcode() << ": negative shape parameter (" << params_string(sh) << ")");
  // SystemDS reads these as Java ints; beyond that, h + 2*pad below could overflow.
  DMLRT_REQUIRE(std::all_of(v.begin(), v.end(), [](int64_t x) { return x <= INT32_MAX; }),
                ShapeError,
                opcode() << ": shape parameters must be below 2^31 (" << params_string(sh) << ")");
  // Checked before dividing: Java-style truncation would turn a negative numerator into P=1.
  DMLRT_REQUIRE(sh.h + 2 * sh.pad_h >= sh.r && sh.w + 2 * sh.pad_w >= sh.s, ShapeError,
                opcode() << ": filter " << sh.r << "x" << sh.s << " is larger than the padded "
                         << sh.h + 2 * sh.pad_h << "x" << sh.w + 2 * sh.pad_w
                         << " image, so P or Q would be < 1 (" << params_string(sh) << ")");
  sh.derive_output_size();
  DMLRT_REQUIRE(sh.p >= 1 && sh.q >= 1, ShapeError,
                opcode() << ": output size P x Q = " << sh.p << "x" << sh.q
                         << " must be at least 1x1 (" << params_string(sh) << ")");
  // Each parameter fits 31 bits, their products need not: the shape checks multiply them.
  DMLRT_REQUIRE(
      dnn_product_fits({sh.c, sh.h, sh.w}) && dnn_product_fits({sh.c, sh.r, sh.s}) &&
          dnn_product_fits({sh.k, sh.p, sh.q}) && dnn_product_fits({sh.k, sh.c, sh.r, sh.s}),
      ShapeError,
      opcode() << ": C*H*W, C*R*S, K*P*Q or K*C*R*S exceeds 2^63-1 (" << params_string(sh) << ")");
  return sh;
}

std::string Conv2dInstruction::params_string(const cpu::ConvShape& sh) {
  std::ostringstream os;
  os << "N=" << sh.n << " C=" << sh.c << " H=" << sh.h << " W=" << sh.w << " K=" << sh.k
     << " R=" << sh.r << " S=" << sh.s << " stride=[" << sh.stride_h << ", " << sh.stride_w
     << "] pad=[" << sh.pad_h << ", " << sh.pad_w << "]";
  return os.str();
}

void Conv2dInstruction::check_dims(const cpu::ConvShape& sh, Shapes& shapes) const {
  const auto expect = [&](const char* name, const Operand& op, int64_t rows, int64_t cols,
                          const char* expected) {
    const Dims d = shapes.dims(op);
    DMLRT_REQUIRE((d.rows < 0 || d.rows == rows) && (d.cols < 0 || d.cols == cols), ShapeError,
                  opcode() << ": " << name << " is " << kernels::dims_string(d.rows, d.cols)
                           << ", expected " << expected << " = " << kernels::dims_string(rows, cols)
                           << " (" << params_string(sh) << ")");
  };
  const int64_t chw = sh.c * sh.h * sh.w, crs = sh.c * sh.r * sh.s, kpq = sh.k * sh.p * sh.q;
  switch (op_) {
    case ConvOp::kForward:
      expect("X", inputs_[0], sh.n, chw, "N x CHW");
      expect("W", inputs_[1], sh.k, crs, "K x CRS");
      return;
    case ConvOp::kForwardBias:
      expect("X", inputs_[0], sh.n, chw, "N x CHW");
      expect("W", inputs_[2], sh.k, crs, "K x CRS");
      expect("bias", inputs_[1], sh.k, 1, "K x 1");
      return;
    case ConvOp::kBackwardFilter:
      expect("X", inputs_[0], sh.n, chw, "N x CHW");
      expect("dout", inputs_[1], sh.n, kpq, "N x KPQ");
      return;
    case ConvOp::kBackwardData:
      expect("W", inputs_[0], sh.k, crs, "K x CRS");
      expect("dout", inputs_[1], sh.n, kpq, "N x KPQ");
      return;
  }
}

// The plan's padding can make P x Q far larger than the image: the forward output (N, K*P*Q)
// is checked against overflow, the column limit and host memory before the kernel takes it.
void Conv2dInstruction::check_output_size(const cpu::ConvShape& sh) const {
  const double kpq =
      static_cast<double>(sh.k) * static_cast<double>(sh.p) * static_cast<double>(sh.q);
  std::ostringstream shape;
  shape << "an output of " << sh.n << "x"
        << (kpq < 9.2e18 ? std::to_string(static_cast<int64_t>(kpq)) : std::to_string(kpq))
        << " cells (N x K*P*Q with P=" << sh.p << ", Q=" << sh.q << ")";
  kernels::check_host_bytes(opcode(), shape.str(), 8.0 * static_cast<double>(sh.n) * kpq);
  DMLRT_REQUIRE(kpq <= static_cast<double>(INT32_MAX), ShapeError,
                opcode() << ": " << shape.str() << " exceeds the supported 2^31-1 columns");
}

void Conv2dInstruction::run_cpu(ExecutionContext& ec) {
  const cpu::ConvShape sh = run_shape(ec);
  switch (op_) {
    case ConvOp::kForward: {
      auto x = ec.matrix(inputs_[0]);
      auto w = ec.matrix(inputs_[1]);
      check_output_size(sh);
      ec.set_matrix(out_.name, cpu::conv2d(*x, *w, sh));
      return;
    }
    case ConvOp::kForwardBias: {
      auto x = ec.matrix(inputs_[0]);
      auto b = ec.matrix(inputs_[1]);
      auto w = ec.matrix(inputs_[2]);
      check_output_size(sh);
      kernels::MatrixBlock y = cpu::conv2d(*x, *w, sh, b.get());
      ec.set_matrix(out_.name, relu_ ? relu_of(y) : std::move(y));
      return;
    }
    case ConvOp::kBackwardFilter: {
      auto x = ec.matrix(inputs_[0]);
      auto dout = ec.matrix(inputs_[1]);
      ec.set_matrix(out_.name, cpu::conv2d_backward_filter(*x, *dout, sh));
      return;
    }
    case ConvOp::kBackwardData: {
      auto w = ec.matrix(inputs_[0]);
      auto dout = ec.matrix(inputs_[1]);
      ec.set_matrix(out_.name, cpu::conv2d_backward_data(*w, *dout, sh));
      return;
    }
  }
}

int64_t Conv2dInstruction::device_bytes(ExecutionContext& ec) const {
  const cpu::ConvShape sh = scalar_shape(ec);
  int64_t out_rows = sh.n, out_cols = sh.k * sh.p * sh.q;
  if (op_ == ConvOp::kBackwardFilter) out_rows = sh.k, out_cols = sh.c * sh.r * sh.s;
  if (op_ == ConvOp::kBackwardData) out_cols = sh.c * sh.h * sh.w;
  int64_t total = dense_device_bytes(ec.options().gpu.get(), out_rows, out_cols);
  for (const Operand& in : inputs_) {
    const MatrixMeta& m = ec.matrix_object(in.name)->meta();
    const int64_t b = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
    if (b < 0 || total < 0) return -1;
    total += b;
  }
  return total;
}

InstructionPtr make_conv2d_bias_add_relu(InstructionText text) {
  DMLRT_REQUIRE(
      text.opcode == "conv2d_bias_add", ParseError,
      "make_conv2d_bias_add_relu expects a conv2d_bias_add instruction, got " << text.opcode);
  return std::make_unique<Conv2dInstruction>(std::move(text), true);
}

double sparse_filter_conv2d_sparse_cost(int64_t filter_nnz, const cpu::ConvShape& sh, bool fp64) {
  const double npq = static_cast<double>(sh.n) * static_cast<double>(sh.p) * sh.q;
  const double crs = static_cast<double>(sh.c) * static_cast<double>(sh.r) * sh.s;
  return costs(fp64).spmm * static_cast<double>(filter_nnz) * npq +
         costs(fp64).move * (crs + 3.0 * static_cast<double>(sh.k)) * npq;
}

double sparse_filter_conv2d_dense_cost(const cpu::ConvShape& sh, bool fp64) {
  const double npq = static_cast<double>(sh.n) * static_cast<double>(sh.p) * sh.q;
  const double kcrs = static_cast<double>(sh.k) * static_cast<double>(sh.c) * sh.r * sh.s;
  return kcrs * npq + costs(fp64).move * kcrs;
}

bool sparse_filter_conv2d_cheaper(int64_t filter_nnz, const cpu::ConvShape& sh, bool fp64) {
  if (filter_nnz == 0) return true;
  return sparse_filter_conv2d_sparse_cost(filter_nnz, sh, fp64) <
         sparse_filter_conv2d_dense_cost(sh, fp64);
}

int64_t sparse_filter_conv2d_chunk_rows(const cpu::ConvShape& sh, int64_t elem_bytes,
                                        int64_t budget_bytes) {
  const int64_t pq = sh.p * sh.q, crs = sh.c * sh.r * sh.s;
  const int64_t elements_per_row = std::max(crs, sh.k) * pq;
  const int64_t bytes_per_row = (crs + sh.k) * pq * elem_bytes;
  if (bytes_per_row > budget_bytes || elements_per_row >= kMaxCudnnTensorElements) return 0;
  return dnn_chunk_rows(sh.n, bytes_per_row, 0, budget_bytes, elements_per_row);
}

}  // namespace dmlrt::inst
