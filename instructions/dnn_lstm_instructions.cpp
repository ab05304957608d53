// The LSTM sub-family of the DNN ops: parsing, shape rules and the CPU run
// (dnn_lstm_instructions.h).
#include "instructions/dnn_lstm_instructions.h"

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;
using Input = LstmInstruction::Input;

std::string bare_name(const std::string& field) {
  const size_t p = field.find(kTypeDelim);
  return p == std::string::npos ? field : field.substr(0, p);
}

const char* input_name(size_t i) {
  static const char* const kNames[] = {"X",         "W",          "b",         "out0",
                                       "c0",        "return_seq", "dout",      "dc",
                                       "cache_out", "cache_c",    "cache_ifog"};
  return kNames[i];
}

std::string with_dims(const cpu::LstmDims& d) {
  std::ostringstream os;
  os << "(N=" << d.n << " T=" << d.t << " D=" << d.d << " M=" << d.m << ")";
  return os.str();
}

// N, T, D, M from the input dims (SystemDS's derivation), unchecked.
cpu::LstmDims derive(const std::vector<Dims>& dims) {
  cpu::LstmDims d;
  d.n = dims[Input::kOut0].rows;
  d.m = dims[Input::kOut0].cols;
  d.d = dims[Input::kW].rows - d.m;
  d.t = d.d > 0 ? dims[Input::kX].cols / d.d : 0;
  return d;
}

}  // namespace

LstmInstruction::LstmInstruction(InstructionText t) : Instruction(std::move(t)) {
  backward_ = opcode() == "lstm_backward";
  const size_t n = num_fields();
  // Forward: 6 inputs + 2 outputs (GPU) or + 5 outputs [+ k] (CP).
  // Backward: 8 inputs + 5 outputs (GPU) or 11 inputs + 5 outputs [+ k] (CP).
  const size_t gpu_n = backward_ ? 13 : 8, cp_n = backward_ ? 16 : 11;
  if (n == gpu_n) {
    cp_layout_ = false;
  } else if (n == cp_n || n == cp_n + 1) {
    cp_layout_ = true;
  } else {
    DMLRT_FAIL(ParseError, where() << ": " << opcode() << " expects " << gpu_n << " fields ("
                                   << layout_text(false) << ") or " << cp_n << "-" << cp_n + 1
                                   << " fields (" << layout_text(true) << "), got " << n);
  }
  const size_t n_in = backward_ ? (cp_layout_ ? 11 : 8) : 6;
  const size_t n_out = backward_ || cp_layout_ ? 5 : 2;
  for (size_t i = 0; i < n_in; ++i) {
    inputs_.push_back(operand(i));
    const bool want_scalar = i == kReturnSeq;
    DMLRT_REQUIRE(want_scalar ? inputs_.back().is_scalar() : inputs_.back().is_matrix(), ParseError,
                  where() << ": " << opcode() << " expects a "
                          << (want_scalar ? "scalar" : "matrix") << " as input " << i + 1 << " ("
                          << input_name(i) << "), got " << inputs_.back().to_string());
  }
  for (size_t i = 0; i < n_out; ++i) {
    const std::string& f = field(n_in + i);
    // A typed output must be a matrix; a bare name is SystemDS's multi-return form.
    DMLRT_REQUIRE(
        f.find(kTypeDelim) == std::string::npos || operand(n_in + i).is_matrix(), ParseError,
        where() << ": " << opcode() << " expects a matrix as output " << i + 1 << ", got " << f);
    outputs_.push_back(bare_name(f));
    DMLRT_REQUIRE(!outputs_.back().empty(), ParseError,
                  where() << ": " << opcode() << " output " << i + 1 << " has no name");
  }
  if (n == cp_n + 1)
    DMLRT_REQUIRE(is_integer_text(field(n - 1)), ParseError,
                  where() << ": " << opcode() << ": thread count must be an integer, got '"
                          << field(n - 1) << "'");
}

void LstmInstruction::check(Shapes& shapes) const {
  std::vector<Dims> dims(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (i == kReturnSeq) continue;
    dims[i] = shapes.dims(inputs_[i]);
    if (!dims[i].known()) return;
  }
  checked_dims(dims);
}

