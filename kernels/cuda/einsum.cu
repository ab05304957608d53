// Einsum kernel family: the generic loop nest of kernels/cpu/einsum.cpp with one thread per
// output cell; see einsum.h.
//
// Note [GPU einsum order]
// The CPU kernel walks every letter as one odometer (letters by first appearance, the last
// fastest) and adds each product to its output cell. Fixing a cell's output letters leaves the
// contracted letters visited in the same nested order, so a thread that walks those letters in
// that order adds the same products in the same sequence: products left to right from 1.0, the
// sum from 0.0, both in double with explicit round-to-nearest (__dmul_rn, __dadd_rn) so that nvcc
// fuses nothing into an FMA (the host build targets no FMA). FP64 results then equal the CPU's bit
// for bit; an FP32 device reads float operands and rounds the double sum once.
#include "gpu_context/cuda_check.h"
#include "kernels/cuda/einsum.h"
#include "kernels/cuda/kernel_utils.cuh"

namespace dmlrt::kernels::cuda {
namespace {

template <typename T>
struct EinsumInputs {
  const T* data[kEinsumMaxOperands];
};

template <typename T>
__global__ void einsum_kernel(const EinsumParams p, const EinsumInputs<T> in, T* __restrict__ out) {
  const int64_t total = p.rows * p.cols;
  bool empty = false;  // a contracted range of 0: every cell is an empty sum
  for (int s = 0; s < p.sum_letters; ++s) empty |= p.sum_range[s] == 0;
  for (int64_t i = detail::global_thread(); i < total; i += detail::grid_stride()) {
    const int64_t r = i / p.cols, c = i % p.cols;
    int64_t off[kEinsumMaxOperands];
    for (int k = 0; k < p.operands; ++k)
      off[k] = (p.row_letter >= 0 ? r * p.stride[k][p.row_letter] : 0) +
               (p.col_letter >= 0 ? c * p.stride[k][p.col_letter] : 0);
    double sum = 0.0;
    if (!empty) {
      int64_t idx[kEinsumMaxLetters] = {};
      while (true) {
        double prod = 1.0;
        for (int k = 0; k < p.operands; ++k)
          prod = __dmul_rn(prod, static_cast<double>(in.data[k][off[k]]));
        sum = __dadd_rn(sum, prod);
        // The odometer over the contracted letters, carrying each operand's offset along.
        int s = p.sum_letters - 1;
        for (; s >= 0; --s) {
          const int l = p.sum_letter[s];
          if (++idx[s] < p.sum_range[s]) {
            for (int k = 0; k < p.operands; ++k) off[k] += p.stride[k][l];
            break;
          }
          for (int k = 0; k < p.operands; ++k) off[k] -= (p.sum_range[s] - 1) * p.stride[k][l];
          idx[s] = 0;
        }
        if (s < 0) break;
      }
    }
    out[i] = static_cast<T>(sum);
  }
}

template <typename T>
void einsum(const EinsumParams& p, const T* const* in, T* out, cudaStream_t stream) {
  const int64_t total = p.rows * p.cols;
  if (total == 0) return;
  EinsumInputs<T> inputs{};
  for (int k = 0; k < p.operands; ++k) inputs.data[k] = in[k];
  einsum_kernel<T><<<detail::grid_for(total), detail::kThreads, 0, stream>>>(p, inputs, out);
  DMLRT_CHECK_CTX(cudaGetLastError(), "einsum " << p.rows << "x" << p.cols << " operands="
                                                << p.operands << " sum_letters=" << p.sum_letters);
}

}  // namespace

void launch_einsum(const EinsumParams& p, const double* const* in, double* out,
                   cudaStream_t stream) {
  einsum(p, in, out, stream);
}
void launch_einsum(const EinsumParams& p, const float* const* in, float* out, cudaStream_t stream) {
  einsum(p, in, out, stream);
}

}  // namespace dmlrt::kernels::cuda
