// DeviceMatrix: one matrix in device memory, dense row-major or CSR (never both), of double or
// float elements. It owns its allocations (returned to the manager when it dies) and knows nothing
// about variables: the matrix object (instructions/matrix_object.h) holds one as its device copy.
// Host-clean; the operations that touch the device are in device_ops.h (CUDA builds).
//
// Note [CSR index width]
// Device CSR uses int32 row offsets and column indices (as SystemDS and most cuSPARSE routines).
// When nnz or a dimension exceeds INT32_MAX the upload switches to int64 offsets and indices
// (IndexWidth::k64). int64 CSR is supported by upload/download, cuSPARSE's generic SpMV/SpMM and
// the CSR -> dense conversion; SpGEMM (cuSPARSE supports only int32 there) and the custom kernels
// reject it with NotSupported naming the op and the size. Dense matrices use int64 element counts
// throughout (grid-stride kernels); cuBLAS calls check that their dims fit int.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu_context/cuda_types.h"
#include "memory/memory_manager.h"

namespace dmlrt::mem {

// Element type of device data; the host always holds double (DESIGN.md §6).
enum class DType { kFloat64, kFloat32 };
inline size_t dtype_size(DType t) { return t == DType::kFloat64 ? 8 : 4; }
inline const char* dtype_name(DType t) { return t == DType::kFloat64 ? "fp64" : "fp32"; }
// The one dtype visitor: calls f(T{}) with the element type of `t` (double or float), so one
// generic body serves both precisions: with_dtype(m.dtype(), [&](auto tag) { using T = ...; }).
template <typename F>
void with_dtype(DType t, F&& f) {
  if (t == DType::kFloat64)
    f(double{});
  else
    f(float{});
}

enum class IndexWidth { k32, k64 };

class DeviceMatrix {
 public:
  DeviceMatrix() = default;
  DeviceMatrix(DeviceMatrix&&) noexcept = default;
  DeviceMatrix& operator=(DeviceMatrix&&) noexcept = default;
  DeviceMatrix(const DeviceMatrix&) = delete;
  DeviceMatrix& operator=(const DeviceMatrix&) = delete;

  // (rows, cols) dense row-major; uninitialised unless `zero`.
  // `what` labels the allocation (Note [Allocation labels]).
  static DeviceMatrix dense(MemoryManager& mm, int64_t rows, int64_t cols, DType dtype,
                            cudaStream_t stream, AllocLabel what, bool zero = false);
  // (rows, cols) CSR with room for nnz entries (row offsets not filled). nnz == 0 gives an empty
  // sparse matrix with no device memory at all.
  static DeviceMatrix csr(MemoryManager& mm, int64_t rows, int64_t cols, int64_t nnz, DType dtype,
                          IndexWidth width, cudaStream_t stream, const AllocLabel& what);
  // A CSR over allocations filled elsewhere (a library call that learns nnz on the device).
  static DeviceMatrix adopt_csr(int64_t rows, int64_t cols, int64_t nnz, DType dtype,
                                IndexWidth width, DeviceAllocation row_ptr,
                                DeviceAllocation col_idx, DeviceAllocation values);
  // A dense matrix over an allocation filled elsewhere (a replayed CUDA graph writes it).
  static DeviceMatrix adopt_dense(int64_t rows, int64_t cols, DType dtype, int64_t nnz,
                                  DeviceAllocation values);
  // Index width a CSR of this shape and nnz needs (Note [CSR index width]).
  static IndexWidth width_for(int64_t rows, int64_t cols, int64_t nnz);

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t size() const { return rows_ * cols_; }
  bool is_sparse() const { return sparse_; }
  DType dtype() const { return dtype_; }
  IndexWidth index_width() const { return width_; }
  // True for a CSR without entries (no device memory) — ops short-circuit on it.
  bool is_empty_sparse() const { return sparse_ && nnz_ == 0; }
  // Known nnz, or -1 (dense results: unknown until counted, see device_ops.h count_nnz).
  int64_t nnz() const { return nnz_; }
  void set_nnz(int64_t nnz) { nnz_ = nnz; }

  // Dense: (rows, cols) row-major values. CSR: nnz values.
  void* values() const { return values_.data(); }
  // CSR only: rows+1 offsets and nnz column indices (int32 or int64, see index_width()).
  void* row_ptr() const { return row_ptr_.data(); }
  void* col_idx() const { return col_idx_.data(); }
  template <typename T>
  T* values_as() const {
    return static_cast<T*>(values_.data());
  }

  size_t device_bytes() const { return values_.bytes() + row_ptr_.bytes() + col_idx_.bytes(); }
  // "3x4 dense fp64" / "3x4 csr(nnz=5) fp32"
  std::string describe() const;

 private:
  int64_t rows_ = 0, cols_ = 0;
  bool sparse_ = false;
  DType dtype_ = DType::kFloat64;
  IndexWidth width_ = IndexWidth::k32;
  int64_t nnz_ = -1;
  DeviceAllocation values_, row_ptr_, col_idx_;
};

}  // namespace dmlrt::mem
