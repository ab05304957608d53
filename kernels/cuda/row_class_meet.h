// Device part of rowClassMeet (rcm; kernels/cpu/row_class_meet.h): the (row, label pair) classes
// of every participating cell, found by a device sort; the class numbers, which follow a Java
// HashMap's order, are the host's (Note [GPU rcm] in instructions/row_class_meet_gpu.cpp).
// Pointers are device pointers; T is double or float; launchers never synchronise.
#pragma once

#include <cstdint>

#include "gpu_context/cuda_types.h"
#include "kernels/cuda/scratch.h"

namespace dmlrt::kernels::cuda {

// The classes of the cells (i, j), i < ma, j < num_cols, whose Java-int labels a[i, j] and
// b[bi, j] (bi = 0 when b_one_row, else i) are both nonzero; a (ma, na), b (?, nb) row-major.
// Classes are numbered g = 0 .. *num - 1 in (row, a, b) order, so each row's are contiguous.
struct RcmClasses {
  int64_t* num = nullptr;    // (1) the number of classes
  uint64_t* pair = nullptr;  // (cells) pair[g] = (uint32 a) << 32 | (uint32 b)
  int64_t* first = nullptr;  // (cells) the class's first cell, i * num_cols + j
  int64_t* size = nullptr;   // (cells) its number of cells
  int64_t* perm = nullptr;   // (cells) cells ordered by class, participating ones first
  int64_t* group = nullptr;  // (cells) 1 + the class of perm[s] (where participating)
  int64_t* seg = nullptr;    // (cells) the cell's row when it participates, else ma
  int64_t ma = 0;
};

// The classes, every buffer from scratch, for cells = ma * num_cols >= 1.
template <typename T>
RcmClasses rcm_classes(const T* a, int64_t ma, int64_t na, const T* b, int64_t nb, bool b_one_row,
                       int64_t num_cols, Scratch& scratch, cudaStream_t stream);

// C[i, j] = label[g], N[i, j] = size[g] for every participating cell (i, j) of class g; C and N
// are (nr, nc) row-major and zeroed by the caller.
template <typename T>
void launch_rcm_scatter(const RcmClasses& c, int64_t cells, int64_t num_cols, const T* label,
                        int64_t nc, T* out_c, T* out_n, cudaStream_t stream);

}  // namespace dmlrt::kernels::cuda
