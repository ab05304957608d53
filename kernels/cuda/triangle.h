// Launchers of the triangle kernel family (host-clean): completing a symmetric matrix of which a
// library call (cuBLAS syrk) wrote one triangle, and lower.tri / upper.tri. Pointers are device
// pointers; `stream` is a cudaStream_t.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"

namespace dmlrt::kernels::cuda {

// c (n, n) row-major: c[i][j] = c[j][i] for every j < i (the upper triangle, diagonal included, is
// copied onto the strictly lower one, which is only written).
void launch_copy_upper_to_lower(double* c, int64_t n, cudaStream_t stream);
void launch_copy_upper_to_lower(float* c, int64_t n, cudaStream_t stream);

// What lower.tri / upper.tri keep, as kernels/cpu/parameterized.h's extract_triangular: row i keeps
// columns [0, i] (lower, diag), [0, i), [i, cols) (upper, diag) or [i + 1, cols).
struct TriangleSpec {
  bool lower = true;
  bool diag = true;
  bool values = true;
  // values=false only: false when the input has no nonzero (the result is then all zeros), and the
  // input's CSR row offsets (rows + 1, int32 or int64 per `row_ptr64`) when it is sparse, whose
  // empty rows get no ones (Note [Triangle masks of empty rows]); nullptr for a dense input.
  bool any_nonzero = true;
  const void* row_ptr = nullptr;
  bool row_ptr64 = false;
};
// in (rows, cols) row-major -> out (rows, cols) row-major; every cell of out is written.
void launch_extract_triangular(const double* in, double* out, int64_t rows, int64_t cols,
                               const TriangleSpec& spec, cudaStream_t stream);
void launch_extract_triangular(const float* in, float* out, int64_t rows, int64_t cols,
                               const TriangleSpec& spec, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
