// MatrixBlock: dense row-major / CSR host storage and conversions between the two.
#include "kernels/matrix_block.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>

#include "gpu_context/error.h"
#include "kernels/cpu/parallel.h"
#include "kernels/host_memory.h"

namespace dmlrt::kernels {
namespace {

constexpr double kSparsityTurnPoint = 0.4;  // SystemDS MatrixBlock.SPARSITY_TURN_POINT

void check_dims(int64_t rows, int64_t cols) {
  DMLRT_REQUIRE(rows >= 0 && cols >= 0, ShapeError,
                "invalid matrix dimensions " << rows << "x" << cols);
  DMLRT_REQUIRE(cols <= std::numeric_limits<int32_t>::max(), ShapeError,
                "matrix with " << cols << " columns exceeds the supported 2^31-1 columns");
}

}  // namespace

MatrixBlock MatrixBlock::dense(int64_t rows, int64_t cols, double value) {
  // Sizes come from plans: checked against overflow and free memory before anything is taken.
  check_host_alloc("dense allocation", rows, cols, sizeof(double));
  check_dims(rows, cols);
  MatrixBlock b;
  b.rows_ = rows;
  b.cols_ = cols;
  b.dense_.assign(static_cast<size_t>(rows * cols), value);
  return b;
}

MatrixBlock MatrixBlock::dense(int64_t rows, int64_t cols, std::vector<double> values) {
  check_dims(rows, cols);
  DMLRT_REQUIRE(static_cast<int64_t>(values.size()) == rows * cols, ShapeError,
                "dense block " << rows << "x" << cols << " given " << values.size() << " values");
  MatrixBlock b;
  b.rows_ = rows;
  b.cols_ = cols;
  b.dense_ = std::move(values);
  return b;
}

MatrixBlock MatrixBlock::csr(int64_t rows, int64_t cols, std::vector<int64_t> row_ptr,
                             std::vector<int32_t> col_idx, std::vector<double> values) {
  check_dims(rows, cols);
  DMLRT_REQUIRE(static_cast<int64_t>(row_ptr.size()) == rows + 1, ShapeError,
                "CSR block " << rows << "x" << cols << " given " << row_ptr.size()
                             << " row offsets (expected " << rows + 1 << ")");
  DMLRT_REQUIRE(col_idx.size() == values.size() &&
                    row_ptr.front() == 0 &&
                    row_ptr.back() == static_cast<int64_t>(values.size()),
                ShapeError, "inconsistent CSR block " << rows << "x" << cols);
  MatrixBlock b;
  b.rows_ = rows;
  b.cols_ = cols;
  b.sparse_ = true;
  b.row_ptr_ = std::move(row_ptr);
  b.col_idx_ = std::move(col_idx);
  b.values_ = std::move(values);
  return b;
}

MatrixBlock MatrixBlock::empty_sparse(int64_t rows, int64_t cols) {
  check_dims(rows, cols);
  check_host_alloc("sparse row index", rows + 1, 1, sizeof(int64_t));
  MatrixBlock b;
  b.rows_ = rows;
  b.cols_ = cols;
  b.sparse_ = true;
  b.row_ptr_.assign(static_cast<size_t>(rows + 1), 0);
  return b;
}

int64_t MatrixBlock::nnz() const {
  // Every op's examine_format() counts its output: large blocks are counted on the CPU pool
  // (per-chunk counts are integers, so the split cannot change the result).
  const std::vector<double>& v = sparse_ ? values_ : dense_;
  std::atomic<int64_t> n{0};
  cpu::parallel_for(0, static_cast<int64_t>(v.size()), cpu::kParallelGrain,
                    [&](int64_t lo, int64_t hi) {
                      int64_t c = 0;
                      for (int64_t i = lo; i < hi; ++i) c += (v[static_cast<size_t>(i)] != 0.0);
                      n += c;
                    });
  return n.load();
}

double MatrixBlock::sparsity() const {
  return is_empty() ? 0.0 : static_cast<double>(nnz()) / static_cast<double>(size());
}

double MatrixBlock::get(int64_t r, int64_t c) const {
  if (!sparse_) return dense_[static_cast<size_t>(r * cols_ + c)];
  auto begin = col_idx_.begin() + row_ptr_[r];
  auto end = col_idx_.begin() + row_ptr_[r + 1];
  auto it = std::lower_bound(begin, end, static_cast<int32_t>(c));
  return (it != end && *it == c) ? values_[static_cast<size_t>(it - col_idx_.begin())] : 0.0;
}

const std::vector<double>& MatrixBlock::dense_values() const {
  DMLRT_REQUIRE(!sparse_, Error, "internal: dense access to a sparse block " << shape_string());
  return dense_;
}

std::vector<double>& MatrixBlock::dense_values() {
  DMLRT_REQUIRE(!sparse_, Error, "internal: dense access to a sparse block " << shape_string());
  return dense_;
}

const std::vector<int64_t>& MatrixBlock::row_ptr() const {
  DMLRT_REQUIRE(sparse_, Error, "internal: CSR access to a dense block " << shape_string());
  return row_ptr_;
}

const std::vector<int32_t>& MatrixBlock::col_idx() const {
  DMLRT_REQUIRE(sparse_, Error, "internal: CSR access to a dense block " << shape_string());
  return col_idx_;
}

const std::vector<double>& MatrixBlock::csr_values() const {
  DMLRT_REQUIRE(sparse_, Error, "internal: CSR access to a dense block " << shape_string());
  return values_;
}

MatrixBlock MatrixBlock::to_dense() const {
  if (!sparse_) return *this;
  MatrixBlock d = dense(rows_, cols_, 0.0);
  for (int64_t r = 0; r < rows_; ++r)
    for (int64_t k = row_ptr_[r]; k < row_ptr_[r + 1]; ++k)
      d.dense_[static_cast<size_t>(r * cols_ + col_idx_[k])] = values_[k];
  return d;
}

MatrixBlock MatrixBlock::to_sparse() const {
  MatrixBlock s;
  s.rows_ = rows_;
  s.cols_ = cols_;
  s.sparse_ = true;
  s.row_ptr_.assign(static_cast<size_t>(rows_ + 1), 0);
  const int64_t n = nnz();
  s.col_idx_.reserve(static_cast<size_t>(n));
  s.values_.reserve(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows_; ++r) {
    if (sparse_) {
      for (int64_t k = row_ptr_[r]; k < row_ptr_[r + 1]; ++k) {
        if (values_[k] != 0.0) {
          s.col_idx_.push_back(col_idx_[k]);
          s.values_.push_back(values_[k]);
        }
      }
    } else {
      const double* row = dense_.data() + r * cols_;
      for (int64_t c = 0; c < cols_; ++c) {
        if (row[c] != 0.0) {
          s.col_idx_.push_back(static_cast<int32_t>(c));
          s.values_.push_back(row[c]);
        }
      }
    }
    s.row_ptr_[r + 1] = static_cast<int64_t>(s.values_.size());
  }
  return s;
}

bool MatrixBlock::prefers_sparse(int64_t rows, int64_t cols, int64_t nnz) {
  if (rows <= 0 || cols <= 0) return false;
  const double sp = static_cast<double>(nnz) / static_cast<double>(rows) / static_cast<double>(cols);
  // CSR: 12 bytes a nonzero + 8 a row; dense: 8 a cell.
  const double sparse_bytes = 12.0 * static_cast<double>(nnz) + 8.0 * static_cast<double>(rows + 1);
  const double dense_bytes = 8.0 * static_cast<double>(rows) * static_cast<double>(cols);
  return sp < kSparsityTurnPoint && sparse_bytes < dense_bytes;
}

void MatrixBlock::examine_format() { examine_format(nnz()); }

void MatrixBlock::examine_format(int64_t nnz) {
  const bool want_sparse = prefers_sparse(rows_, cols_, nnz);
  if (want_sparse && !sparse_) *this = to_sparse();
  else if (!want_sparse && sparse_) *this = to_dense();
}

bool MatrixBlock::equals(const MatrixBlock& other, double tol) const {
  if (rows_ != other.rows_ || cols_ != other.cols_) return false;
  for (int64_t r = 0; r < rows_; ++r)
    for (int64_t c = 0; c < cols_; ++c) {
      const double a = get(r, c), b = other.get(r, c);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (a == b) continue;
      if (!(std::fabs(a - b) <= tol + tol * std::fabs(b))) return false;
    }
  return true;
}

std::string MatrixBlock::shape_string() const {
  std::ostringstream os;
  os << rows_ << "x" << cols_;
  if (sparse_) os << " sparse(nnz=" << values_.size() << ")";
  else os << " dense";
  return os.str();
}

std::string dims_string(int64_t rows, int64_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

}  // namespace dmlrt::kernels
