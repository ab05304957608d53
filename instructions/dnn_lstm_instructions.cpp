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
// Both layouts run on the GPU when placement says so. The GPU layout runs through cuDNN's RNN API
// (Note [LSTM on cuDNN] in kernels/cuda/dnn_lstm.h); its backward has no caches and runs a
// training forward first to fill cuDNN's reserve space. The CP layout (five outputs, three of them
// SystemDS's caches, and a backward that consumes those caches) cannot use cuDNN, whose reserve
// space is not SystemDS's cache layout; it runs on cuBLAS and the step kernels (Note [LSTM on
// cuBLAS] in kernels/cuda/dnn_lstm_steps.h): per time step the gate GEMMs, x_t W[0:D] read in place
// from X with row stride T*D (no gather) and out_{t-1} W[D:D+M] accumulated with beta 1, then one
// gate kernel that adds the bias, activates and writes the cache rows; the backward walks the steps
// in reverse, reading the caches, with dW and db accumulated by GEMMs with beta 1. Both paths
// split the batch per Note [LSTM batch chunks]. Without a device every layout runs on the CPU;
// the GPU-layout backward then recomputes the caches with the CPU forward. Tensors beyond cuDNN's
// int sizes (T, D, M, or one sequence's T*D) fail with NotSupported on the cuDNN path.
//
// Note [LSTM batch chunks]
// Sequences are independent, so a chunk of rows [r0, r1) runs the whole recurrence on its own and
// writes rows r0..r1 of every batch-shaped output (out, cy, dX, dout0, dc0, and the cells
// r0*M.. of each cache row); weight gradients sum over the chunks (cuDNN's WGRAD_MODE_ADD into one
// dweight space; GEMMs with beta 1 on the CP path). The outputs and the caches exist whole; only
// the intermediates are chunked: the dense rows of CSR batch operands (mem::RowFetcher), cuDNN's
// y / zero dy, workspace and reserve space, and the CP backward's dgates (rows, 4M) and ones
// vector. The chunk is dnn_chunk_rows's (Note [DNN batch splitting]) against
// dnn_intermediate_budget once the outputs are allocated; the fixed bytes are the weights (cuDNN's
// weight space, and the dweight space for the backward; dense copies of CSR W and b). cuDNN's
// workspace and reserve space are queried (cudnnGetRNNTempSpaceSizes, before any allocation) for
// a probe chunk, taken as linear in the rows to size the next probe, and re-queried until a chunk
// fits or has one row. A chunk of several rows is rounded down to a multiple of 16 bytes' worth
// of elements so that every chunk starts 16-byte aligned. The caches and the dense views of CSR
// caches are not chunked (they are whole outputs / inputs of the CP backward).
#include <sstream>
#include <string>
#include <vector>

#include "gpu_context/error.h"
#include "gpu_context/log.h"
#include "instructions/dnn_families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/dnn_lstm.h"

#ifdef DMLRT_WITH_CUDA
#include <algorithm>
#include <memory>

