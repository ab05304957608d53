// DeviceMatrix construction; see device_matrix.h.
#include "memory/device_matrix.h"

#include <limits>
#include <sstream>
#include <utility>

#include "gpu_context/error.h"

namespace dmlrt::mem {

DeviceMatrix DeviceMatrix::dense(MemoryManager& mm, int64_t rows, int64_t cols, DType dtype,
                                 cudaStream_t stream, AllocLabel what, bool zero) {
  DMLRT_REQUIRE(rows >= 0 && cols >= 0, ShapeError,
                "device matrix for " << what.str() << ": bad shape " << rows << "x" << cols);
  DeviceMatrix m;
  m.rows_ = rows;
  m.cols_ = cols;
  m.dtype_ = dtype;
  m.values_ = mm.allocate(static_cast<size_t>(rows) * static_cast<size_t>(cols) * dtype_size(dtype),
                          std::move(what), stream, zero);
  m.nnz_ = (rows == 0 || cols == 0 || zero) ? 0 : -1;
  return m;
}

IndexWidth DeviceMatrix::width_for(int64_t rows, int64_t cols, int64_t nnz) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  return (nnz > kMax || rows > kMax || cols > kMax) ? IndexWidth::k64 : IndexWidth::k32;
}

DeviceMatrix DeviceMatrix::csr(MemoryManager& mm, int64_t rows, int64_t cols, int64_t nnz,
                               DType dtype, IndexWidth width, cudaStream_t stream,
                               const AllocLabel& what) {
  DMLRT_REQUIRE(
      rows >= 0 && cols >= 0 && nnz >= 0, ShapeError,
      "device CSR for " << what.str() << ": bad shape " << rows << "x" << cols << " nnz=" << nnz);
  DeviceMatrix m;
  m.rows_ = rows;
  m.cols_ = cols;
  m.sparse_ = true;
  m.dtype_ = dtype;
  m.width_ = width;
  m.nnz_ = nnz;
  if (nnz == 0) return m;  // empty sparse: no device memory
  const size_t isz = width == IndexWidth::k32 ? 4 : 8;
  m.values_ = mm.allocate(static_cast<size_t>(nnz) * dtype_size(dtype),
                          what.with_note(" (csr values)"), stream);
  m.row_ptr_ = mm.allocate(static_cast<size_t>(rows + 1) * isz,
                           what.with_note(" (csr row offsets)"), stream);
  m.col_idx_ =
      mm.allocate(static_cast<size_t>(nnz) * isz, what.with_note(" (csr column indices)"), stream);
  return m;
}

DeviceMatrix DeviceMatrix::adopt_dense(int64_t rows, int64_t cols, DType dtype, int64_t nnz,
                                       DeviceAllocation values) {
  DeviceMatrix m;
  m.rows_ = rows;
  m.cols_ = cols;
  m.dtype_ = dtype;
  m.nnz_ = nnz;
  m.values_ = std::move(values);
  return m;
}

DeviceMatrix DeviceMatrix::adopt_csr(int64_t rows, int64_t cols, int64_t nnz, DType dtype,
                                     IndexWidth width, DeviceAllocation row_ptr,
                                     DeviceAllocation col_idx, DeviceAllocation values) {
  DeviceMatrix m;
  m.rows_ = rows;
  m.cols_ = cols;
  m.sparse_ = true;
  m.dtype_ = dtype;
  m.width_ = width;
  m.nnz_ = nnz;
  if (nnz > 0) {  // an empty CSR keeps no memory (its offsets would be all zeros)
    m.row_ptr_ = std::move(row_ptr);
    m.col_idx_ = std::move(col_idx);
    m.values_ = std::move(values);
  }
  return m;
}

std::string DeviceMatrix::describe() const {
  std::ostringstream os;
  os << rows_ << "x" << cols_ << " ";
  if (sparse_)
    os << "csr(nnz=" << nnz_ << (width_ == IndexWidth::k64 ? ", int64" : "") << ")";
  else
    os << "dense";
  os << " " << dtype_name(dtype_);
  return os.str();
}

}  // namespace dmlrt::mem
