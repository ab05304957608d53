// The LSTM sub-family of the DNN ops: lstm and lstm_backward in both layouts
// (reference/systemds-format.md §3, systemds-gpu.md §2.6):
//   CP  lstm           X°W°b°out0°c0°return_seq°out°cy°cache_out°cache_c°cache_ifog[°k]
//   GPU lstm           X°W°b°out0°c0°return_seq°out°cy
//   CP  lstm_backward  X°W°b°out0°c0°return_seq°dout°dc°cache_out°cache_c°cache_ifog°
//                      dX°dW°db°dout0°dc0[°k]
//   GPU lstm_backward  X°W°b°out0°c0°return_seq°dout°dc°dX°dW°db°dout0°dc0
// The field count picks the layout, whatever the ExecType prefix; outputs may be bare names or
// typed operands. Shapes: Note [LSTM layouts] (kernels/cpu/dnn_lstm.h). N and M come from out0,
// D = rows(W) - M and T = cols(X) / D, as in SystemDS's DnnCPInstruction.
//
// Note [LSTM placement]
// The GPU layout runs on the GPU through cuDNN's RNN API (kernels/cuda/dnn_lstm.h); its backward
// has no caches and runs a training forward first to fill cuDNN's reserve space. The CP layout
// (five outputs, three of them SystemDS's caches, and a backward that consumes those caches) has
// no GPU implementation: cuDNN's reserve space is not SystemDS's cache layout, so under -gpu force
// the CP layout keeps has_gpu_impl() false and runs on the CPU (TODO(#5): per-step cuBLAS GEMMs
// and gate kernels writing the caches). Without a device every layout runs on the CPU; the
// GPU-layout backward then recomputes the caches with the CPU forward.
#include <sstream>
#include <string>
#include <vector>

#include "gpu_context/error.h"
#include "instructions/dnn_families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/dnn_lstm.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

// Input positions (both layouts share the first eight).
enum LstmInput { kX, kW, kB, kOut0, kC0, kReturnSeq, kDout, kDc, kCacheOut, kCacheC, kCacheIfog };

struct Dims {
  int64_t rows = 0, cols = 0;
};

std::string bare_name(const std::string& field) {
  const size_t p = field.find(kTypeDelim);
  return p == std::string::npos ? field : field.substr(0, p);
}

class LstmInstruction final : public Instruction {
 public:
  explicit LstmInstruction(InstructionText t) : Instruction(std::move(t)) {
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
      DMLRT_REQUIRE(want_scalar ? inputs_.back().is_scalar() : inputs_.back().is_matrix(),
                    ParseError,
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

  void execute(ExecutionContext& ec) override {
    const bool return_seq = ec.scalar(inputs_[kReturnSeq]).to_bool();
    std::vector<std::shared_ptr<const kernels::MatrixBlock>> in(inputs_.size());
    std::vector<Dims> dims(inputs_.size());
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (i == kReturnSeq) continue;
      in[i] = ec.matrix(inputs_[i]);
      dims[i] = {in[i]->rows(), in[i]->cols()};
    }
    const cpu::LstmDims d = check_shapes(dims, return_seq);
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
      r = cpu::lstm_backward(*in[kX], *in[kW], *in[kOut0], *in[kC0], return_seq, *in[kDout],
                             *in[kDc], *in[kCacheOut], *in[kCacheC], *in[kCacheIfog], d);
    } else {
      // The GPU layout carries no caches: recompute them.
      const cpu::LstmForwardResult f =
          cpu::lstm_forward(*in[kX], *in[kW], *in[kB], *in[kOut0], *in[kC0], return_seq, d);
      r = cpu::lstm_backward(*in[kX], *in[kW], *in[kOut0], *in[kC0], return_seq, *in[kDout],
                             *in[kDc], f.cache_out, f.cache_c, f.cache_ifog, d);
    }
    ec.set_matrix(outputs_[0], std::move(r.dx));
    ec.set_matrix(outputs_[1], std::move(r.dw));
    ec.set_matrix(outputs_[2], std::move(r.db));
    ec.set_matrix(outputs_[3], std::move(r.dout0));
    ec.set_matrix(outputs_[4], std::move(r.dc0));
  }

