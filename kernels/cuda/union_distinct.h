// Device op of union_distinct (instructions/union_instructions.h): the distinct rows of
// rbind(A, B) in order of first occurrence, rows equal as Java's Double.equals compares each cell
// (NaN equals NaN, -0.0 differs from 0.0). Pointers are device pointers; T is double or float;
// launchers never synchronise. See Note [GPU union_distinct] in union_distinct.cu.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"
#include "kernels/cuda/scratch.h"

namespace dmlrt::kernels::cuda {

// slot (ma + mb): for row r of rbind(a, b) (a (ma, n), b (mb, n) row-major, n >= 1), the number
// of kept rows up to and including r, where a row is kept when no earlier row equals it; so
// slot[ma + mb - 1] is the output's row count and a kept row r goes to output row slot[r] - 1.
template <typename T>
void union_distinct_slots(const T* a, int64_t ma, const T* b, int64_t mb, int64_t n, int64_t* slot,
                          Scratch& scratch, cudaStream_t stream);

// out (slot[ma + mb - 1], n) row-major: the kept rows of rbind(a, b) in order.
template <typename T>
void launch_union_gather(const T* a, int64_t ma, const T* b, int64_t mb, int64_t n,
                         const int64_t* slot, T* out, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
