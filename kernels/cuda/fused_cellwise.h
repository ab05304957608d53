// Launcher of fused cell-wise programs (host-clean): a chain of binary, unary and ternary cell-wise
// ops evaluated in one kernel, each cell's intermediates in registers, so a chain of k ops costs
// one launch and reads each input and writes each output once (the plan rewrite that builds the
// chains: Note [Fusing cell-wise chains] in runtime/plan_rewrites.cpp).
//
// Note [Fused cell-wise programs]
// A program is a list of steps over (rows, cols) cells. Step s computes value s from up to three
// arguments, each a value of an earlier step, an input matrix, or a scalar; the outputs are the
// values of chosen steps. Inputs are (rows, cols), or a (1, cols) row / (rows, 1) column vector
// (the right operand of a binary op broadcast as the separate kernel would). Every op is the
// separate kernels' cell function (cell_ops.cuh), except that +, -, *, -nz, ^2 and *2 are spelled
// with non-contractible roundings (Note [No FMA contraction] in kernels/scalar_ops.h): in a chain
// a product is followed by a sum in the same kernel, and nvcc would fuse the two into one fma,
// where the separate kernels round the product to memory first. So a fused chain gives the bits
// of the separate kernels, in both precisions; scalars are rounded to the element type first, as
// launch_binary_matrix_scalar and launch_ternary do.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"
#include "kernels/cpu/binary.h"
#include "kernels/cpu/ternary.h"
#include "kernels/cpu/unary.h"

namespace dmlrt::kernels::cuda {

// Limits of one program (the parameter block stays under 1 KB).
constexpr int kFusedMaxSteps = 16;
constexpr int kFusedMaxInputs = 8;
constexpr int kFusedMaxOutputs = 8;
constexpr int kFusedMaxScalars = 16;

enum class FusedArgKind : uint8_t { kStep, kInput, kScalar };
struct FusedArg {
  FusedArgKind kind = FusedArgKind::kStep;
  uint8_t index = 0;  // step, input or scalar number
};

enum class FusedStepKind : uint8_t { kBinary, kUnary, kTernary };
struct FusedStep {
  FusedStepKind kind = FusedStepKind::kBinary;
  uint8_t op = 0;     // a cpu::BinaryOp, cpu::UnaryOp or cpu::TernaryOp value
  FusedArg arg[3];    // 2, 1 or 3 used
};

enum class FusedInputShape : uint8_t { kFull, kRowVector, kColVector };

template <typename T>
struct FusedProgram {
  int32_t steps = 0, inputs = 0, outputs = 0;
  FusedStep step[kFusedMaxSteps];
  const T* input[kFusedMaxInputs] = {};
  FusedInputShape input_shape[kFusedMaxInputs] = {};
  T* output[kFusedMaxOutputs] = {};
  uint8_t output_step[kFusedMaxOutputs] = {};
  double scalar[kFusedMaxScalars] = {};  // rounded to T by the launcher
};

// Runs `p` over the (rows, cols) cells on `stream`. Outputs must not alias inputs. Throws
// RuntimeError for a program outside the limits or with a forward reference.
void launch_fused_cellwise(const FusedProgram<double>& p, int64_t rows, int64_t cols,
                           cudaStream_t stream);
void launch_fused_cellwise(const FusedProgram<float>& p, int64_t rows, int64_t cols,
                           cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
