// Data generation on the CPU: rand (uniform / normal / poisson with sparsity, from the Philox cell
// streams of kernels/philox.h) and seq (SystemDS's sequence length and accumulation rules).
#pragma once

#include <cstdint>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

enum class RandPdf { kUniform, kNormal, kPoisson };

struct RandSpec {
  int64_t rows = 0;
  int64_t cols = 0;
  double min = 0.0;  // uniform: values in [min, max) (min > max is allowed, as in SystemDS)
  double max = 1.0;
  double sparsity = 1.0;  // probability of a cell being drawn (nonzero), in [0, 1]
  uint64_t seed = 0;      // Philox key; the caller resolves SystemDS's seed -1
  RandPdf pdf = RandPdf::kUniform;
  double lambda = 1.0;  // poisson mean
};

// (rows, cols) random block in the format SystemDS would pick. Cell (r, c) takes the Philox
// stream of linear index r*cols + c (see Note [Philox cell streams]): word 0 against `sparsity`
// decides whether it is drawn, the next words give its value (uniform min + (max-min)*u; normal
// N(0,1) by Box-Muller; poisson(lambda)). A drawn value of 0 (poisson, min = max = 0) stays 0.
MatrixBlock rand_matrix(const RandSpec& spec);

// Words 0, 1 and 2 of the Philox cell streams of cells first, ..., first + 7 (block 0 of each;
// Note [Philox cell streams]), computed eight at a time in a loop the compiler vectorizes (an
// AVX2 clone where the CPU has it, chosen at load time). The uniform rand's fast path; the same
// words as PhiloxCellStream's.
void philox_first_words8(uint64_t seed, uint64_t first, uint32_t w0[8], uint32_t w1[8],
                         uint32_t w2[8]);

// Number of elements of seq(from, to, incr), as SystemDS's UtilFunctions.getSeqLength computes
// it (floor(to/incr - from/incr) + 1, plus one more when rounding dropped a reachable element).
// The caller checks the arguments first (finite, incr != 0, incr pointing from `from` to `to`).
int64_t seq_length(double from, double to, double incr);

// The (n, 1) column from, from+incr, ... built by repeated addition as SystemDS does (so the
// values carry the same rounding: seq(1, 2, 0.1)[3] = 1.2000000000000002).
MatrixBlock seq_column(double from, double to, double incr);

// sample(range, size, replace, seed): a dense (size, 1) column of integers in [1, range], drawn
// uniformly with replacement, or without (a uniformly random ordered sample of distinct values:
// a partial Fisher-Yates shuffle of 1..range kept in a hash map, so range may be huge). Draw i
// takes the Philox stream of index i. The caller checks range >= size without replacement.
MatrixBlock sample_column(int64_t range, int64_t size, bool replace, uint64_t seed);

}  // namespace dmlrt::kernels::cpu
