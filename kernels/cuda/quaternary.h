// Launchers of the quaternary kernel family (host-clean): the per-cell step of SystemDS's weighted
// factorisation operators (kernels/cpu/quaternary.h) on the GPU. Pointers are device pointers;
// `stream` is a cudaStream_t; nothing synchronises.
//
// Note [GPU quaternary ops]
// The GPU run computes UV' = U %*% t(V) densely with cuBLAS (m x n), then one cell kernel turns
// each cell into the op's value from the weights (W or X) and UV', writing zeros where the
// weights are zero (the CPU visits only those cells: a zero weight contributes nothing even where
// log or a division would give NaN). What follows is the op's: a deterministic sum (wsloss, wcemm),
// nothing (wsigmoid, wumm, wdivmm's basic form) or one more product (wdivmm's LEFT t(C) %*% U and
// RIGHT C %*% V forms). UV' costs m x n device memory, so device_bytes counts it and a product too
// large for the device stays on the CPU, whose kernels visit only the weights' nonzeros.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// The value of one cell; w is the weights' cell (W, or X where X drives), x the second matrix
// operand's cell (X for WSLOSS_POST, W for WSLOSS_PRE, X for WDIVMM_MULT_MINUS_4), uv the cell of
// UV' (for WUMM already f(UV')).
enum class QuatCell {
  kWslossPost,      // w * (x - uv)^2
  kWslossPostNz,    // (w - uv)^2 at w != 0 (w is X)
  kWslossPre,       // (w - (x != 0 ? x * uv : 0))^2 over every cell (w is X, x is W)
  kWslossNone,      // (w - uv)^2 over every cell (w is X)
  kWcemm,           // w * log(uv + eps) (w is X; eps 0 for the basic form)
  kWsigmoid,        // w * sigmoid(uv)
  kWsigmoidLog,     // w * log(sigmoid(uv))
  kWsigmoidMinus,   // w * sigmoid(-uv)
  kWsigmoidLogMinus,// w * log(sigmoid(-uv))
  kWdivmmMult,      // w * uv
  kWdivmmDiv,       // w / uv
  kWdivmmDivEps,    // w / (uv + eps)
  kWdivmmMinus,     // uv - w
  kWdivmmMinus4,    // w * (uv - x)
  kWummMult,        // w * f(uv)
  kWummDiv,         // w / f(uv)
};

// out[c] for the n cells c (row-major (m, cols) flattened): the op's value where w[c] != 0 (NaN
// counts as nonzero), 0 elsewhere (kWslossPre and kWslossNone visit every cell). `x` may be null
// where the op reads none. `out` may be `uv` (in place).
void launch_quaternary_cells(QuatCell op, const double* w, const double* x, const double* uv,
                             double eps, int64_t n, double* out, cudaStream_t stream);
void launch_quaternary_cells(QuatCell op, const float* w, const float* x, const float* uv,
                             double eps, int64_t n, float* out, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
