// The host matrix block: rows x cols of doubles, stored either dense row-major or CSR. Every CPU
// kernel computes on it; device copies (memory/) are made from and back into it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dmlrt::kernels {

// Note [Sparse output format]
// SystemDS keeps a block sparse when its sparsity is below 0.4 and the sparse form is smaller than
// the dense one (MatrixBlock.evalSparseFormatInMemory). Ops produce whatever is natural and call
// MatrixBlock::examine_format() on their result, so outputs are sparse exactly when SystemDS would
// make them sparse. Values never depend on the format.
class MatrixBlock {
 public:
  MatrixBlock() = default;  // 0 x 0 dense

  // (rows, cols) dense row-major, filled with `value`.
  static MatrixBlock dense(int64_t rows, int64_t cols, double value = 0.0);
  // (rows, cols) dense row-major from values (size rows*cols).
  static MatrixBlock dense(int64_t rows, int64_t cols, std::vector<double> values);
  // (rows, cols) CSR; row_ptr has rows+1 entries, column indices sorted within each row.
  static MatrixBlock csr(int64_t rows, int64_t cols, std::vector<int64_t> row_ptr,
                         std::vector<int32_t> col_idx, std::vector<double> values);
  // (rows, cols) CSR with no nonzeros (holds no value storage).
  static MatrixBlock empty_sparse(int64_t rows, int64_t cols);

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t size() const { return rows_ * cols_; }
  bool is_sparse() const { return sparse_; }
  bool is_empty() const { return rows_ == 0 || cols_ == 0; }

  // Exact number of nonzeros (counts explicit zeros of CSR storage out).
  int64_t nnz() const;
  double sparsity() const;

  // Cell access in either format (O(log nnz_row) for CSR).
  double get(int64_t r, int64_t c) const;

  // Dense storage (row-major, size rows*cols); only for dense blocks.
  const std::vector<double>& dense_values() const;
  std::vector<double>& dense_values();
  const double* dense_data() const { return dense_values().data(); }
  double* dense_data() { return dense_values().data(); }

  // CSR storage; only for sparse blocks.
  const std::vector<int64_t>& row_ptr() const;
  const std::vector<int32_t>& col_idx() const;
  const std::vector<double>& csr_values() const;

  // Converted copies; a block already in the wanted format is copied as is.
  MatrixBlock to_dense() const;
  MatrixBlock to_sparse() const;  // drops explicit zeros

  // In-place conversion to the format SystemDS would pick (see Note [Sparse output format]).
  void examine_format();
  // The same for a caller that counted the nonzeros while it wrote them (saves a pass).
  void examine_format(int64_t nnz);
  static bool prefers_sparse(int64_t rows, int64_t cols, int64_t nnz);

  // Structural and numeric equality (format-independent).
  bool equals(const MatrixBlock& other, double tol = 0.0) const;

  std::string shape_string() const;  // "3x4 dense" / "3x4 sparse(nnz=5)"

 private:
  int64_t rows_ = 0;
  int64_t cols_ = 0;
  bool sparse_ = false;
  std::vector<double> dense_;     // (rows, cols) row-major
  std::vector<int64_t> row_ptr_;  // rows+1
  std::vector<int32_t> col_idx_;  // nnz
  std::vector<double> values_;    // nnz
};

// "RxC" for messages.
std::string dims_string(int64_t rows, int64_t cols);

}  // namespace dmlrt::kernels
