// The LSTM sub-family of the DNN ops: the GPU run (dnn_lstm_instructions.h). It binds the
// operands, allocates the outputs whole, picks the batch chunk (Note [LSTM batch chunks]) and
// calls one op of kernels/cuda/dnn_lstm_op.h with a scope's scratch.
#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_context/log.h"
#include "instructions/dnn_gpu_common.h"
#include "instructions/dnn_lstm_instructions.h"
#include "instructions/gpu_placement.h"
#include "kernels/cuda/dnn_lstm_op.h"
#include "memory/gpu_session.h"
#include "memory/row_fetcher.h"
#include "memory/scratch.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;
namespace kc = kernels::cuda;
using I = LstmInstruction::Input;

// A batch operand's row chunks for the device op: a mem::RowFetcher.
class FetchedRows final : public kc::LstmBatchRows {
 public:
  FetchedRows(mem::GpuSession& gpu, const mem::DeviceMatrix& m, int64_t max_rows,
              const std::string& what)
      : f_(gpu, m, max_rows, what) {}
  const void* rows(int64_t r0, int64_t r1) override { return f_.rows(r0, r1); }

 private:
  mem::RowFetcher f_;
};

// One GPU run's bindings.
struct Run {
  ExecutionContext& ec;
  mem::GpuSession& gpu;
  const std::string& opcode;
  bool backward, return_seq;
  const std::vector<std::string>& outputs;
  std::vector<DeviceRead>& reads;  // by LstmInstruction::Input; kReturnSeq empty
  cpu::LstmDims d;

  mem::DeviceMatrix dense_output(int64_t rows, int64_t cols, const char* what,
                                 bool zero = false) const {
    return mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(), gpu.stream(),
                                    "gpu_" + opcode + " " + what, zero);
  }
  void bind(size_t i, mem::DeviceMatrix m) const {
    set_gpu_output(ec, gpu, outputs[i], std::move(m));
  }
  // The batch operand `i` in chunks of `rows` rows.
  std::unique_ptr<FetchedRows> fetch(I i, int64_t rows, const char* name) const {
    return std::make_unique<FetchedRows>(gpu, *reads[i], rows, "gpu_" + opcode + " " + name);
  }
  // Elements per batch row that RowFetchers densify: the CSR batch operands' rows.
  int64_t csr_row_elements() const {
    int64_t e = 0;
    for (size_t i : {I::kX, I::kOut0, I::kC0, I::kDout, I::kDc})
      if (i < reads.size() && reads[i]->is_sparse()) e += reads[i]->cols();
    return e;
  }
  // Elements of the weights' dense views when they are CSR (densified whole).
  int64_t csr_weight_elements() const {
    int64_t e = 0;
    for (size_t i : {I::kW, I::kB})
      if (reads[i]->is_sparse()) e += reads[i]->rows() * reads[i]->cols();
    return e;
  }
};

// A chunk of several rows rounded down to a multiple of 16 bytes' worth of elements, so that
// every chunk starts 16-byte aligned (Note [LSTM batch chunks]).
int64_t aligned_chunk(int64_t rows, int64_t n, int64_t elem_bytes) {
  const int64_t align = 16 / elem_bytes;
  return rows < n && rows > align ? rows - rows % align : rows;
}

// An empty batch: empty results, empty cache rows and zero weight gradients.
void empty_batch(const Run& r, bool cp_layout) {
  const cpu::LstmDims& d = r.d;
  if (!r.backward) {
    r.bind(0, r.dense_output(0, r.return_seq ? d.t * d.m : d.m, "out"));
    r.bind(1, r.dense_output(0, d.m, "cy"));
    if (cp_layout) {
      r.bind(2, r.dense_output(d.t, 0, "cache_out"));
      r.bind(3, r.dense_output(d.t, 0, "cache_c"));
      r.bind(4, r.dense_output(d.t, 0, "cache_ifog"));
    }
    return;
  }
  r.bind(0, r.dense_output(0, d.t * d.d, "dX"));
  r.bind(1, r.dense_output(d.d + d.m, 4 * d.m, "dW", true));
  r.bind(2, r.dense_output(1, 4 * d.m, "db", true));
  r.bind(3, r.dense_output(0, d.m, "dout0"));
  r.bind(4, r.dense_output(0, d.m, "dc0"));
}

// ---- The CP layout on cuBLAS (Note [LSTM on cuBLAS]) --------------------------------------------