#include "instructions/dnn_gpu_common.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/dnn_lstm.h"
#include "kernels/cuda/dnn_lstm_steps.h"
#include "kernels/cuda/fill.h"
#include "memory/gpu_session.h"
#include "memory/row_fetcher.h"
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
  bool has_gpu_impl() const override { return true; }

  void execute(ExecutionContext& ec) override {
    const bool return_seq = ec.scalar(inputs_[kReturnSeq]).to_bool();
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu)
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
  // Device bytes of the inputs and the outputs (-1 when a shape is unknown). Malformed shapes
  // count the inputs twice; check_shapes reports them.
  int64_t operand_bytes(ExecutionContext& ec) const {
    const mem::GpuSession* gpu = ec.options().gpu.get();
    std::vector<Dims> dims(inputs_.size());
    int64_t sum = 0;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (i == kReturnSeq) continue;
      const MatrixMeta& m = ec.matrix_object(inputs_[i].name)->meta();
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

  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu, bool return_seq) {
    std::vector<DeviceRead> reads(inputs_.size());
    std::vector<Dims> dims(inputs_.size());
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (i == kReturnSeq) continue;
      reads[i] = gpu_read(ec, gpu, inputs_[i]);
      dims[i] = {reads[i]->rows(), reads[i]->cols()};
    }
    const cpu::LstmDims d = check_shapes(dims, return_seq);
    if (d.n == 0) return empty_batch(ec, gpu, return_seq, d);
    if (!cp_layout_) return execute_cudnn(ec, gpu, return_seq, reads, d);
    with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      if (backward_)
        backward_cp<T>(ec, gpu, return_seq, reads, d);
      else
        forward_cp<T>(ec, gpu, return_seq, reads, d);
    });
  }

  mem::DeviceMatrix dense_output(mem::GpuSession& gpu, int64_t rows, int64_t cols, const char* what,
                                 bool zero = false) const {
    return mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(), gpu.stream(),
                                    "gpu_" + opcode() + " " + what, zero);
  }

  // An empty batch: empty results, empty cache rows and zero weight gradients.
  void empty_batch(ExecutionContext& ec, mem::GpuSession& gpu, bool return_seq,
                   const cpu::LstmDims& d) {
    auto out = [&](size_t i, int64_t rows, int64_t cols, const char* what, bool zero = false) {
      set_gpu_output(ec, gpu, outputs_[i], dense_output(gpu, rows, cols, what, zero));
    };
    if (!backward_) {
      out(0, 0, return_seq ? d.t * d.m : d.m, "out");
      out(1, 0, d.m, "cy");
      if (cp_layout_) {
        out(2, d.t, 0, "cache_out");
        out(3, d.t, 0, "cache_c");
        out(4, d.t, 0, "cache_ifog");
      }
      return;
    }
    out(0, 0, d.t * d.d, "dX");
    out(1, d.d + d.m, 4 * d.m, "dW", true);
    out(2, 1, 4 * d.m, "db", true);
    out(3, 0, d.m, "dout0");
    out(4, 0, d.m, "dc0");
  }

  // Elements per batch row that RowFetchers densify: the CSR batch operands' rows.
  int64_t csr_row_elements(const std::vector<DeviceRead>& reads) const {
    int64_t e = 0;
    for (size_t i : {kX, kOut0, kC0, kDout, kDc})
      if (i < inputs_.size() && reads[i]->is_sparse()) e += reads[i]->cols();
    return e;
  }
  // Elements of the weights' dense views when they are CSR (densified whole).
  static int64_t csr_weight_elements(const std::vector<DeviceRead>& reads) {
    int64_t e = 0;
    for (size_t i : {kW, kB})
      if (reads[i]->is_sparse()) e += reads[i]->rows() * reads[i]->cols();
    return e;
  }

  // A chunk of several rows rounded down to a multiple of 16 bytes' worth of elements, so that
  // every chunk starts 16-byte aligned (Note [LSTM batch chunks]).
  static int64_t aligned_chunk(int64_t rows, int64_t n, int64_t elem_bytes) {
    const int64_t align = 16 / elem_bytes;
    return rows < n && rows > align ? rows - rows % align : rows;
  }

  // Row `row` of a dense row-major device matrix.
  static void* row_of(const mem::DeviceMatrix& m, int64_t row) {
    return static_cast<char*>(m.values()) +
           static_cast<size_t>(row * m.cols()) * mem::dtype_size(m.dtype());
  }

  // ---- The CP layout on cuBLAS (Note [LSTM on cuBLAS]) --------------------------------------

  template <typename T>
  void forward_cp(ExecutionContext& ec, mem::GpuSession& gpu, bool return_seq,
                  std::vector<DeviceRead>& reads, const cpu::LstmDims& d) {
    namespace kc = kernels::cuda;
    const int64_t n = d.n, m = d.m, m4 = 4 * m, td = d.t * d.d, tm = d.t * d.m;
    const int64_t es = sizeof(T);
    mem::DeviceMatrix out = dense_output(gpu, n, return_seq ? tm : m, "out");
    mem::DeviceMatrix cy = dense_output(gpu, n, m, "cy");
    mem::DeviceMatrix cache_out = dense_output(gpu, d.t, n * m, "cache_out");
    mem::DeviceMatrix cache_c = dense_output(gpu, d.t, n * m, "cache_c");
    mem::DeviceMatrix cache_ifog = dense_output(gpu, d.t, n * m4, "cache_ifog");
    const T* w = reads[kW].dense(gpu).values_as<T>();  // (D+M, 4M)
    const T* wh = w + d.d * m4;                        // rows D..D+M-1: (M, 4M)
    const T* b = reads[kB].dense(gpu).values_as<T>();  // (1, 4M)
    const int64_t chunk = aligned_chunk(
        dnn_chunk_rows(n, csr_row_elements(reads) * es, 0, dnn_intermediate_budget(gpu), 0), n, es);
    const std::string what = "gpu_" + opcode();
    mem::RowFetcher xf(gpu, *reads[kX], chunk, what + " X");
    mem::RowFetcher hf(gpu, *reads[kOut0], chunk, what + " out0");
    mem::RowFetcher cf(gpu, *reads[kC0], chunk, what + " c0");
    void* blas = gpu.context().cublas();
    T* ov = out.values_as<T>();
    T* co = cache_out.values_as<T>();
    T* cc = cache_c.values_as<T>();
    T* cg = cache_ifog.values_as<T>();
    for (int64_t r0 = 0; r0 < n; r0 += chunk) {
      const int64_t r1 = std::min(n, r0 + chunk), rows = r1 - r0;
      const T* x = static_cast<const T*>(xf.rows(r0, r1));   // (rows, T*D)
      const T* h0 = static_cast<const T*>(hf.rows(r0, r1));  // (rows, M)
      const T* c0 = static_cast<const T*>(cf.rows(r0, r1));  // (rows, M)
      for (int64_t t = 0; t < d.t; ++t) {
        const int64_t at = t * n * m + r0 * m;  // the chunk's first cell in row t of cache_out/_c
        T* ifog = cg + t * n * m4 + r0 * m4;    // (rows, 4M)
        const T* h_prev = t == 0 ? h0 : co + at - n * m;
        const T* c_prev = t == 0 ? c0 : cc + at - n * m;
        // ifog = x_t W[0:D] + out_{t-1} W[D:D+M]; x_t is X's column block t (row stride T*D).
        kc::gemm_row_major(blas, false, false, rows, m4, d.d, T(1), x + t * d.d, td, w, m4, T(0),
                           ifog, m4);
        kc::gemm_row_major(blas, false, false, rows, m4, m, T(1), h_prev, m, wh, m4, T(1), ifog,
                           m4);
        kc::LstmForwardStep<T> p;
        p.ifog = ifog;
        p.bias = b;
        p.c_prev = c_prev;
        p.c = cc + at;
        p.h = co + at;
        const bool last = t == d.t - 1;
        if (return_seq) {
          p.out = ov + r0 * tm + t * m;
          p.out_ld = tm;
        } else if (last) {
          p.out = ov + r0 * m;
          p.out_ld = m;
        }
        if (last) p.cy = cy.values_as<T>() + r0 * m;
        p.rows = rows;
        p.m = m;
        kc::launch_lstm_forward_step(p, gpu.stream());
      }
    }
    set_gpu_output(ec, gpu, outputs_[0], std::move(out));
    set_gpu_output(ec, gpu, outputs_[1], std::move(cy));
    set_gpu_output(ec, gpu, outputs_[2], std::move(cache_out));
    set_gpu_output(ec, gpu, outputs_[3], std::move(cache_c));
    set_gpu_output(ec, gpu, outputs_[4], std::move(cache_ifog));
  }

  template <typename T>
  void backward_cp(ExecutionContext& ec, mem::GpuSession& gpu, bool return_seq,
                   std::vector<DeviceRead>& reads, const cpu::LstmDims& d) {
    namespace kc = kernels::cuda;
    const int64_t n = d.n, m = d.m, m4 = 4 * m, td = d.t * d.d, tm = d.t * d.m;
    const int64_t es = sizeof(T);
    mem::DeviceMatrix dx = dense_output(gpu, n, td, "dX");
    mem::DeviceMatrix dw = dense_output(gpu, d.d + m, m4, "dW", true);  // accumulated: beta 1
    mem::DeviceMatrix db = dense_output(gpu, 1, m4, "db", true);
    mem::DeviceMatrix dout0 = dense_output(gpu, n, m, "dout0");  // dL/dout_t while running
    mem::DeviceMatrix dc0 = dense_output(gpu, n, m, "dc0");      // dL/dc_t while running
    const T* w = reads[kW].dense(gpu).values_as<T>();            // (D+M, 4M)
    const T* wh = w + d.d * m4;
    const T* co = reads[kCacheOut].dense(gpu).values_as<T>();   // (T, N*M)
    const T* cc = reads[kCacheC].dense(gpu).values_as<T>();     // (T, N*M)
    const T* cg = reads[kCacheIfog].dense(gpu).values_as<T>();  // (T, N*4M)
    // Per row: dgates (4M) and one entry of the ones vector, besides the CSR operands' rows.
    const int64_t chunk = aligned_chunk(
        dnn_chunk_rows(n, (csr_row_elements(reads) + m4 + 1) * es, csr_weight_elements(reads) * es,
                       dnn_intermediate_budget(gpu), 0),
        n, es);
    const std::string what = "gpu_" + opcode();
    mem::RowFetcher xf(gpu, *reads[kX], chunk, what + " X");
    mem::RowFetcher hf(gpu, *reads[kOut0], chunk, what + " out0");
    mem::RowFetcher cf(gpu, *reads[kC0], chunk, what + " c0");
    mem::RowFetcher of(gpu, *reads[kDout], chunk, what + " dout");
    mem::RowFetcher dcf(gpu, *reads[kDc], chunk, what + " dc");
    mem::DeviceAllocation dgates_buf =
        gpu.scratch(static_cast<size_t>(chunk * m4 * es), what + " dgates");
    mem::DeviceAllocation ones_buf = gpu.scratch(static_cast<size_t>(chunk * es), what + " ones");
    T* dg = static_cast<T*>(dgates_buf.data());  // (rows, 4M)
    const T* ones = static_cast<const T*>(ones_buf.data());
    kc::launch_fill(static_cast<T*>(ones_buf.data()), chunk, T(1), gpu.stream());
    void* blas = gpu.context().cublas();
    T* dxv = dx.values_as<T>();
    T* dwv = dw.values_as<T>();
    T* dbv = db.values_as<T>();
    for (int64_t r0 = 0; r0 < n; r0 += chunk) {
      const int64_t r1 = std::min(n, r0 + chunk), rows = r1 - r0;
      const T* x = static_cast<const T*>(xf.rows(r0, r1));       // (rows, T*D)
      const T* h0 = static_cast<const T*>(hf.rows(r0, r1));      // (rows, M)
      const T* c0 = static_cast<const T*>(cf.rows(r0, r1));      // (rows, M)
      const T* dout = static_cast<const T*>(of.rows(r0, r1));    // (rows, T*M) or (rows, M)
      const T* dc_in = static_cast<const T*>(dcf.rows(r0, r1));  // (rows, M)
      T* dh = dout0.values_as<T>() + r0 * m;                     // (rows, M)
      T* dc = dc0.values_as<T>() + r0 * m;                       // (rows, M)
      kc::launch_lstm_backward_init(return_seq ? nullptr : dout, dc_in, dh, dc, rows * m,
                                    gpu.stream());
      for (int64_t t = d.t - 1; t >= 0; --t) {
        const int64_t at = t * n * m + r0 * m;
        const T* h_prev = t == 0 ? h0 : co + at - n * m;
        kc::LstmBackwardStep<T> p;
        p.ifog = cg + t * n * m4 + r0 * m4;
        p.c = cc + at;
        p.c_prev = t == 0 ? c0 : cc + at - n * m;
        p.dh = dh;
        if (return_seq) {
          p.dout = dout + t * m;
          p.dout_ld = tm;
        }
        p.dc = dc;
        p.dgates = dg;
        p.rows = rows;
        p.m = m;
        kc::launch_lstm_backward_step(p, gpu.stream());
        // dW[0:D] += x_t^T dgates; dW[D:D+M] += out_{t-1}^T dgates; db += 1^T dgates.
        kc::gemm_row_major(blas, true, false, d.d, m4, rows, T(1), x + t * d.d, td, dg, m4, T(1),
                           dwv, m4);
        kc::gemm_row_major(blas, true, false, m, m4, rows, T(1), h_prev, m, dg, m4, T(1),
                           dwv + d.d * m4, m4);
        kc::gemm_row_major(blas, false, false, 1, m4, rows, T(1), ones, rows, dg, m4, T(1), dbv,
                           m4);
        // dX_t = dgates W[0:D]^T (X's column block t); dh = dgates W[D:D+M]^T, dL/dout_{t-1}.
        kc::gemm_row_major(blas, false, true, rows, d.d, m4, T(1), dg, m4, w, m4, T(0),
                           dxv + r0 * td + t * d.d, td);
        kc::gemm_row_major(blas, false, true, rows, m, m4, T(1), dg, m4, wh, m4, T(0), dh, m);
      }
    }
    set_gpu_output(ec, gpu, outputs_[0], std::move(dx));
    set_gpu_output(ec, gpu, outputs_[1], std::move(dw));
    set_gpu_output(ec, gpu, outputs_[2], std::move(db));
    set_gpu_output(ec, gpu, outputs_[3], std::move(dout0));
    set_gpu_output(ec, gpu, outputs_[4], std::move(dc0));
  }

  // ---- The GPU layout on cuDNN (Note [LSTM on cuDNN] in kernels/cuda/dnn_lstm.h) ------------
  // The forward runs in inference mode; the backward runs a training forward (filling the reserve
  // space, which cuDNN's backward passes read), then backward data and backward weights, per
  // batch chunk (Note [LSTM batch chunks]).
  void execute_cudnn(ExecutionContext& ec, mem::GpuSession& gpu, bool return_seq,
                     std::vector<DeviceRead>& reads, const cpu::LstmDims& d) {
    namespace kc = kernels::cuda;
    const mem::DType dt = gpu.dtype();
    const int64_t es = static_cast<int64_t>(mem::dtype_size(dt));
    const int64_t n = d.n, tm = d.t * d.m, td = d.t * d.d;
    const std::string tag = "gpu_" + opcode();

    // The outputs first: the intermediate budget is what they leave.
    mem::DeviceMatrix out, cy, dx, dout0, dc0;
    if (backward_) {
      dx = dense_output(gpu, n, td, "dX");
      dout0 = dense_output(gpu, n, d.m, "dout0");
      dc0 = dense_output(gpu, n, d.m, "dc0");
    } else {
      out = dense_output(gpu, n, return_seq ? tm : d.m, "out");
      cy = dense_output(gpu, n, d.m, "cy");
    }

    auto make = [&](int64_t rows) {
      return std::make_unique<kc::CudnnLstm>(gpu.context().cudnn(), dt == mem::DType::kFloat64,
                                             gpu.options().allow_tf32, backward_, rows, d.t, d.d,
                                             d.m);
    };
    // Per row besides cuDNN's buffers: y (backward, or the forward without return_sequences),
    // the zero dy (backward without return_sequences), a sequence length, CSR operands' rows.
    const bool needs_y = backward_ || !return_seq, needs_dy = backward_ && !return_seq;
    const int64_t per_row =
        es * (csr_row_elements(reads) + (needs_y ? tm : 0) + (needs_dy ? tm : 0)) +
        static_cast<int64_t>(sizeof(int32_t));
    const int64_t budget = dnn_intermediate_budget(gpu);
    // The first probe: the whole batch, or what cuDNN's int sizes allow.
    int64_t rows = aligned_chunk(dnn_chunk_rows(n, 0, 0, budget, std::max(td, tm)), n, es);
    std::unique_ptr<kc::CudnnLstm> lstm = make(rows);
    const int64_t fixed = static_cast<int64_t>(lstm->weight_space_bytes()) * (backward_ ? 2 : 1) +
                          es * csr_weight_elements(reads);
    auto cudnn_bytes = [](const kc::CudnnLstm& l) {
      return static_cast<int64_t>(l.workspace_bytes() + l.reserve_bytes());
    };
    while (rows > 1 && fixed + rows * per_row + cudnn_bytes(*lstm) > budget) {
      // cuDNN's buffers grow about linearly with the rows: size the next probe with this one's
      // share per row; halve when that does not shrink it.
      const int64_t share = (cudnn_bytes(*lstm) + rows - 1) / rows;
      int64_t next = dnn_chunk_rows(rows, per_row + share, fixed, budget, 0);
      if (next >= rows) next = rows / 2;
      rows = aligned_chunk(next, n, es);
      lstm = make(rows);
    }
    if (rows < n)
      DMLRT_DEBUG(opcode() << ": " << n << " sequences in chunks of " << rows
                           << " (intermediate budget " << budget << " bytes)");
    const int64_t tail_rows = n % rows;
    std::unique_ptr<kc::CudnnLstm> tail = tail_rows > 0 ? make(tail_rows) : nullptr;
    auto config_of = [&](int64_t r) -> const kc::CudnnLstm& { return r == rows ? *lstm : *tail; };

    mem::DeviceAllocation seq =
        gpu.scratch(static_cast<size_t>(rows) * sizeof(int32_t), tag + " sequence lengths");
    kc::launch_fill_int32(static_cast<int32_t*>(seq.data()), rows, static_cast<int32_t>(d.t),
                          gpu.stream());
    const int32_t* lengths = static_cast<const int32_t*>(seq.data());
    // Zero-filled first: the recurrent biases stay 0 and nothing is left uninitialised. The
    // weight space depends on D and M only, so every chunk configuration shares it.
    mem::DeviceAllocation weights =
        gpu.scratch(lstm->weight_space_bytes(), tag + " cuDNN weight space", true);
    const kc::LstmWeightOffsets off = lstm->weight_offsets(weights.data());
    if (tail) check_same_weights(*tail, weights.data(), lstm->weight_space_bytes(), off);
    with_dtype(dt, [&](auto t) {
      using T = decltype(t);
      kc::launch_lstm_pack_weights(reads[kW].dense(gpu).values_as<T>(),
                                   reads[kB].dense(gpu).values_as<T>(),
                                   static_cast<T*>(weights.data()), off, d.d, d.m, gpu.stream());
    });
    const size_t work_bytes =
        std::max(lstm->workspace_bytes(), tail ? tail->workspace_bytes() : size_t{0});
    mem::DeviceAllocation work = gpu.scratch(work_bytes, tag + " cuDNN workspace");
    mem::RowFetcher xf(gpu, *reads[kX], rows, tag + " X");
    mem::RowFetcher hf(gpu, *reads[kOut0], rows, tag + " out0");
    mem::RowFetcher cf(gpu, *reads[kC0], rows, tag + " c0");
    const size_t y_bytes = static_cast<size_t>(rows * tm * es);

    if (!backward_) {
      // With return_sequences cuDNN's y is the output; else the output is the last hidden state
      // hy and y goes to scratch.
      mem::DeviceAllocation y_scratch;
      if (!return_seq) y_scratch = gpu.scratch(y_bytes, tag + " y");
      for (int64_t r0 = 0; r0 < n; r0 += rows) {
        const int64_t r1 = std::min(n, r0 + rows);
        config_of(r1 - r0).forward(lengths, xf.rows(r0, r1),
                                   return_seq ? row_of(out, r0) : y_scratch.data(), hf.rows(r0, r1),
                                   return_seq ? nullptr : row_of(out, r0), cf.rows(r0, r1),
                                   row_of(cy, r0), weights.data(), work.data(), nullptr);
      }
      set_gpu_output(ec, gpu, outputs_[0], std::move(out));
      set_gpu_output(ec, gpu, outputs_[1], std::move(cy));
      return;
    }

    const size_t reserve_bytes =
        std::max(lstm->reserve_bytes(), tail ? tail->reserve_bytes() : size_t{0});
    mem::DeviceAllocation reserve = gpu.scratch(reserve_bytes, tag + " cuDNN reserve");
    mem::DeviceAllocation y = gpu.scratch(y_bytes, tag + " y");
    // dout is dy with return_sequences; else it is the gradient of the last hidden state (dhy)
    // and dy is zero.
    mem::DeviceAllocation dy_zero;
    if (!return_seq) dy_zero = gpu.scratch(y_bytes, tag + " dy", true);
    mem::RowFetcher of(gpu, *reads[kDout], rows, tag + " dout");
    mem::RowFetcher dcf(gpu, *reads[kDc], rows, tag + " dc");
    // WGRAD_MODE_ADD: every chunk adds its weight gradients into the one zeroed dweight space.
    mem::DeviceAllocation dweights =
        gpu.scratch(lstm->weight_space_bytes(), tag + " cuDNN weight gradients", true);
    for (int64_t r0 = 0; r0 < n; r0 += rows) {
      const int64_t r1 = std::min(n, r0 + rows);
      const kc::CudnnLstm& l = config_of(r1 - r0);
      const void* x = xf.rows(r0, r1);
      const void* hx = hf.rows(r0, r1);
      const void* cx = cf.rows(r0, r1);
      const void* dout = of.rows(r0, r1);
      l.forward(lengths, x, y.data(), hx, nullptr, cx, nullptr, weights.data(), work.data(),
                reserve.data());
      l.backward_data(lengths, y.data(), return_seq ? dout : dy_zero.data(), row_of(dx, r0), hx,
                      return_seq ? nullptr : dout, row_of(dout0, r0), cx, dcf.rows(r0, r1),
                      row_of(dc0, r0), weights.data(), work.data(), reserve.data());
      l.backward_weights(lengths, x, hx, y.data(), dweights.data(), work.data(), reserve.data());
    }
    mem::DeviceMatrix dw = dense_output(gpu, d.d + d.m, 4 * d.m, "dW");
    mem::DeviceMatrix db = dense_output(gpu, 1, 4 * d.m, "db");
    with_dtype(dt, [&](auto t) {
      using T = decltype(t);
      kc::launch_lstm_unpack_weights(static_cast<const T*>(dweights.data()), dw.values_as<T>(),
                                     db.values_as<T>(), off, d.d, d.m, gpu.stream());
    });
    set_gpu_output(ec, gpu, outputs_[0], std::move(dx));
    set_gpu_output(ec, gpu, outputs_[1], std::move(dw));
    set_gpu_output(ec, gpu, outputs_[2], std::move(db));
    set_gpu_output(ec, gpu, outputs_[3], std::move(dout0));
    set_gpu_output(ec, gpu, outputs_[4], std::move(dc0));
  }

  // The tail chunk's configuration must place the weights where the first one does (the weight
  // space depends on D and M only; checked, since both share one packed space).
  void check_same_weights(const kernels::cuda::CudnnLstm& tail, const void* space, size_t bytes,
                          const kernels::cuda::LstmWeightOffsets& off) const {
    const kernels::cuda::LstmWeightOffsets o = tail.weight_offsets(space);
    bool same = tail.weight_space_bytes() == bytes;
    for (int g = 0; g < 4; ++g)
      same = same && o.w[g] == off.w[g] && o.r[g] == off.r[g] && o.bw[g] == off.bw[g] &&
             o.br[g] == off.br[g];
    DMLRT_REQUIRE(same, RuntimeError,
                  opcode() << ": cuDNN placed the weights of a " << tail.weight_space_bytes()
                           << "-byte weight space differently for the last batch chunk");
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
