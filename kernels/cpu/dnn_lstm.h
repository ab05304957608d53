// CPU reference of SystemDS's lstm / lstm_backward builtins (LibMatrixDNNLSTM): plain loops over
// dense copies of the inputs, no BLAS. Gate order is SystemDS's i, f, o, g (sigmoid on i, f, o;
// tanh on g). See Note [LSTM layouts] for every matrix's shape.
//
// Note [LSTM layouts]
// N sequences (batch), T time steps, D features, M hidden units; all matrices row-major.
//   X          (N, T*D)   step t of sequence n at columns t*D .. t*D+D-1
//   W          (D+M, 4M)  rows 0..D-1 multiply x_t, rows D..D+M-1 multiply out_{t-1};
//                         column blocks i | f | o | g of M columns each
//   b          (1, 4M)    gate biases, same column blocks
//   out0, c0   (N, M)     initial output (hidden state) and cell state
//   out        (N, T*M) when return_sequences (step t at columns t*M..), else (N, M) (last step)
//   cy         (N, M)     the last cell state
//   cache_out  (T, N*M)   row t = out_t (N, M) flattened row-major
//   cache_c    (T, N*M)   row t = c_t flattened
//   cache_ifog (T, N*4M)  row t = the activated gates (N, 4M) flattened: i, f, o (sigmoid), g
//   (tanh)
// The backward pass consumes the three caches (as SystemDS's CP instruction does) and returns
//   dX (N, T*D), dW (D+M, 4M), db (1, 4M), dout0 (N, M), dc0 (N, M);
// dout is (N, T*M) with return_sequences, else (N, M) (the gradient of the last output), and dc
// (N, M) is the gradient of cy.
#pragma once

#include <cstdint>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

struct LstmDims {
  int64_t n = 0, t = 0, d = 0, m = 0;
};

struct LstmForwardResult {
  MatrixBlock out, cy, cache_out, cache_c, cache_ifog;
};

struct LstmBackwardResult {
  MatrixBlock dx, dw, db, dout0, dc0;
};

// Shapes are the caller's to check (instructions/dnn_lstm_instructions.cpp); inputs may be dense
// or CSR.
LstmForwardResult lstm_forward(const MatrixBlock& x, const MatrixBlock& w, const MatrixBlock& b,
                               const MatrixBlock& out0, const MatrixBlock& c0,
                               bool return_sequences, const LstmDims& dims);

// (b is not needed: the caches hold the activated gates.)
LstmBackwardResult lstm_backward(const MatrixBlock& x, const MatrixBlock& w,
                                 const MatrixBlock& out0, const MatrixBlock& c0,
                                 bool return_sequences, const MatrixBlock& dout,
                                 const MatrixBlock& dc, const MatrixBlock& cache_out,
                                 const MatrixBlock& cache_c, const MatrixBlock& cache_ifog,
                                 const LstmDims& dims);

}  // namespace dmlrt::kernels::cpu
