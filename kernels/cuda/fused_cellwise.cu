// Fused cell-wise programs; see fused_cellwise.h, Note [Fused cell-wise programs].
#include <type_traits>

#include "gpu_context/cuda_check.h"
#include "gpu_context/error.h"
#include "kernels/cuda/cell_ops.cuh"
#include "kernels/cuda/fused_cellwise.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/scalar_ops.h"

namespace dmlrt::kernels::cuda {
namespace {

using cellops::cell;
using cellops::ternary_cell;
using cellops::unary_cell;
using cpu::BinaryOp;
using cpu::TernaryOp;
using cpu::UnaryOp;
namespace ops = kernels::ops;

// Note [Fused kernel layout]
// A first version kept the step values of each cell in a per-thread array indexed by step number:
// the dynamic index put the array in local memory, ~2048 threads x 96-176 bytes per SM, more than
// L1 holds, so the values went through L2. The SGD chain of the benchmark ran at 71 % (FP64) and
// 42 % (FP32) of the copy bandwidth, slower in FP32 than its three separate kernels. Now:
//  * each value gets a slot, assigned on the host by a linear scan over the steps (a value's slot
//    is free again after its last reader; outputs keep theirs), and the slots live in shared
//    memory, where a dynamic index costs nothing;
//  * the inputs are loaded first, all of them, into slots of their own: loading each where a step
//    first reads it left one batch of loads in flight per step (~70 % of the copy bandwidth for
//    the three-step SGD chain in both precisions; 83 % FP64 with the inputs first);
//  * each thread handles several cells per step, so the op and operand switches run once per
//    group, and the op loop is unrolled over values held in registers. FP32 was still at 59 %
//    with 4 cells of one word each (instruction-bound: a load, a shared store and a shared load per
//    cell and input), so chains whose inputs are all full move 16-byte vectors (4 FP32 or 2 FP64
//    cells) between global memory, shared memory and registers; row and column vector inputs
//    keep one cell per access.
// That reached 83-89 % of the copy bandwidth on the SGD chain in both precisions, against 103 % for
// the same chain written by hand (bench/chain_ceiling.cu), and its SASS showed each input's
// loads waiting for the previous input's shared-memory stores. Issuing the loads together alone
// gave 84-88 %; ncu of that version (H200, 2026-11-30, FP32): 329 M warp instructions against the
// hand-written 65 M, 108 registers, 23 % achieved occupancy, an instruction issued every 9 cycles
// per warp, DRAM at 64 % of its peak against 91 %: bound by the latency and issue of the step
// loop. Three changes together brought the chain to 101 % of the copy bandwidth in FP32 and FP64
// (~97 % of the hand-written chain; a sweep of variants, two runs each, same H200 and inputs):
//  * the loads of up to kLoadBatch inputs are issued together into registers before any of them
//    is stored to shared memory;
//  * a step is one 32-bit word (op, kind, its slot, its arguments' slots or scalar numbers, slots
//    of inputs included), decoded with shifts: one constant load per step instead of a chain of
//    byte loads and lookups;
//  * the 16-byte-vector kernel runs whole vectors only, with no per-cell bounds path in its loop;
//    the last n % W cells run in a second launch, one cell per thread.
// Tried and measured worse on the same chain: one unit of W cells per thread (73 % FP64, 93 %
// FP32), prefetching the next pass's inputs during this pass's steps (96-99 %), and register caps
// through __launch_bounds__ (2-4 blocks per SM: FP64 64-88 %, FP32 68-104 %, none better in
// both).
// The step loop is still an interpreter (its instruction count after these changes was not
// measured); code generated per chain (NVRTC) would remove it, should a chain fall short again.
constexpr int kFusedThreads = 256;

// A step as one word, decoded in the kernel with shifts: bits 0-4 the op, 5-6 the kind, 7-11 the
// slot of its value, then 6 bits per argument from bit 12 on: a slot (0-23) or, with bit 5 set, a
// scalar number.
constexpr int kOpBits = 5, kArgShift = 12, kArgBits = 6, kArgScalar = 32;
constexpr uint32_t kSlotMask = 31;
static_assert(static_cast<int>(BinaryOp::kBitwShiftR) < (1 << kOpBits) &&
                  cpu::kUnaryOpCount <= (1 << kOpBits),
              "an op number must fit a step's op bits");
static_assert(kFusedMaxSteps + kFusedMaxInputs <= 32 && kFusedMaxScalars <= 32,
              "a slot or scalar number must fit an argument's 5 bits");

// The program with its scalars in the element type and its slots: the kernel's parameter block.
template <typename T>
struct DeviceProgram {
  int32_t steps, inputs, outputs;
  int32_t slots;  // of the steps; input k is held in slot slots + k
  uint32_t code[kFusedMaxSteps];
  const T* input[kFusedMaxInputs];
  FusedInputShape input_shape[kFusedMaxInputs];
  T* output[kFusedMaxOutputs];
  uint8_t output_slot[kFusedMaxOutputs];
  T scalar[kFusedMaxScalars];
};

// One cell of a binary op, the arithmetic ops rounded as in memory (see the Note in the header);
// the rest are the separate kernels' cells.
template <BinaryOp Op, typename T>
__device__ __forceinline__ T fused_binary(T x, T y) {
  if constexpr (Op == BinaryOp::kPlus)
    return ops::add_rn(x, y);
  else if constexpr (Op == BinaryOp::kMinus)
    return ops::sub_rn(x, y);
  else if constexpr (Op == BinaryOp::kMult)
    return ops::mul_rn(x, y);
  else if constexpr (Op == BinaryOp::kMinusNz)
    return x != T(0) ? ops::sub_rn(x, y) : T(0);
  else
    return cell<Op>(x, y);
}

template <UnaryOp Op, typename T>
__device__ __forceinline__ T fused_unary(T x) {
  if constexpr (Op == UnaryOp::kSquare)
    return ops::mul_rn(x, x);
  else if constexpr (Op == UnaryOp::kTimes2)
    return ops::add_rn(x, x);
  else
    return unary_cell<Op>(x);
}

template <typename E, E V>
using Tag = std::integral_constant<E, V>;

// f(Tag<op>) for the op of a step: one switch, then code specialised for the op.
template <typename F>
__device__ __forceinline__ void with_binary(uint8_t op, F&& f) {
  switch (static_cast<BinaryOp>(op)) {
#define DMLRT_CASE(X) \
  case BinaryOp::X:   \
    f(Tag<BinaryOp, BinaryOp::X>{}); \
    break;
    DMLRT_CASE(kPlus) DMLRT_CASE(kMinus) DMLRT_CASE(kMult) DMLRT_CASE(kDiv) DMLRT_CASE(kPow)
    DMLRT_CASE(kMod) DMLRT_CASE(kIntDiv) DMLRT_CASE(kEq) DMLRT_CASE(kNeq) DMLRT_CASE(kLt)
    DMLRT_CASE(kGt) DMLRT_CASE(kLe) DMLRT_CASE(kGe) DMLRT_CASE(kAnd) DMLRT_CASE(kOr)
    DMLRT_CASE(kMin) DMLRT_CASE(kMax) DMLRT_CASE(kMinus1Mult) DMLRT_CASE(kMinusNz)
#undef DMLRT_CASE
    default: break;  // kXor and the bitwise ops: never fused (binary_op_fusable)
  }
}

template <typename F>
__device__ __forceinline__ void with_unary(uint8_t op, F&& f) {
  switch (static_cast<UnaryOp>(op)) {
#define DMLRT_CASE(name, opcode, sparse_safe) \
  case UnaryOp::name:                         \
    f(Tag<UnaryOp, UnaryOp::name>{});         \
    break;
    DMLRT_UNARY_OPS(DMLRT_CASE)
#undef DMLRT_CASE
  }
}

template <typename F>
__device__ __forceinline__ void with_ternary(uint8_t op, F&& f) {
  switch (static_cast<TernaryOp>(op)) {
    case TernaryOp::kIfElse: f(Tag<TernaryOp, TernaryOp::kIfElse>{}); break;
    case TernaryOp::kPlusMult: f(Tag<TernaryOp, TernaryOp::kPlusMult>{}); break;
    default: f(Tag<TernaryOp, TernaryOp::kMinusMult>{}); break;
  }
}

// W consecutive cells moved as one vector (W = 1: any shapes; W = 16 / sizeof(T): chains whose
// inputs are all full and every pointer 16-byte aligned, the common case).
template <typename T, int W>
struct alignas(sizeof(T) * W) Cells {
  T v[W];
};

// W cells at p (16-byte aligned when W > 1) through the read-only path.
template <typename T, int W>
__device__ __forceinline__ Cells<T, W> load_cells(const T* p) {
  Cells<T, W> r;
  if constexpr (W == 1) {
    r.v[0] = __ldg(p);
  } else if constexpr (std::is_same_v<T, float>) {
    static_assert(W == 4, "FP32 vectors are float4");
    const float4 q = __ldg(reinterpret_cast<const float4*>(p));
    r.v[0] = q.x, r.v[1] = q.y, r.v[2] = q.z, r.v[3] = q.w;
  } else {
    static_assert(W == 2, "FP64 vectors are double2");
    const double2 q = __ldg(reinterpret_cast<const double2*>(p));
    r.v[0] = q.x, r.v[1] = q.y;
  }
  return r;
}

// kUnits groups of W cells per thread per pass, a grid stride apart (so a warp's accesses stay
// coalesced); step and input values in shared-memory slots: slot k, group u of thread t at
// [(k * kUnits + u) * kFusedThreads + t] (consecutive threads, consecutive groups: no bank
// conflict). The cells are [first, n): with W > 1 whole groups only (the host runs the last
// n % W cells with W = 1), inputs full; with W = 1 any input shape.
//
// The explicit minimum of 1 block gives the register allocation of the build measured in the sweep
// (Note [Fused kernel layout]: 114 FP32 / 128 FP64 registers for the vector kernels); without it
// ptxas took 126 for FP64, and the benchmark of that build (d719395) measured the FP64 chain at
// 91 % of the copy bandwidth against the sweep's 101 % (FP32, 114 registers either way: 100 %).
template <typename T, int W, int kUnits>
__global__ void __launch_bounds__(kFusedThreads, 1)
    fused_kernel(const DeviceProgram<T> p, int64_t first, int64_t n, int64_t cols) {
  using G = Cells<T, W>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  G* sm = reinterpret_cast<G*>(smem_raw) + threadIdx.x;
  auto at = [&](uint32_t slot, int u) -> G& { return sm[(slot * kUnits + u) * kFusedThreads]; };
  const int64_t groups = (n - first) / W, stride = detail::grid_stride();
  // Inputs k0 .. k0 + kLoadBatch - 1 (those there are) of the pass at `base` into v: their loads
  // all in flight together, as no shared-memory store comes between them.
  constexpr int kLoadBatch = 4;
  using Batch = G[kLoadBatch][kUnits];
  auto load_batch = [&](int64_t base, int k0, Batch& v) {
#pragma unroll
    for (int j = 0; j < kLoadBatch; ++j) {
      if (k0 + j >= p.inputs) break;
      const T* in = p.input[k0 + j];
#pragma unroll
      for (int u = 0; u < kUnits; ++u) {
        const int64_t g = base + u * stride;
        if (g >= groups) break;
        const int64_t i = first + g * W;
        if constexpr (W > 1) {
          v[j][u] = load_cells<T, W>(in + i);
        } else {
          int64_t at_in = i;
          const FusedInputShape shape = p.input_shape[k0 + j];
          if (shape != FusedInputShape::kFull) {
            const int64_t r = i / cols;
            at_in = shape == FusedInputShape::kRowVector ? i - r * cols : r;
          }
          v[j][u].v[0] = __ldg(in + at_in);
        }
      }
    }
  };
  auto store_batch = [&](int k0, const Batch& v) {
#pragma unroll
    for (int j = 0; j < kLoadBatch; ++j) {
      if (k0 + j >= p.inputs) break;
#pragma unroll
      for (int u = 0; u < kUnits; ++u) at(p.slots + k0 + j, u) = v[j][u];
    }
  };
  for (int64_t base = detail::global_thread(); base < groups; base += stride * kUnits) {
    // Every input first, into the slots after the steps'.
    {
      Batch v;
      load_batch(base, 0, v);
      store_batch(0, v);
    }
#pragma unroll
    for (int k0 = kLoadBatch; k0 < kFusedMaxInputs; k0 += kLoadBatch) {
      if (k0 >= p.inputs) break;
      Batch v;
      load_batch(base, k0, v);
      store_batch(k0, v);
    }
    // The values of one argument (its 6 bits of a step's code).
    auto fetch = [&](uint32_t a, G(&v)[kUnits]) {
      if (a & kArgScalar) {
        const T s = p.scalar[a & kSlotMask];
#pragma unroll
        for (int u = 0; u < kUnits; ++u)
#pragma unroll
          for (int e = 0; e < W; ++e) v[u].v[e] = s;
        return;
      }
#pragma unroll
      for (int u = 0; u < kUnits; ++u) v[u] = at(a & kSlotMask, u);
    };
    auto arg = [](uint32_t code, int k) { return (code >> (kArgShift + k * kArgBits)) & 63u; };
    for (int s = 0; s < p.steps; ++s) {
      const uint32_t code = p.code[s];
      const uint8_t op = code & ((1u << kOpBits) - 1);
      const auto kind = static_cast<FusedStepKind>((code >> kOpBits) & 3u);
      G x[kUnits], y[kUnits], z[kUnits], out[kUnits];
      fetch(arg(code, 0), x);
      switch (kind) {
        case FusedStepKind::kBinary:
          fetch(arg(code, 1), y);
          with_binary(op, [&](auto o) {
#pragma unroll
            for (int u = 0; u < kUnits; ++u)
#pragma unroll
              for (int e = 0; e < W; ++e)
                out[u].v[e] = fused_binary<decltype(o)::value>(x[u].v[e], y[u].v[e]);
          });
          break;
        case FusedStepKind::kUnary:
          with_unary(op, [&](auto o) {
#pragma unroll
            for (int u = 0; u < kUnits; ++u)
#pragma unroll
              for (int e = 0; e < W; ++e) out[u].v[e] = fused_unary<decltype(o)::value>(x[u].v[e]);
          });
          break;
        default:
          fetch(arg(code, 1), y);
          fetch(arg(code, 2), z);
          with_ternary(op, [&](auto o) {
#pragma unroll
            for (int u = 0; u < kUnits; ++u)
#pragma unroll
              for (int e = 0; e < W; ++e)
                out[u].v[e] = ternary_cell<decltype(o)::value>(x[u].v[e], y[u].v[e], z[u].v[e]);
          });
          break;
      }
      const uint32_t slot = (code >> (kOpBits + 2)) & kSlotMask;
#pragma unroll
      for (int u = 0; u < kUnits; ++u) at(slot, u) = out[u];
    }
    for (int o = 0; o < p.outputs; ++o) {
      T* dst = p.output[o];
      const int slot = p.output_slot[o];
#pragma unroll
      for (int u = 0; u < kUnits; ++u) {
        const int64_t g = base + u * stride;
        if (g >= groups) break;
        *reinterpret_cast<G*>(dst + first + g * W) = at(slot, u);
      }
    }
  }
}

// Runs d over the cells [first, n) with vectors of W cells, kUnits per thread.
template <typename T, int W, int kUnits>
void launch_width(const DeviceProgram<T>& d, int64_t first, int64_t n, int64_t cols,
                  cudaStream_t stream) {
  const auto kernel = fused_kernel<T, W, kUnits>;
  const size_t shared = static_cast<size_t>(d.slots + d.inputs) * kUnits * kFusedThreads *
                        sizeof(Cells<T, W>);
  if (shared > 48 * 1024) {  // beyond the default dynamic shared memory of a launch
    static const cudaError_t opt_in =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>((kFusedMaxSteps + kFusedMaxInputs) * kUnits *
                                              kFusedThreads * sizeof(Cells<T, W>)));
    DMLRT_CHECK_CTX(opt_in, "fused cell-wise program: " << shared << " bytes of shared memory");
  }
  const int64_t groups = (n - first) / W;
  const int blocks = detail::grid_for((groups + kUnits - 1) / kUnits, kFusedThreads);
  kernel<<<blocks, kFusedThreads, shared, stream>>>(d, first, n, cols);
}

int arity(FusedStepKind k) {
  return k == FusedStepKind::kUnary ? 1 : (k == FusedStepKind::kBinary ? 2 : 3);
}

template <typename T>
void launch(const FusedProgram<T>& p, int64_t rows, int64_t cols, cudaStream_t stream) {
  DMLRT_REQUIRE(p.steps >= 1 && p.steps <= kFusedMaxSteps && p.inputs >= 0 &&
                    p.inputs <= kFusedMaxInputs && p.outputs >= 1 && p.outputs <= kFusedMaxOutputs,
                RuntimeError,
                "fused cell-wise program out of limits: "
                    << p.steps << " steps, " << p.inputs << " inputs, " << p.outputs << " outputs");
  // Each step's last reader (outputs read at the end, after every step).
  int last_use[kFusedMaxSteps];
  for (int s = 0; s < p.steps; ++s) {
    last_use[s] = s;
    DMLRT_REQUIRE(p.step[s].op < (1u << kOpBits), RuntimeError,
                  "fused cell-wise program: step " << s << " has op number " << int{p.step[s].op});
    for (int k = 0; k < arity(p.step[s].kind); ++k) {
      const FusedArg& a = p.step[s].arg[k];
      const int limit = a.kind == FusedArgKind::kStep     ? s
                        : a.kind == FusedArgKind::kInput ? p.inputs
                                                          : kFusedMaxScalars;
      DMLRT_REQUIRE(a.index < limit, RuntimeError,
                    "fused cell-wise program: step " << s << " argument " << k
                                                     << " refers to a missing value");
      if (a.kind == FusedArgKind::kStep) last_use[a.index] = s;
    }
  }
  for (int o = 0; o < p.outputs; ++o) {
    DMLRT_REQUIRE(p.output_step[o] < p.steps, RuntimeError,
                  "fused cell-wise program: output " << o << " of a missing step");
    last_use[p.output_step[o]] = p.steps;
  }
  // Linear-scan slots (Note [Fused kernel layout]): a step may take the slot of a value whose
  // last reader is this very step (each thread reads its arguments before it writes).
  int slot_of[kFusedMaxSteps];
  int slot_owner[kFusedMaxSteps];  // the step whose value a slot holds
  int slots = 0;
  for (int s = 0; s < p.steps; ++s) {
    int free_slot = -1;
    for (int k = 0; k < slots && free_slot < 0; ++k)
      if (last_use[slot_owner[k]] <= s) free_slot = k;
    if (free_slot < 0) free_slot = slots++;
    slot_owner[free_slot] = s;
    slot_of[s] = free_slot;
  }
  DeviceProgram<T> d{};
  d.steps = p.steps;
  d.inputs = p.inputs;
  d.outputs = p.outputs;
  d.slots = slots;
  for (int s = 0; s < p.steps; ++s) {
    const FusedStep& st = p.step[s];
    uint32_t code = st.op | static_cast<uint32_t>(st.kind) << kOpBits |
                    static_cast<uint32_t>(slot_of[s]) << (kOpBits + 2);
    for (int k = 0; k < arity(st.kind); ++k) {
      const FusedArg& a = st.arg[k];
      const uint32_t bits = a.kind == FusedArgKind::kScalar  ? kArgScalar | a.index
                            : a.kind == FusedArgKind::kInput ? slots + a.index
                                                             : slot_of[a.index];
      code |= bits << (kArgShift + k * kArgBits);
    }
    d.code[s] = code;
  }
  bool any_vector = false;  // an input is a row or column vector
  for (int k = 0; k < p.inputs; ++k) {
    d.input[k] = p.input[k];
    d.input_shape[k] = p.input_shape[k];
    any_vector = any_vector || p.input_shape[k] != FusedInputShape::kFull;
  }
  for (int o = 0; o < p.outputs; ++o) {
    d.output[o] = p.output[o];
    d.output_slot[o] = static_cast<uint8_t>(slot_of[p.output_step[o]]);
  }
  for (int k = 0; k < kFusedMaxScalars; ++k) d.scalar[k] = static_cast<T>(p.scalar[k]);
  const int64_t n = rows * cols;
  if (n == 0) return;
  // Vectors when every input is full and every pointer 16-byte aligned (Note [Fused kernel
  // layout]); the last n % W cells then run one per thread.
  bool vec = !any_vector;
  for (int k = 0; k < p.inputs; ++k) vec = vec && detail::is_aligned16(p.input[k]);
  for (int o = 0; o < p.outputs; ++o) vec = vec && detail::is_aligned16(p.output[o]);
  constexpr int VW = detail::kVecWidth<T>;
  const int64_t head = vec ? n / VW * VW : 0;
  if (head > 0) launch_width<T, VW, 2>(d, 0, head, cols, stream);
  if (head < n) launch_width<T, 1, 4>(d, head, n, cols, stream);
  DMLRT_CHECK_CTX(cudaGetLastError(),
                  "fused cell-wise program of " << p.steps << " steps, " << rows << "x" << cols);
}

}  // namespace

void launch_fused_cellwise(const FusedProgram<double>& p, int64_t rows, int64_t cols,
                           cudaStream_t stream) {
  launch(p, rows, cols, stream);
}
void launch_fused_cellwise(const FusedProgram<float>& p, int64_t rows, int64_t cols,
                           cudaStream_t stream) {
  launch(p, rows, cols, stream);
}

}  // namespace dmlrt::kernels::cuda