template <typename T>
void forward_cp(const Run& r) {
  const cpu::LstmDims& d = r.d;
  const int64_t n = d.n, m = d.m, es = sizeof(T);
  mem::DeviceMatrix out = r.dense_output(n, r.return_seq ? d.t * m : m, "out");
  mem::DeviceMatrix cy = r.dense_output(n, m, "cy");
  mem::DeviceMatrix cache_out = r.dense_output(d.t, n * m, "cache_out");
  mem::DeviceMatrix cache_c = r.dense_output(d.t, n * m, "cache_c");
  mem::DeviceMatrix cache_ifog = r.dense_output(d.t, n * 4 * m, "cache_ifog");
  kc::LstmOperands<T> p;
  p.d = d;
  p.return_seq = r.return_seq;
  p.w = r.reads[I::kW].dense(r.gpu).template values_as<T>();
  p.b = r.reads[I::kB].dense(r.gpu).template values_as<T>();
  p.chunk = aligned_chunk(
      dnn_chunk_rows(n, r.csr_row_elements() * es, 0, dnn_intermediate_budget(r.gpu), 0), n, es);
  const auto x = r.fetch(I::kX, p.chunk, "X");
  const auto h0 = r.fetch(I::kOut0, p.chunk, "out0");
  const auto c0 = r.fetch(I::kC0, p.chunk, "c0");
  p.x = x.get();
  p.out0 = h0.get();
  p.c0 = c0.get();
  p.out = out.values_as<T>();
  p.cy = cy.values_as<T>();
  p.cache_out = cache_out.values_as<T>();
  p.cache_c = cache_c.values_as<T>();
  p.cache_ifog = cache_ifog.values_as<T>();
  kc::lstm_forward_cublas(p, r.gpu.context().cublas(), r.gpu.stream());
  r.bind(0, std::move(out));
  r.bind(1, std::move(cy));
  r.bind(2, std::move(cache_out));
  r.bind(3, std::move(cache_c));
  r.bind(4, std::move(cache_ifog));
}

template <typename T>
void backward_cp(const Run& r) {
  const cpu::LstmDims& d = r.d;
  const int64_t n = d.n, m = d.m, m4 = 4 * m, es = sizeof(T);
  mem::DeviceMatrix dx = r.dense_output(n, d.t * d.d, "dX");
  mem::DeviceMatrix dw = r.dense_output(d.d + m, m4, "dW", true);  // accumulated: beta 1
  mem::DeviceMatrix db = r.dense_output(1, m4, "db", true);
  mem::DeviceMatrix dout0 = r.dense_output(n, m, "dout0");  // dL/dout_t while running
  mem::DeviceMatrix dc0 = r.dense_output(n, m, "dc0");      // dL/dc_t while running
  kc::LstmOperands<T> p;
  p.d = d;
  p.return_seq = r.return_seq;
  p.w = r.reads[I::kW].dense(r.gpu).template values_as<T>();
  p.cache_out = r.reads[I::kCacheOut].dense(r.gpu).template values_as<T>();
  p.cache_c = r.reads[I::kCacheC].dense(r.gpu).template values_as<T>();
  p.cache_ifog = r.reads[I::kCacheIfog].dense(r.gpu).template values_as<T>();
  // Per row: dgates (4M) and one entry of the ones vector, besides the CSR operands' rows.
  p.chunk =
      aligned_chunk(dnn_chunk_rows(n, (r.csr_row_elements() + m4 + 1) * es,
                                   r.csr_weight_elements() * es, dnn_intermediate_budget(r.gpu), 0),
                    n, es);
  const auto x = r.fetch(I::kX, p.chunk, "X");
  const auto h0 = r.fetch(I::kOut0, p.chunk, "out0");
  const auto c0 = r.fetch(I::kC0, p.chunk, "c0");
  const auto dout = r.fetch(I::kDout, p.chunk, "dout");
  const auto dc = r.fetch(I::kDc, p.chunk, "dc");
  p.x = x.get();
  p.out0 = h0.get();
  p.c0 = c0.get();
  p.dout = dout.get();
  p.dc = dc.get();
  p.dx = dx.values_as<T>();
  p.dw = dw.values_as<T>();
  p.db = db.values_as<T>();
  p.dout0 = dout0.values_as<T>();
  p.dc0 = dc0.values_as<T>();
  {
    mem::ScopedScratch scratch(r.gpu.memory(), r.gpu.stream(), "gpu_" + r.opcode);
    kc::lstm_backward_cublas(p, r.gpu.context().cublas(), scratch, r.gpu.stream());
  }
  r.bind(0, std::move(dx));
  r.bind(1, std::move(dw));
  r.bind(2, std::move(db));
  r.bind(3, std::move(dout0));
  r.bind(4, std::move(dc0));
}

