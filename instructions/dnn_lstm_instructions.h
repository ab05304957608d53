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
// cuBLAS] in kernels/cuda/dnn_lstm_steps.h; kernels/cuda/dnn_lstm_op.h runs it): per time step the
// gate GEMMs, x_t W[0:D] read in place from X with row stride T*D (no gather) and out_{t-1}
// W[D:D+M] accumulated with beta 1, then one gate kernel that adds the bias, activates and writes
// the cache rows; the backward walks the steps in reverse, reading the caches, with dW and db
// accumulated by GEMMs with beta 1. Both paths split the batch per Note [LSTM batch chunks].
// Without a device every layout runs on the CPU; the GPU-layout backward then recomputes the caches
// with the CPU forward. Tensors beyond cuDNN's int sizes (T, D, M, or one sequence's T*D) fail with
// NotSupported on the cuDNN path. The GPU run (dnn_lstm_gpu.cpp) binds the operands, picks the
// chunk and calls one op of kernels/cuda/dnn_lstm_op.h, which runs the chunks with scratch from the
// memory manager.
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
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "instructions/instruction.h"
#include "kernels/cpu/dnn_lstm.h"

namespace dmlrt::inst {

// lstm, lstm_backward (both layouts). The CPU run is dnn_lstm_instructions.cpp's, the GPU run
// dnn_lstm_gpu.cpp's (binding operands for kernels/cuda/dnn_lstm_op.h).
class LstmInstruction final : public Instruction {
 public:
  explicit LstmInstruction(InstructionText t);

  void check(Shapes& shapes) const override;
  // See Note [LSTM placement].
  bool has_gpu_impl() const override { return true; }

  // Input positions (both layouts share the first eight).
  enum Input { kX, kW, kB, kOut0, kC0, kReturnSeq, kDout, kDc, kCacheOut, kCacheC, kCacheIfog };

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;

  // N, T, D, M of this run, and dout's shape, which depends on return_seq's value: both runs
  // start here (check() has checked the rest).
  kernels::cpu::LstmDims run_dims(ExecutionContext& ec, bool return_seq) const;
  // N, T, D, M from the input dims with every rule that needs only dims checked (check()).
  kernels::cpu::LstmDims checked_dims(const std::vector<Dims>& dims) const;
  void expect(const std::vector<Dims>& dims, size_t i, int64_t rows, int64_t cols,
              const char* expected, const kernels::cpu::LstmDims& d) const;
  const char* layout_text(bool cp) const;

  bool backward_ = false;
  bool cp_layout_ = true;
  std::vector<Operand> inputs_;       // see Input; kReturnSeq is a scalar
  std::vector<std::string> outputs_;  // out, cy[, caches] / dX, dW, db, dout0, dc0
};

}  // namespace dmlrt::inst
