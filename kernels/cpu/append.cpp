// cbind / rbind of dense and CSR blocks; see append.h.
#include "kernels/cpu/append.h"

#include <algorithm>

#include "gpu_context/error.h"
#include "kernels/cpu/parallel.h"

namespace dmlrt::kernels::cpu {
namespace {

// Appends row r of `b` (nonzeros only) to CSR arrays with its columns shifted by `offset`.
void append_row_csr(const MatrixBlock& b, int64_t r, int64_t offset, std::vector<int32_t>& col_idx,
                    std::vector<double>& values) {
  if (b.is_sparse()) {
    const auto& rp = b.row_ptr();
    const auto& ci = b.col_idx();
    const auto& v = b.csr_values();
    for (int64_t k = rp[r]; k < rp[r + 1]; ++k) {
      if (v[k] == 0.0) continue;
      col_idx.push_back(static_cast<int32_t>(ci[k] + offset));
      values.push_back(v[k]);
    }
  } else {
    const double* a = b.dense_data() + r * b.cols();
    for (int64_t c = 0; c < b.cols(); ++c) {
      if (a[c] == 0.0) continue;
      col_idx.push_back(static_cast<int32_t>(c + offset));
      values.push_back(a[c]);
    }
  }
}

// Writes row r of `b` into the dense row `out` (already zeroed).
void copy_row_dense(const MatrixBlock& b, int64_t r, double* out) {
  if (b.is_sparse()) {
    const auto& rp = b.row_ptr();
    for (int64_t k = rp[r]; k < rp[r + 1]; ++k) out[b.col_idx()[k]] = b.csr_values()[k];
  } else {
    const double* a = b.dense_data() + r * b.cols();
    std::copy(a, a + b.cols(), out);
  }
}

int64_t total_nnz(const std::vector<const MatrixBlock*>& inputs) {
  int64_t n = 0;
  for (const auto* b : inputs) n += b->nnz();
  return n;
}

// Checks that every input has input 1's row count (cbind) or column count (rbind) and returns
// the sum of the other dimension: the output's column (cbind) or row (rbind) count.
int64_t checked_extent(const std::vector<const MatrixBlock*>& inputs, bool cbind) {
  const char* op = cbind ? "cbind" : "rbind";
  DMLRT_REQUIRE(!inputs.empty(), ShapeError, op << ": no inputs");
  const MatrixBlock& first = *inputs[0];
  int64_t sum = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const MatrixBlock& b = *inputs[i];
    DMLRT_REQUIRE(cbind ? b.rows() == first.rows() : b.cols() == first.cols(), ShapeError,
                  op << (cbind ? ": row counts" : ": column counts") << " differ: input 1 is "
                     << dims_string(first.rows(), first.cols()) << ", input " << i + 1 << " is "
                     << dims_string(b.rows(), b.cols()));
    sum += cbind ? b.cols() : b.rows();
  }
  return sum;
}

// CSR arrays of an output with m rows and room for nnz entries, filled row by row.
struct CsrBuffers {
  std::vector<int64_t> row_ptr;
  std::vector<int32_t> col_idx;
  std::vector<double> values;
  CsrBuffers(int64_t m, int64_t nnz) : row_ptr(static_cast<size_t>(m + 1), 0) {
    col_idx.reserve(static_cast<size_t>(nnz));
    values.reserve(static_cast<size_t>(nnz));
  }
  // Closes output row r (0-based) after its entries were appended.
  void end_row(int64_t r) {
    row_ptr[static_cast<size_t>(r + 1)] = static_cast<int64_t>(values.size());
  }
  MatrixBlock finish(int64_t m, int64_t n) {
    return MatrixBlock::csr(m, n, std::move(row_ptr), std::move(col_idx), std::move(values));
  }
};

}  // namespace

MatrixBlock cbind(const std::vector<const MatrixBlock*>& inputs) {
  const int64_t m = inputs.empty() ? 0 : inputs[0]->rows();
  const int64_t n = checked_extent(inputs, true);
  const int64_t nnz = total_nnz(inputs);
  if (MatrixBlock::prefers_sparse(m, n, nnz)) {
    CsrBuffers csr(m, nnz);
    for (int64_t r = 0; r < m; ++r) {
      int64_t offset = 0;
      for (const auto* b : inputs) {
        append_row_csr(*b, r, offset, csr.col_idx, csr.values);
        offset += b->cols();
      }
      csr.end_row(r);
    }
    return csr.finish(m, n);
  }
  MatrixBlock out = MatrixBlock::dense(m, n, 0.0);  // (m, n) row-major
  double* o = out.dense_data();
  // Output rows are written independently (disjoint cells: any split gives the same block).
  parallel_for(0, m, row_grain(n), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t offset = 0;
      for (const auto* b : inputs) {
        copy_row_dense(*b, r, o + r * n + offset);
        offset += b->cols();
      }
    }
  });
  return out;
}

MatrixBlock rbind(const std::vector<const MatrixBlock*>& inputs) {
  const int64_t n = inputs.empty() ? 0 : inputs[0]->cols();
  const int64_t m = checked_extent(inputs, false);
  const int64_t nnz = total_nnz(inputs);
  if (MatrixBlock::prefers_sparse(m, n, nnz)) {
    CsrBuffers csr(m, nnz);
    int64_t out_r = 0;
    for (const auto* b : inputs)
      for (int64_t r = 0; r < b->rows(); ++r) {
        append_row_csr(*b, r, 0, csr.col_idx, csr.values);
        csr.end_row(out_r++);
      }
    return csr.finish(m, n);
  }
  MatrixBlock out = MatrixBlock::dense(m, n, 0.0);  // (m, n) row-major
  double* o = out.dense_data();
  int64_t out_r = 0;
  for (const auto* b : inputs) {
    double* dst = o + out_r * n;
    parallel_for(0, b->rows(), row_grain(n), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) copy_row_dense(*b, r, dst + r * n);
    });
    out_r += b->rows();
  }
  return out;
}

}  // namespace dmlrt::kernels::cpu
