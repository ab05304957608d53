// Launchers of the data-generation kernel family (host-clean): rand from dmlrt's Philox cell
// streams (bit-identical to kernels/cpu/random.cpp for uniform and normal), seq with SystemDS's
// repeated-addition rounding reproduced exactly. (Precision conversion is kernels/cuda/convert.h.)
// Pointers are device pointers; `stream` is a cudaStream_t.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu_context/cuda_types.h"
#include "kernels/cpu/random.h"

namespace dmlrt::kernels::cuda {

// out (spec.rows, spec.cols) row-major, dense: every cell is written (0 where the sparsity draw
// leaves it empty), with the values cpu::rand_matrix(spec) holds. Float outputs are the double
// values rounded to float.
void launch_rand(const cpu::RandSpec& spec, double* out, cudaStream_t stream);
void launch_rand(const cpu::RandSpec& spec, float* out, cudaStream_t stream);

// Note [Parallel seq]
// SystemDS builds seq(from, to, incr) by repeated addition, cur += incr, so element k carries the
// rounding of k sequential additions, not of from + k*incr. The host splits the index range into
// runs on which the addition is exactly linear: while x and every x + incr stay inside one binade
// [2^e, 2^(e+1)) (with a margin of a few ulps), fl(x + incr) = x + delta for a fixed multiple
// delta of the binade's ulp (the first step's; a tie in rounding incr to that ulp is accepted only
// when the second step equals the first, after which it provably repeats), so x_k = x_0 + k*delta
// exactly. Steps near binade edges, through zero or subnormals are single-element runs computed
// by the host's own addition. A sequence crosses few binades, so there are few runs; the kernel
// evaluates x_0 + k*delta of the run holding each index, which is exact.
struct SeqRun {
  int64_t start;  // first index of the run
  double x0;      // its value
  double delta;   // the exact step inside the run
};
std::vector<SeqRun> seq_runs(double from, double incr, int64_t n);

// out (n, 1) = from, from+incr, ... with the values of cpu::seq_column (n from cpu::seq_length).
void launch_seq(double from, double incr, int64_t n, double* out, cudaStream_t stream);
void launch_seq(double from, double incr, int64_t n, float* out, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
