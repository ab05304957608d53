// dmlrt::Matrix, the public matrix value; see include/dmlrt/matrix.h. Every failure is a
// dmlrt::Error: sizes are checked before allocating, and an allocation that fails is reported as
// dmlrt::OutOfMemory naming the shape and bytes (never std::bad_alloc or std::length_error).
#include "dmlrt/matrix.h"

#include <algorithm>
#include <limits>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dmlrt/error.h"
#include "gpu_context/error.h"

namespace dmlrt {
namespace {

std::string dims(int64_t rows, int64_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

void check_dims(int64_t rows, int64_t cols, const char* what) {
  if (rows < 0 || cols < 0) {
    throw Error(std::string(what) + ": negative dimensions " + dims(rows, cols));
  }
  if (cols != 0 && rows > std::numeric_limits<int64_t>::max() / cols) {
    throw Error(std::string(what) + ": dimensions " + dims(rows, cols) + " overflow");
  }
}

// Runs `alloc`, which allocates `count` elements of `elem_bytes` for a (rows, cols) matrix, after
// checking the count fits a vector; a failed allocation becomes dmlrt::OutOfMemory naming the
// shape and bytes.
template <typename F>
auto allocating(const char* what, int64_t rows, int64_t cols, int64_t count, size_t elem_bytes,
                F&& alloc) -> decltype(alloc()) {
  const auto max_count =
      static_cast<uint64_t>(std::numeric_limits<std::ptrdiff_t>::max()) / elem_bytes;
  const std::string bytes = std::to_string(static_cast<unsigned long long>(count)) + " x " +
                            std::to_string(elem_bytes) + " bytes";
  if (count < 0 || static_cast<uint64_t>(count) > max_count) {
    throw OutOfMemory(std::string(what) + ": a " + dims(rows, cols) + " matrix needs " + bytes +
                      ", more than the address space holds");
  }
  try {
    return alloc();
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  throw OutOfMemory(std::string(what) + ": out of host memory allocating " + bytes + " for a " +
                    dims(rows, cols) + " matrix");
}

}  // namespace

Matrix::Matrix(int64_t rows, int64_t cols, std::vector<double> row_major)
    : rows_(rows), cols_(cols), data_(std::move(row_major)) {
  check_dims(rows, cols, "Matrix");
  if (static_cast<int64_t>(data_.size()) != rows * cols) {
    throw Error("Matrix: " + std::to_string(data_.size()) + " values given for a " +
                dims(rows, cols) + " matrix (expected " + std::to_string(rows * cols) + ")");
  }
}

Matrix Matrix::zeros(int64_t rows, int64_t cols) {
  check_dims(rows, cols, "Matrix::zeros");
  return Matrix(rows, cols,
                allocating("Matrix::zeros", rows, cols, rows * cols, sizeof(double), [&] {
                  return std::vector<double>(static_cast<size_t>(rows * cols), 0.0);
                }));
}

Matrix Matrix::from_rows(const std::vector<std::vector<double>>& rows) {
  const int64_t m = static_cast<int64_t>(rows.size());
  const int64_t n = m == 0 ? 0 : static_cast<int64_t>(rows[0].size());
  check_dims(m, n, "Matrix::from_rows");
  std::vector<double> data;
  allocating("Matrix::from_rows", m, n, m * n, sizeof(double),
             [&] { data.reserve(static_cast<size_t>(m * n)); });
  for (int64_t i = 0; i < m; ++i) {
    if (static_cast<int64_t>(rows[i].size()) != n) {
      throw Error("Matrix::from_rows: row " + std::to_string(i) + " has " +
                  std::to_string(rows[i].size()) + " values, row 0 has " + std::to_string(n));
    }
    data.insert(data.end(), rows[i].begin(), rows[i].end());
  }
  return Matrix(m, n, std::move(data));
}

Matrix Matrix::csr(int64_t rows, int64_t cols, std::vector<int64_t> row_ptr,
                   std::vector<int32_t> col_idx, std::vector<double> values) {
  check_dims(rows, cols, "Matrix::csr");
  auto fail = [&](const std::string& msg) {
    throw Error("Matrix::csr (" + dims(rows, cols) + "): " + msg);
  };
  if (cols > std::numeric_limits<int32_t>::max()) fail("more columns than 32-bit indices hold");
  if (static_cast<int64_t>(row_ptr.size()) != rows + 1) {
    fail("row_ptr has " + std::to_string(row_ptr.size()) +
         " entries, expected rows+1 = " + std::to_string(rows + 1));
  }
  if (col_idx.size() != values.size()) {
    fail("col_idx has " + std::to_string(col_idx.size()) + " entries but values has " +
         std::to_string(values.size()));
  }
  if (row_ptr[0] != 0 ||
      row_ptr[static_cast<size_t>(rows)] != static_cast<int64_t>(values.size())) {
    fail("row_ptr must start at 0 and end at nnz = " + std::to_string(values.size()));
  }
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t b = row_ptr[static_cast<size_t>(r)], e = row_ptr[static_cast<size_t>(r) + 1];
    if (e < b) fail("row_ptr decreases at row " + std::to_string(r));
    for (int64_t k = b; k < e; ++k) {
      const int32_t c = col_idx[static_cast<size_t>(k)];
      if (c < 0 || c >= cols) {
        fail("column index " + std::to_string(c) + " out of range in row " + std::to_string(r));
      }
      if (k > b && c <= col_idx[static_cast<size_t>(k) - 1]) {
        fail("column indices not increasing in row " + std::to_string(r));
      }
    }
  }
  Matrix m;
  m.rows_ = rows;
  m.cols_ = cols;
  m.sparse_ = true;
  m.row_ptr_ = std::move(row_ptr);
  m.col_idx_ = std::move(col_idx);
  m.values_ = std::move(values);
  return m;
}

int64_t Matrix::nnz() const {
  const std::vector<double>& v = sparse_ ? values_ : data_;
  return static_cast<int64_t>(std::count_if(v.begin(), v.end(), [](double x) { return x != 0.0; }));
}

double Matrix::at(int64_t r, int64_t c) const {
  if (r < 0 || r >= rows_ || c < 0 || c >= cols_) {
    throw Error("Matrix::at: cell (" + std::to_string(r) + ", " + std::to_string(c) +
                ") outside a " + dims(rows_, cols_) + " matrix");
  }
  if (!sparse_) return data_[static_cast<size_t>(r * cols_ + c)];
  const auto b = col_idx_.begin() + row_ptr_[static_cast<size_t>(r)];
  const auto e = col_idx_.begin() + row_ptr_[static_cast<size_t>(r) + 1];
  const auto it = std::lower_bound(b, e, static_cast<int32_t>(c));
  return (it != e && *it == c) ? values_[static_cast<size_t>(it - col_idx_.begin())] : 0.0;
}

const std::vector<double>& Matrix::data() const {
  if (sparse_) throw Error("Matrix::data: the matrix is in CSR form; use to_dense() or values()");
  return data_;
}
const std::vector<int64_t>& Matrix::row_ptr() const {
  if (!sparse_) throw Error("Matrix::row_ptr: the matrix is dense; use to_csr() or data()");
  return row_ptr_;
}
const std::vector<int32_t>& Matrix::col_idx() const {
  if (!sparse_) throw Error("Matrix::col_idx: the matrix is dense; use to_csr() or data()");
  return col_idx_;
}
const std::vector<double>& Matrix::values() const {
  if (!sparse_) throw Error("Matrix::values: the matrix is dense; use to_csr() or data()");
  return values_;
}

Matrix Matrix::to_dense() const {
  if (!sparse_) {
    return allocating("Matrix::to_dense", rows_, cols_, rows_ * cols_, sizeof(double),
                      [&] { return *this; });
  }
  check_dims(rows_, cols_, "Matrix::to_dense");
  std::vector<double> d =
      allocating("Matrix::to_dense", rows_, cols_, rows_ * cols_, sizeof(double),
                 [&] { return std::vector<double>(static_cast<size_t>(rows_ * cols_), 0.0); });
  for (int64_t r = 0; r < rows_; ++r) {
    for (int64_t k = row_ptr_[static_cast<size_t>(r)]; k < row_ptr_[static_cast<size_t>(r) + 1];
         ++k) {
      d[static_cast<size_t>(r * cols_ + col_idx_[static_cast<size_t>(k)])] =
          values_[static_cast<size_t>(k)];
    }
  }
  return Matrix(rows_, cols_, std::move(d));
}

Matrix Matrix::to_csr() const {
  if (!sparse_ && cols_ > std::numeric_limits<int32_t>::max()) {
    throw Error("Matrix::to_csr: " + dims(rows_, cols_) +
                " has more columns than 32-bit indices hold");
  }
  std::vector<int64_t> rp =
      allocating("Matrix::to_csr", rows_, cols_, rows_ + 1, sizeof(int64_t),
                 [&] { return std::vector<int64_t>(static_cast<size_t>(rows_) + 1, 0); });
  std::vector<int32_t> ci;
  std::vector<double> vals;
  const int64_t nnz_bound = sparse_ ? static_cast<int64_t>(values_.size()) : nnz();
  allocating("Matrix::to_csr", rows_, cols_, nnz_bound, sizeof(double) + sizeof(int32_t), [&] {
    ci.reserve(static_cast<size_t>(nnz_bound));
    vals.reserve(static_cast<size_t>(nnz_bound));
  });
  for (int64_t r = 0; r < rows_; ++r) {
    if (sparse_) {
      for (int64_t k = row_ptr_[static_cast<size_t>(r)]; k < row_ptr_[static_cast<size_t>(r) + 1];
           ++k) {
        if (values_[static_cast<size_t>(k)] != 0.0) {
          ci.push_back(col_idx_[static_cast<size_t>(k)]);
          vals.push_back(values_[static_cast<size_t>(k)]);
        }
      }
    } else {
      for (int64_t c = 0; c < cols_; ++c) {
        const double v = data_[static_cast<size_t>(r * cols_ + c)];
        if (v != 0.0) {
          ci.push_back(static_cast<int32_t>(c));
          vals.push_back(v);
        }
      }
    }
    rp[static_cast<size_t>(r) + 1] = static_cast<int64_t>(vals.size());
  }
  return csr(rows_, cols_, std::move(rp), std::move(ci), std::move(vals));
}

std::vector<std::vector<double>> Matrix::to_rows() const {
  const Matrix d = to_dense();
  return allocating("Matrix::to_rows", rows_, cols_, rows_ * cols_, sizeof(double), [&] {
    std::vector<std::vector<double>> out(static_cast<size_t>(rows_));
    for (int64_t r = 0; r < rows_; ++r) {
      out[static_cast<size_t>(r)].assign(d.data_.begin() + r * cols_,
                                         d.data_.begin() + (r + 1) * cols_);
    }
    return out;
  });
}

}  // namespace dmlrt
