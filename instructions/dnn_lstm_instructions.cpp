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
// GPU-layout backward then recomputes the caches with the CPU forward. The cuDNN path densifies
// CSR inputs and runs the whole batch at once (TODO(#5): batch chunks per Note [DNN batch
// splitting] when the operands exceed the intermediate budget; tensors beyond cuDNN's int sizes
// fail with NotSupported).
#include <sstream>
#include <string>
#include <vector>

#include "gpu_context/error.h"
#include "instructions/dnn_families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/dnn_lstm.h"

#ifdef DMLRT_WITH_CUDA
#include "kernels/cuda/dnn_lstm.h"
#include "memory/gpu_session.h"
#endif

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

  // See Note [LSTM placement].
  bool has_gpu_impl() const override { return !cp_layout_; }

  void execute(ExecutionContext& ec) override {
    const bool return_seq = ec.scalar(inputs_[kReturnSeq]).to_bool();
#ifdef DMLRT_WITH_CUDA
    if (!cp_layout_ && ec.options().gpu)
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec)))
        return execute_gpu(ec, *gpu, return_seq);
#endif
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
#ifdef DMLRT_WITH_CUDA
  // Device bytes of the inputs plus as much again for the outputs (-1 when a shape is unknown).
  int64_t operand_bytes(ExecutionContext& ec) const {
    int64_t sum = 0;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (i == kReturnSeq) continue;
      const MatrixMeta& m = ec.matrix_object(inputs_[i].name)->meta();
      const int64_t b = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
      if (b < 0) return -1;
      sum += b;
    }
    return 2 * sum;
  }

  // The GPU layout on cuDNN (Note [LSTM on cuDNN] in kernels/cuda/dnn_lstm.h). The forward runs
  // in inference mode; the backward runs a training forward (filling the reserve space, which
  // cuDNN's backward passes read), then backward data and backward weights.
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu, bool return_seq) {
    std::vector<DeviceRead> reads(inputs_.size());
    std::vector<Dims> dims(inputs_.size());
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (i == kReturnSeq) continue;
      reads[i] = gpu_read(ec, gpu, inputs_[i]);
      dims[i] = {reads[i]->rows(), reads[i]->cols()};
    }
    const cpu::LstmDims d = check_shapes(dims, return_seq);
    const mem::DType dt = gpu.dtype();
    const size_t es = mem::dtype_size(dt);
    auto dense = [&](int64_t rows, int64_t cols, const char* what, bool zero = false) {
      return mem::DeviceMatrix::dense(gpu.memory(), rows, cols, dt, gpu.stream(),
                                      std::string("gpu_") + opcode() + " " + what, zero);
    };
    if (d.n == 0) {  // an empty batch: empty results and zero weight gradients
      if (!backward_) {
        set_gpu_output(ec, gpu, outputs_[0], dense(0, return_seq ? d.t * d.m : d.m, "out"));
        set_gpu_output(ec, gpu, outputs_[1], dense(0, d.m, "cy"));
        return;
      }
      set_gpu_output(ec, gpu, outputs_[0], dense(0, d.t * d.d, "dX"));
      set_gpu_output(ec, gpu, outputs_[1], dense(d.d + d.m, 4 * d.m, "dW", true));
      set_gpu_output(ec, gpu, outputs_[2], dense(1, 4 * d.m, "db", true));
      set_gpu_output(ec, gpu, outputs_[3], dense(0, d.m, "dout0"));
      set_gpu_output(ec, gpu, outputs_[4], dense(0, d.m, "dc0"));
      return;
    }
    const mem::DeviceMatrix& x = reads[kX].dense(gpu);        // (N, T*D) = (N, T, D)
    const mem::DeviceMatrix& w = reads[kW].dense(gpu);        // (D+M, 4M)
    const mem::DeviceMatrix& b = reads[kB].dense(gpu);        // (1, 4M)
    const mem::DeviceMatrix& out0 = reads[kOut0].dense(gpu);  // (N, M)
    const mem::DeviceMatrix& c0 = reads[kC0].dense(gpu);      // (N, M)

    const kernels::cuda::CudnnLstm lstm(gpu.context().cudnn(), dt == mem::DType::kFloat64,
                                        gpu.options().allow_tf32, backward_, d.n, d.t, d.d, d.m);
    const std::string tag = std::string("gpu_") + opcode();
    mem::DeviceAllocation seq =
        gpu.scratch(static_cast<size_t>(d.n) * sizeof(int32_t), tag + " sequence lengths");
    kernels::cuda::launch_fill_int32(static_cast<int32_t*>(seq.data()), d.n,
                                     static_cast<int32_t>(d.t), gpu.stream());
    // Zero-filled first: the recurrent biases stay 0 and nothing is left uninitialised.
    mem::DeviceAllocation weights =
        gpu.scratch(lstm.weight_space_bytes(), tag + " cuDNN weight space", true);
    const kernels::cuda::LstmWeightOffsets off = lstm.weight_offsets(weights.data());
    with_dtype(dt, [&](auto t) {
      using T = decltype(t);
      kernels::cuda::launch_lstm_pack_weights(w.values_as<T>(), b.values_as<T>(),
                                              static_cast<T*>(weights.data()), off, d.d, d.m,
                                              gpu.stream());
    });
    mem::DeviceAllocation work = gpu.scratch(lstm.workspace_bytes(), tag + " cuDNN workspace");
    const int32_t* lengths = static_cast<const int32_t*>(seq.data());
    const size_t y_bytes = static_cast<size_t>(d.n * d.t * d.m) * es;

    if (!backward_) {
      // With return_sequences cuDNN's y is the output; else the output is the last hidden state
      // hy and y goes to scratch.
      mem::DeviceMatrix out = dense(d.n, return_seq ? d.t * d.m : d.m, "out");
      mem::DeviceMatrix cy = dense(d.n, d.m, "cy");
      mem::DeviceAllocation y_scratch;
      if (!return_seq) y_scratch = gpu.scratch(y_bytes, tag + " y");
      lstm.forward(lengths, x.values(), return_seq ? out.values() : y_scratch.data(), out0.values(),
                   return_seq ? nullptr : out.values(), c0.values(), cy.values(), weights.data(),
                   work.data(), nullptr);
      set_gpu_output(ec, gpu, outputs_[0], std::move(out));
      set_gpu_output(ec, gpu, outputs_[1], std::move(cy));
      return;
    }

    const mem::DeviceMatrix& dout = reads[kDout].dense(gpu);  // (N, T*M) or (N, M)
    const mem::DeviceMatrix& dc = reads[kDc].dense(gpu);      // (N, M)
    mem::DeviceAllocation reserve = gpu.scratch(lstm.reserve_bytes(), tag + " cuDNN reserve");
    mem::DeviceAllocation y = gpu.scratch(y_bytes, tag + " y");
    lstm.forward(lengths, x.values(), y.data(), out0.values(), nullptr, c0.values(), nullptr,
                 weights.data(), work.data(), reserve.data());
    // dout is dy with return_sequences; else it is the gradient of the last hidden state (dhy)
    // and dy is zero.
    mem::DeviceAllocation dy_zero;
    if (!return_seq) dy_zero = gpu.scratch(y_bytes, tag + " dy", true);
    mem::DeviceMatrix dx = dense(d.n, d.t * d.d, "dX");
    mem::DeviceMatrix dout0 = dense(d.n, d.m, "dout0");
    mem::DeviceMatrix dc0 = dense(d.n, d.m, "dc0");
    lstm.backward_data(lengths, y.data(), return_seq ? dout.values() : dy_zero.data(), dx.values(),
                       out0.values(), return_seq ? nullptr : dout.values(), dout0.values(),
                       c0.values(), dc.values(), dc0.values(), weights.data(), work.data(),
                       reserve.data());
    mem::DeviceAllocation dweights =
        gpu.scratch(lstm.weight_space_bytes(), tag + " cuDNN weight gradients", true);
    lstm.backward_weights(lengths, x.values(), out0.values(), y.data(), dweights.data(),
                          work.data(), reserve.data());
    mem::DeviceMatrix dw = dense(d.d + d.m, 4 * d.m, "dW");
    mem::DeviceMatrix db = dense(1, 4 * d.m, "db");
    with_dtype(dt, [&](auto t) {
      using T = decltype(t);
      kernels::cuda::launch_lstm_unpack_weights(static_cast<const T*>(dweights.data()),
                                                dw.values_as<T>(), db.values_as<T>(), off, d.d, d.m,
                                                gpu.stream());
    });
    set_gpu_output(ec, gpu, outputs_[0], std::move(dx));
    set_gpu_output(ec, gpu, outputs_[1], std::move(dw));
    set_gpu_output(ec, gpu, outputs_[2], std::move(db));
    set_gpu_output(ec, gpu, outputs_[3], std::move(dout0));
    set_gpu_output(ec, gpu, outputs_[4], std::move(dc0));
  }

  // Calls f(T{}) with the session's element type.
  template <typename F>
  static void with_dtype(mem::DType t, F&& f) {
    if (t == mem::DType::kFloat64)
      f(double{});
    else
      f(float{});
  }
#endif

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
