// Fused cell-wise programs; see fused_cellwise.h, Note [Fused cell-wise programs].
#include "gpu_context/cuda_check.h"
#include "gpu_context/error.h"
#include "kernels/cuda/cell_ops.cuh"
#include "kernels/cuda/fused_cellwise.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/scalar_ops.h"

namespace dmlrt::kernels::cuda {
namespace {

using cpu::BinaryOp;
using cpu::TernaryOp;
using cpu::UnaryOp;
using cellops::cell;
using cellops::unary_cell;
namespace ops = kernels::ops;

// The program with its scalars in the element type: the kernel's parameter block.
template <typename T>
struct DeviceProgram {
  int32_t steps, inputs, outputs;
  bool any_vector;  // an input is a row or column vector: the cell's (r, c) is needed
  FusedStep step[kFusedMaxSteps];
  const T* input[kFusedMaxInputs];
  FusedInputShape input_shape[kFusedMaxInputs];
  T* output[kFusedMaxOutputs];
  uint8_t output_step[kFusedMaxOutputs];
  T scalar[kFusedMaxScalars];
};

// The arithmetic ops rounded as in memory (see the Note); the rest are the separate kernels' cells.
template <typename T>
__device__ T binary_cell(uint8_t op, T x, T y) {
  switch (static_cast<BinaryOp>(op)) {
    case BinaryOp::kPlus: return ops::add_rn(x, y);
    case BinaryOp::kMinus: return ops::sub_rn(x, y);
    case BinaryOp::kMult: return ops::mul_rn(x, y);
    case BinaryOp::kMinusNz: return x != T(0) ? ops::sub_rn(x, y) : T(0);
    case BinaryOp::kDiv: return cell<BinaryOp::kDiv>(x, y);
    case BinaryOp::kPow: return cell<BinaryOp::kPow>(x, y);
    case BinaryOp::kMod: return cell<BinaryOp::kMod>(x, y);
    case BinaryOp::kIntDiv: return cell<BinaryOp::kIntDiv>(x, y);
    case BinaryOp::kEq: return cell<BinaryOp::kEq>(x, y);
    case BinaryOp::kNeq: return cell<BinaryOp::kNeq>(x, y);
    case BinaryOp::kLt: return cell<BinaryOp::kLt>(x, y);
    case BinaryOp::kGt: return cell<BinaryOp::kGt>(x, y);
    case BinaryOp::kLe: return cell<BinaryOp::kLe>(x, y);
    case BinaryOp::kGe: return cell<BinaryOp::kGe>(x, y);
    case BinaryOp::kAnd: return cell<BinaryOp::kAnd>(x, y);
    case BinaryOp::kOr: return cell<BinaryOp::kOr>(x, y);
    case BinaryOp::kMin: return cell<BinaryOp::kMin>(x, y);
    case BinaryOp::kMax: return cell<BinaryOp::kMax>(x, y);
    default: return cell<BinaryOp::kMinus1Mult>(x, y);
  }
}

template <typename T>
__device__ T unary_op_cell(uint8_t op, T x) {
  switch (static_cast<UnaryOp>(op)) {
    case UnaryOp::kSquare: return ops::mul_rn(x, x);
    case UnaryOp::kTimes2: return ops::add_rn(x, x);
    case UnaryOp::kExp: return unary_cell<UnaryOp::kExp>(x);
    case UnaryOp::kLog: return unary_cell<UnaryOp::kLog>(x);
    case UnaryOp::kAbs: return unary_cell<UnaryOp::kAbs>(x);
    case UnaryOp::kSqrt: return unary_cell<UnaryOp::kSqrt>(x);
    case UnaryOp::kRound: return unary_cell<UnaryOp::kRound>(x);
    case UnaryOp::kFloor: return unary_cell<UnaryOp::kFloor>(x);
    case UnaryOp::kCeil: return unary_cell<UnaryOp::kCeil>(x);
    case UnaryOp::kSin: return unary_cell<UnaryOp::kSin>(x);
    case UnaryOp::kCos: return unary_cell<UnaryOp::kCos>(x);
    case UnaryOp::kTan: return unary_cell<UnaryOp::kTan>(x);
    case UnaryOp::kSinh: return unary_cell<UnaryOp::kSinh>(x);
    case UnaryOp::kCosh: return unary_cell<UnaryOp::kCosh>(x);
    case UnaryOp::kTanh: return unary_cell<UnaryOp::kTanh>(x);
    case UnaryOp::kAsin: return unary_cell<UnaryOp::kAsin>(x);
    case UnaryOp::kAcos: return unary_cell<UnaryOp::kAcos>(x);
    case UnaryOp::kAtan: return unary_cell<UnaryOp::kAtan>(x);
    case UnaryOp::kSign: return unary_cell<UnaryOp::kSign>(x);
    case UnaryOp::kSigmoid: return unary_cell<UnaryOp::kSigmoid>(x);
    default: return unary_cell<UnaryOp::kNot>(x);
  }
}

template <typename T>
__device__ T ternary_cell(uint8_t op, T x, T y, T z) {
  switch (static_cast<TernaryOp>(op)) {
    case TernaryOp::kIfElse: return x != T(0) ? y : z;
    case TernaryOp::kPlusMult: return ops::add_rn(x, ops::mul_rn(y, z));
    default: return ops::sub_rn(x, ops::mul_rn(y, z));  // kMinusMult
  }
}

// One thread per cell, grid-stride; the values of the steps live in a per-thread array.
template <typename T>
__global__ void fused_kernel(const DeviceProgram<T> p, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride()) {
    int64_t r = 0, c = 0;
    if (p.any_vector) {
      r = i / cols;
      c = i - r * cols;
    }
    T v[kFusedMaxSteps];
    auto arg = [&](const FusedArg& a) -> T {
      switch (a.kind) {
        case FusedArgKind::kStep: return v[a.index];
        case FusedArgKind::kScalar: return p.scalar[a.index];
        default: {
          const T* in = p.input[a.index];
          switch (p.input_shape[a.index]) {
            case FusedInputShape::kRowVector: return in[c];
            case FusedInputShape::kColVector: return in[r];
            default: return in[i];
          }
        }
      }
    };
    for (int s = 0; s < p.steps; ++s) {
      const FusedStep& st = p.step[s];
      const T x = arg(st.arg[0]);
      switch (st.kind) {
        case FusedStepKind::kBinary: v[s] = binary_cell<T>(st.op, x, arg(st.arg[1])); break;
        case FusedStepKind::kUnary: v[s] = unary_op_cell<T>(st.op, x); break;
        default: v[s] = ternary_cell<T>(st.op, x, arg(st.arg[1]), arg(st.arg[2])); break;
      }
    }
    for (int o = 0; o < p.outputs; ++o) p.output[o][i] = v[p.output_step[o]];
  }
}

int arity(FusedStepKind k) {
  return k == FusedStepKind::kUnary ? 1 : (k == FusedStepKind::kBinary ? 2 : 3);
}

template <typename T>
void launch(const FusedProgram<T>& p, int64_t rows, int64_t cols, void* stream) {
  DMLRT_REQUIRE(p.steps >= 1 && p.steps <= kFusedMaxSteps && p.inputs >= 0 &&
                    p.inputs <= kFusedMaxInputs && p.outputs >= 1 &&
                    p.outputs <= kFusedMaxOutputs,
                RuntimeError,
                "fused cell-wise program out of limits: " << p.steps << " steps, " << p.inputs
                                                          << " inputs, " << p.outputs
                                                          << " outputs");
  DeviceProgram<T> d{};
  d.steps = p.steps;
  d.inputs = p.inputs;
  d.outputs = p.outputs;
  d.any_vector = false;
  for (int s = 0; s < p.steps; ++s) {
    d.step[s] = p.step[s];
    for (int k = 0; k < arity(p.step[s].kind); ++k) {
      const FusedArg& a = p.step[s].arg[k];
      const int limit = a.kind == FusedArgKind::kStep     ? s
                        : a.kind == FusedArgKind::kInput ? p.inputs
                                                          : kFusedMaxScalars;
      DMLRT_REQUIRE(a.index < limit, RuntimeError,
                    "fused cell-wise program: step " << s << " argument " << k
                                                     << " refers to a missing value");
    }
  }
  for (int k = 0; k < p.inputs; ++k) {
    d.input[k] = p.input[k];
    d.input_shape[k] = p.input_shape[k];
    d.any_vector = d.any_vector || p.input_shape[k] != FusedInputShape::kFull;
  }
  for (int o = 0; o < p.outputs; ++o) {
    DMLRT_REQUIRE(p.output_step[o] < p.steps, RuntimeError,
                  "fused cell-wise program: output " << o << " of a missing step");
    d.output[o] = p.output[o];
    d.output_step[o] = p.output_step[o];
  }
  for (int k = 0; k < kFusedMaxScalars; ++k) d.scalar[k] = static_cast<T>(p.scalar[k]);
  const int64_t n = rows * cols;
  if (n == 0) return;
  fused_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, detail::as_stream(stream)>>>(
      d, rows, cols);
  DMLRT_CUDA_CHECK_CTX(cudaGetLastError(), "fused cell-wise program of " << p.steps
                                                                          << " steps, " << rows
                                                                          << "x" << cols);
}

}  // namespace

void launch_fused_cellwise(const FusedProgram<double>& p, int64_t rows, int64_t cols,
                           void* stream) {
  launch(p, rows, cols, stream);
}
void launch_fused_cellwise(const FusedProgram<float>& p, int64_t rows, int64_t cols,
                           void* stream) {
  launch(p, rows, cols, stream);
}

}  // namespace dmlrt::kernels::cuda