// ---- The GPU layout on cuDNN (Note [LSTM on cuDNN] in kernels/cuda/dnn_lstm.h) ----------------
// The forward runs in inference mode; the backward runs a training forward (filling the reserve
// space, which cuDNN's backward passes read), then backward data and backward weights, per
// batch chunk (Note [LSTM batch chunks]).
template <typename T>
void run_cudnn(const Run& r) {
  const cpu::LstmDims& d = r.d;
  mem::GpuSession& gpu = r.gpu;
  const int64_t es = sizeof(T);
  const int64_t n = d.n, tm = d.t * d.m, td = d.t * d.d;

  // The outputs first: the intermediate budget is what they leave.
  mem::DeviceMatrix out, cy, dx, dout0, dc0;
  if (r.backward) {
    dx = r.dense_output(n, td, "dX");
    dout0 = r.dense_output(n, d.m, "dout0");
    dc0 = r.dense_output(n, d.m, "dc0");
  } else {
    out = r.dense_output(n, r.return_seq ? tm : d.m, "out");
    cy = r.dense_output(n, d.m, "cy");
  }

  auto make = [&](int64_t rows) {
    return std::make_unique<kc::CudnnLstm>(gpu.context().cudnn(), std::is_same_v<T, double>,
                                           gpu.options().allow_tf32, r.backward, rows, d.t, d.d,
                                           d.m);
  };
  // Per row besides cuDNN's buffers: y (backward, or the forward without return_sequences),
  // the zero dy (backward without return_sequences), a sequence length, CSR operands' rows.
  const bool needs_y = r.backward || !r.return_seq, needs_dy = r.backward && !r.return_seq;
  const int64_t per_row = es * (r.csr_row_elements() + (needs_y ? tm : 0) + (needs_dy ? tm : 0)) +
                          static_cast<int64_t>(sizeof(int32_t));
  const int64_t budget = dnn_intermediate_budget(gpu);
  // The first probe: the whole batch, or what cuDNN's int sizes allow.
  int64_t rows = aligned_chunk(dnn_chunk_rows(n, 0, 0, budget, std::max(td, tm)), n, es);
  std::unique_ptr<kc::CudnnLstm> lstm = make(rows);
  const int64_t fixed = static_cast<int64_t>(lstm->weight_space_bytes()) * (r.backward ? 2 : 1) +
                        es * r.csr_weight_elements();
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
    DMLRT_DEBUG(r.opcode << ": " << n << " sequences in chunks of " << rows
                         << " (intermediate budget " << budget << " bytes)");
  const int64_t tail_rows = n % rows;
  std::unique_ptr<kc::CudnnLstm> tail = tail_rows > 0 ? make(tail_rows) : nullptr;

  kc::LstmOperands<T> p;
  p.d = d;
  p.return_seq = r.return_seq;
  p.chunk = rows;
  p.w = r.reads[I::kW].dense(gpu).template values_as<T>();
  p.b = r.reads[I::kB].dense(gpu).template values_as<T>();
  const auto x = r.fetch(I::kX, rows, "X");
  const auto h0 = r.fetch(I::kOut0, rows, "out0");
  const auto c0 = r.fetch(I::kC0, rows, "c0");
  std::unique_ptr<FetchedRows> dout, dc;
  p.x = x.get();
  p.out0 = h0.get();
  p.c0 = c0.get();
  mem::DeviceMatrix dw, db;
  if (r.backward) {
    dout = r.fetch(I::kDout, rows, "dout");
    dc = r.fetch(I::kDc, rows, "dc");
    p.dout = dout.get();
    p.dc = dc.get();
    dw = r.dense_output(d.d + d.m, 4 * d.m, "dW");
    db = r.dense_output(1, 4 * d.m, "db");
    p.dx = dx.values_as<T>();
    p.dw = dw.values_as<T>();
    p.db = db.values_as<T>();
    p.dout0 = dout0.values_as<T>();
    p.dc0 = dc0.values_as<T>();
  } else {
    p.out = out.values_as<T>();
    p.cy = cy.values_as<T>();
  }
  {
    mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_" + r.opcode);
    kc::lstm_cudnn(p, kc::LstmCudnnConfigs{lstm.get(), tail.get()}, r.backward, r.opcode.c_str(),
                   scratch, gpu.stream());
  }
  if (!r.backward) {
    r.bind(0, std::move(out));
    r.bind(1, std::move(cy));
    return;
  }
  r.bind(0, std::move(dx));
  r.bind(1, std::move(dw));
  r.bind(2, std::move(db));
  r.bind(3, std::move(dout0));
  r.bind(4, std::move(dc0));
}

}  // namespace

void LstmInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const bool return_seq = ec.scalar(inputs_[kReturnSeq]).to_bool();
  std::vector<DeviceRead> reads(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (i != kReturnSeq) reads[i] = gpu_read(ec, gpu, inputs_[i]);
  const Run r{ec, gpu, opcode(), backward_, return_seq, outputs_, reads, run_dims(ec, return_seq)};
  if (r.d.n == 0) return empty_batch(r, cp_layout_);
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    if (!cp_layout_)
      run_cudnn<T>(r);
    else if (backward_)
      backward_cp<T>(r);
    else
      forward_cp<T>(r);
  });
}

}  // namespace dmlrt::inst