 private:
  const char* layout_text(bool cp) const {
    if (!backward_)
      return cp ? "X°W°b°out0°c0°return_seq°out°cy°cache_out°cache_c°cache_ifog[°k]"
                : "X°W°b°out0°c0°return_seq°out°cy";
    return cp ? "X°W°b°out0°c0°return_seq°dout°dc°cache_out°cache_c°cache_ifog°dX°dW°db°dout0°dc0["
                "°k]"
              : "X°W°b°out0°c0°return_seq°dout°dc°dX°dW°db°dout0°dc0";
  }

  static const char* input_name(size_t i) {
    static const char* const kNames[] = {"X",         "W",          "b",         "out0",
                                         "c0",        "return_seq", "dout",      "dc",
                                         "cache_out", "cache_c",    "cache_ifog"};
    return kNames[i];
  }

  std::string with_dims(const cpu::LstmDims& d) const {
    std::ostringstream os;
    os << "(N=" << d.n << " T=" << d.t << " D=" << d.d << " M=" << d.m << ")";
    return os.str();
  }

  void expect(const std::vector<Dims>& dims, size_t i, int64_t rows, int64_t cols,
              const char* expected, const cpu::LstmDims& d) const {
    DMLRT_REQUIRE(dims[i].rows == rows && dims[i].cols == cols, ShapeError,
                  opcode() << ": " << input_name(i) << " is "
                           << kernels::dims_string(dims[i].rows, dims[i].cols) << ", expected "
                           << expected << " = " << kernels::dims_string(rows, cols) << " "
                           << with_dims(d));
  }

  // N, T, D, M from the input shapes (SystemDS's derivation), and every shape checked against
  // them. Used by both backends, so their errors are identical.
  cpu::LstmDims check_shapes(const std::vector<Dims>& dims, bool return_seq) const {
    cpu::LstmDims d;
    d.n = dims[kOut0].rows;
    d.m = dims[kOut0].cols;
    DMLRT_REQUIRE(d.m >= 1, ShapeError,
                  opcode() << ": out0 is " << kernels::dims_string(dims[kOut0].rows, d.m)
                           << ", expected N x M with M >= 1 hidden units");
    DMLRT_REQUIRE(dims[kW].rows > d.m && dims[kW].cols == 4 * d.m, ShapeError,
                  opcode() << ": W is " << kernels::dims_string(dims[kW].rows, dims[kW].cols)
                           << ", expected (D+M) x 4M with D >= 1 and M = " << d.m
                           << " (the columns of out0)");
    d.d = dims[kW].rows - d.m;
    DMLRT_REQUIRE(
        dims[kX].rows == d.n && dims[kX].cols >= d.d && dims[kX].cols % d.d == 0, ShapeError,
        opcode() << ": X is " << kernels::dims_string(dims[kX].rows, dims[kX].cols)
                 << ", expected N x T*D with N = " << d.n << " (the rows of out0), D = " << d.d
                 << " (rows of W minus M) and T >= 1 time steps");
    d.t = dims[kX].cols / d.d;
    expect(dims, kC0, d.n, d.m, "N x M (the shape of out0)", d);
    expect(dims, kB, 1, 4 * d.m, "1 x 4M", d);
    if (!backward_) return d;
    if (return_seq)
      expect(dims, kDout, d.n, d.t * d.m, "N x T*M (return_sequences=TRUE)", d);
    else
      expect(dims, kDout, d.n, d.m, "N x M (return_sequences=FALSE)", d);
    expect(dims, kDc, d.n, d.m, "N x M", d);
    if (cp_layout_) {
      expect(dims, kCacheOut, d.t, d.n * d.m, "T x N*M", d);
      expect(dims, kCacheC, d.t, d.n * d.m, "T x N*M", d);
      expect(dims, kCacheIfog, d.t, d.n * 4 * d.m, "T x N*4M", d);
    }
    return d;
  }

  bool backward_ = false;
  bool cp_layout_ = true;
  std::vector<Operand> inputs_;       // see LstmInput; kReturnSeq is a scalar
  std::vector<std::string> outputs_;  // out, cy[, caches] / dX, dW, db, dout0, dc0
};

}  // namespace

InstructionPtr make_dnn_lstm(InstructionText text) {
  return std::make_unique<LstmInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
