// dmlrt::Matrix, the public matrix value of the embedded API: rows x cols doubles, held either
// dense row-major or as CSR (row offsets, column indices, values). Standard types only.
#pragma once

#include <cstdint>
#include <vector>

namespace dmlrt {

class Matrix {
 public:
  Matrix() = default;  // 0 x 0 dense
  // (rows, cols) dense row-major; throws dmlrt::Error unless data.size() == rows * cols.
  Matrix(int64_t rows, int64_t cols, std::vector<double> row_major);
  // (rows, cols) of zeros, dense.
  static Matrix zeros(int64_t rows, int64_t cols);
  // From a vector of rows (all of one length; throws dmlrt::Error on ragged input).
  static Matrix from_rows(const std::vector<std::vector<double>>& rows);
  // (rows, cols) CSR: row_ptr has rows+1 non-decreasing entries from 0 to nnz, column indices in
  // [0, cols) and increasing within each row. Throws dmlrt::Error when the arrays are inconsistent.
  static Matrix csr(int64_t rows, int64_t cols, std::vector<int64_t> row_ptr,
                    std::vector<int32_t> col_idx, std::vector<double> values);

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  bool is_sparse() const { return sparse_; }
  // Number of stored non-zero values (explicit zeros of a CSR form are not counted).
  int64_t nnz() const;
  // Cell (r, c) in either form; throws dmlrt::Error when out of range.
  double at(int64_t r, int64_t c) const;

  // Dense form only (throws dmlrt::Error on a CSR matrix): (rows, cols) row-major.
  const std::vector<double>& data() const;
  // CSR form only (throws dmlrt::Error on a dense matrix).
  const std::vector<int64_t>& row_ptr() const;
  const std::vector<int32_t>& col_idx() const;
  const std::vector<double>& values() const;

  Matrix to_dense() const;
  Matrix to_csr() const;  // drops zeros
  std::vector<std::vector<double>> to_rows() const;

 private:
  int64_t rows_ = 0;
  int64_t cols_ = 0;
  bool sparse_ = false;
  std::vector<double> data_;      // dense: (rows, cols) row-major
  std::vector<int64_t> row_ptr_;  // CSR: rows+1
  std::vector<int32_t> col_idx_;  // CSR: nnz
  std::vector<double> values_;    // CSR: nnz
};

}  // namespace dmlrt