void LstmInstruction::run_cpu(ExecutionContext& ec) {
  const bool return_seq = ec.scalar(inputs_[kReturnSeq]).to_bool();
  std::vector<std::shared_ptr<const kernels::MatrixBlock>> in(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (i != kReturnSeq) in[i] = ec.matrix(inputs_[i]);
  const cpu::LstmDims d = run_dims(ec, return_seq);
  if (!backward_) {
    cpu::LstmForwardResult r =
        cpu::lstm_forward(*in[kX], *in[kW], *in[kB], *in[kOut0], *in[kC0], return_seq, d);
    ec.set_matrix(outputs_[0], std::move(r.out));
    ec.set_matrix(outputs_[1], std::move(r.cy));
    if (cp_layout_) {
      ec.set_matrix(outputs_[2], std::move(r.cache_out));
      ec.set_matrix(outputs_[3], std::move(r.cache_c));
      ec.set_matrix(outputs_[4], std::move(r.cache_ifog));
    }
    return;
  }
  cpu::LstmBackwardResult r;
  if (cp_layout_) {
    r = cpu::lstm_backward(*in[kX], *in[kW], *in[kOut0], *in[kC0], return_seq, *in[kDout], *in[kDc],
                           *in[kCacheOut], *in[kCacheC], *in[kCacheIfog], d);
  } else {
    // The GPU layout carries no caches: recompute them.
    const cpu::LstmForwardResult f =
        cpu::lstm_forward(*in[kX], *in[kW], *in[kB], *in[kOut0], *in[kC0], return_seq, d);
    r = cpu::lstm_backward(*in[kX], *in[kW], *in[kOut0], *in[kC0], return_seq, *in[kDout], *in[kDc],
                           f.cache_out, f.cache_c, f.cache_ifog, d);
  }
  ec.set_matrix(outputs_[0], std::move(r.dx));
  ec.set_matrix(outputs_[1], std::move(r.dw));
  ec.set_matrix(outputs_[2], std::move(r.db));
  ec.set_matrix(outputs_[3], std::move(r.dout0));
  ec.set_matrix(outputs_[4], std::move(r.dc0));
}

// Device bytes of the inputs and the outputs (-1 when a shape is unknown). Malformed shapes
// count the inputs twice; check() reports them.
int64_t LstmInstruction::device_bytes(ExecutionContext& ec) const {
  const mem::GpuSession* gpu = ec.options().gpu.get();
  std::vector<Dims> dims(inputs_.size());
  int64_t sum = 0;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (i == kReturnSeq) continue;
    const MatrixMeta& m = ec.matrix_object_ref(inputs_[i].name)->meta();
    const int64_t b = dense_device_bytes(gpu, m.rows, m.cols);
    if (b < 0) return -1;
    sum += b;
    dims[i] = {m.rows, m.cols};
  }
  const int64_t n = dims[kOut0].rows, m = dims[kOut0].cols, d = dims[kW].rows - m;
  if (m < 1 || d < 1) return 2 * sum;
  const int64_t t = dims[kX].cols / d;
  std::vector<Dims> outs;
  if (backward_)
    outs = {{n, t * d}, {d + m, 4 * m}, {1, 4 * m}, {n, m}, {n, m}};
  else
    outs = {{n, t * m}, {n, m}};  // out with return_sequences at most
  if (!backward_ && cp_layout_) outs.insert(outs.end(), {{t, n * m}, {t, n * m}, {t, n * 4 * m}});
  for (const Dims& o : outs) sum += dense_device_bytes(gpu, o.rows, o.cols);
  return sum;
}

const char* LstmInstruction::layout_text(bool cp) const {
  if (!backward_)
    return cp ? "X°W°b°out0°c0°return_seq°out°cy°cache_out°cache_c°cache_ifog[°k]"
              : "X°W°b°out0°c0°return_seq°out°cy";
  return cp ? "X°W°b°out0°c0°return_seq°dout°dc°cache_out°cache_c°cache_ifog°dX°dW°db°dout0°dc0["
              "°k]"
            : "X°W°b°out0°c0°return_seq°dout°dc°dX°dW°db°dout0°dc0";
}

void LstmInstruction::expect(const std::vector<Dims>& dims, size_t i, int64_t rows, int64_t cols,
                             const char* expected, const cpu::LstmDims& d) const {
  DMLRT_REQUIRE(dims[i].rows == rows && dims[i].cols == cols, ShapeError,
                opcode() << ": " << input_name(i) << " is "
                         << kernels::dims_string(dims[i].rows, dims[i].cols) << ", expected "
                         << expected << " = " << kernels::dims_string(rows, cols) << " "
                         << with_dims(d));
}

cpu::LstmDims LstmInstruction::checked_dims(const std::vector<Dims>& dims) const {
  const cpu::LstmDims d = derive(dims);
  DMLRT_REQUIRE(d.m >= 1, ShapeError,
                opcode() << ": out0 is " << kernels::dims_string(dims[kOut0].rows, d.m)
                         << ", expected N x M with M >= 1 hidden units");
  DMLRT_REQUIRE(dims[kW].rows > d.m && dims[kW].cols == 4 * d.m, ShapeError,
                opcode() << ": W is " << kernels::dims_string(dims[kW].rows, dims[kW].cols)
                         << ", expected (D+M) x 4M with D >= 1 and M = " << d.m
                         << " (the columns of out0)");
  DMLRT_REQUIRE(
      dims[kX].rows == d.n && dims[kX].cols >= d.d && dims[kX].cols % d.d == 0, ShapeError,
      opcode() << ": X is " << kernels::dims_string(dims[kX].rows, dims[kX].cols)
               << ", expected N x T*D with N = " << d.n << " (the rows of out0), D = " << d.d
               << " (rows of W minus M) and T >= 1 time steps");
  expect(dims, kC0, d.n, d.m, "N x M (the shape of out0)", d);
  expect(dims, kB, 1, 4 * d.m, "1 x 4M", d);
  if (!backward_) return d;
  // dout's shape depends on return_seq's value: run_dims checks it.
  expect(dims, kDc, d.n, d.m, "N x M", d);
  if (cp_layout_) {
    expect(dims, kCacheOut, d.t, d.n * d.m, "T x N*M", d);
    expect(dims, kCacheC, d.t, d.n * d.m, "T x N*M", d);
    expect(dims, kCacheIfog, d.t, d.n * 4 * d.m, "T x N*4M", d);
  }
  return d;
}

cpu::LstmDims LstmInstruction::run_dims(ExecutionContext& ec, bool return_seq) const {
  std::vector<Dims> dims(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (i != kReturnSeq) dims[i] = ec.dims(inputs_[i]);
  const cpu::LstmDims d = derive(dims);
  if (!backward_) return d;
  if (return_seq)
    expect(dims, kDout, d.n, d.t * d.m, "N x T*M (return_sequences=TRUE)", d);
  else
    expect(dims, kDout, d.n, d.m, "N x M (return_sequences=FALSE)", d);
  return d;
}

}  // namespace dmlrt::inst
