// The backend-vs-reference op registry (ggml's test-backend-ops is the model): for every opcode
// with a GPU run, sample instructions that one generic runner (test_op_registry.cpp) executes on
// the GPU and on the CPU backend and compares, over the input formats of gpu_env.h and both device
// precisions. The bench instantiates the same samples at its own sizes to time single
// instructions. A new GPU opcode adds its samples here: the registry test fails for any opcode
// that the opcode table marks `gpu` but that has none.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace dmlrt::test::gpu {

// A matrix operand to bind before running the lines: uniform values in [lo, hi] (each sample
// picks a well-conditioned range), in the case's format when `formatted`.
struct OpInput {
  std::string name;
  int64_t rows = 0, cols = 0;
  double lo = -2, hi = 2;
  // Takes the case's format (sparse, ultra-sparse, empty); false: always dense and full (DNN
  // parameter vectors, lstm weights, running statistics).
  bool formatted = true;
  // rows + 1 added to the diagonal (square): a strictly dominant, well-conditioned system.
  bool dominant = false;
  // The upper triangle mirrored onto the lower one (square; before `dominant`): with it, a
  // symmetric positive definite matrix (cholesky).
  bool symmetric = false;
  // About this fraction of the nonzero cells become NaN, +Inf and -Inf in turn (isnan, isinf).
  double specials = 0;
};

// A scalar variable the lines read by name (bound as FP64 on both backends).
struct OpScalar {
  std::string name;
  double value = 0;
};

// A result to compare: a matrix, or a SCALAR·FP64 (full aggregates).
struct OpOutput {
  std::string name;
  bool scalar = false;
};

// |gpu - cpu| <= abs + rel * |cpu| per cell (test::compare); with `rms`, abs is scaled by
// (1 + rms(cpu)): long FP32 reductions whose error follows the size of the terms (conv).
struct OpTol {
  double abs = 1e-9, rel = 1e-9;
  bool rms = false;
};

// One instance of a sample at a size: everything needed to run it on either backend.
struct OpCase {
  std::string gpu_line;  // "GPU°opcode°...": runs on the device when the operands allow it
  std::string cpu_line;  // "CP°opcode°...": the reference (plus SystemDS's thread count, ...)
  std::vector<OpInput> inputs;
  std::vector<OpScalar> scalars;
  std::vector<OpOutput> outputs;
  OpTol tol64;                     // FP64 device
  OpTol tol32{1e-4, 1e-4, false};  // FP32 device, against the CPU on float-rounded inputs
  bool fp32 = true;  // false: FP64 only (results not continuous in the inputs: %%, ==, round)
  // No matrix inputs (rand, seq): FP32 is compared with the CPU result rounded to float.
  bool round_reference = false;
  // CP lines run after the op's line on each side (on the CPU, from that side's results): the
  // outputs they write are compared where the op's own are defined only up to a choice (svd's
  // signs and null-space bases).
  std::vector<std::string> then;
};

enum class OpFamily {
  kBinary,
  kUnary,
  kTernary,
  kAggregate,
  kReorg,
  kIndexing,
  kAppend,
  kMatmult,
  kSolve,
  kFactor,  // inverse, cholesky, det, lu, qr, svd (cuSOLVER)
  kFft,     // fft, ifft, the _linearized forms, stft (cuFFT)
  kDataGen,
  kDnn
};

// A sample of one opcode: an instruction shape that can be built at any rows, cols >= 1. What
// rows and cols mean is the sample's (its name says where it differs): the main input's shape
// for cell-wise ops, aggregates, reorg, indexing and append (ucumk+*: rows x 2; rdiag: rows x 1
// or rows x rows); ba+*: (rows x cols) %*% (cols x cols), or a vector side; tsmm: X rows x cols;
// solve: A rows x rows, B rows x cols; FFTs: rows x cols rounded down to powers of two where
// the transform needs them; rand: the output rows x cols; seq: rows values; DNN: batch
// N = rows, conv and pooling images of about cols pixels with 2 channels and 3 filters, bias ops,
// channel_sums and batch_norm2d 3 channels of cols cells, lstm D = cols (T = 2, M = 5).
struct OpSample {
  const char* opcode;  // as in inst::opcode_table()
  std::string name;    // unique label, e.g. "+ matrix-row vector", "conv2d 3x3 pad 1"
  OpFamily family;
  std::function<OpCase(int64_t rows, int64_t cols)> make;
  // Formats the formatted inputs may take besides dense: sparse0.1 and ultrasparse0.001
  // (`sparse`), empty (`empty`).
  bool sparse = true;
  bool empty = true;
};

// Every sample, in a stable order.
const std::vector<OpSample>& op_samples();

// The sizes the registry test runs each sample at: 1x1, odd 37x23 and a wide 5x300.
const std::vector<std::pair<int64_t, int64_t>>& op_test_sizes();

}  // namespace dmlrt::test::gpu
