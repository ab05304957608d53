// Transpose, reshape, diag and rev on dense and CSR blocks; see reorg.h.
#include "kernels/cpu/reorg.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/cpu/parallel.h"
#include "kernels/host_memory.h"

namespace dmlrt::kernels::cpu {
namespace {

// Builds CSR from (row, col, value) triplets given in any order (counting sort by row, then a
// sort of each row's columns). Zeros are dropped.
MatrixBlock csr_from_triplets(int64_t rows, int64_t cols, const std::vector<int64_t>& tr,
                              const std::vector<int64_t>& tc, const std::vector<double>& tv) {
  std::vector<int64_t> row_ptr(static_cast<size_t>(rows + 1), 0);
  for (size_t k = 0; k < tv.size(); ++k)
    if (tv[k] != 0.0) ++row_ptr[static_cast<size_t>(tr[k] + 1)];
  for (int64_t r = 0; r < rows; ++r) row_ptr[r + 1] += row_ptr[r];
  std::vector<int64_t> next(row_ptr.begin(), row_ptr.end() - 1);
  std::vector<int32_t> col_idx(static_cast<size_t>(row_ptr.back()));
  std::vector<double> values(static_cast<size_t>(row_ptr.back()));
  for (size_t k = 0; k < tv.size(); ++k) {
    if (tv[k] == 0.0) continue;
    const int64_t p = next[static_cast<size_t>(tr[k])]++;
    col_idx[p] = static_cast<int32_t>(tc[k]);
    values[p] = tv[k];
  }
  std::vector<std::pair<int32_t, double>> tmp;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t b = row_ptr[r], e = row_ptr[r + 1];
    if (std::is_sorted(col_idx.begin() + b, col_idx.begin() + e)) continue;
    tmp.clear();
    for (int64_t k = b; k < e; ++k) tmp.emplace_back(col_idx[k], values[k]);
    std::sort(tmp.begin(), tmp.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    for (int64_t k = b; k < e; ++k) {
      col_idx[k] = tmp[static_cast<size_t>(k - b)].first;
      values[k] = tmp[static_cast<size_t>(k - b)].second;
    }
  }
  return MatrixBlock::csr(rows, cols, std::move(row_ptr), std::move(col_idx), std::move(values));
}

}  // namespace

MatrixBlock transpose(const MatrixBlock& in) {
  const int64_t m = in.rows(), n = in.cols();
  if (!in.is_sparse()) {
    MatrixBlock out = MatrixBlock::dense(n, m, 0.0);  // (n, m) row-major
    const double* a = in.dense_data();                // (m, n) row-major
    double* b = out.dense_data();
    // Tiles keep both the read and the write side in cache. The pool splits the longer side into
    // bands of whole tiles (tile rows of the input, or tile columns when it is wide); bands write
    // disjoint cells.
    // The nonzeros are counted on the way, so examine_format() needs no pass of its own.
    constexpr int64_t kTile = 64;
    std::atomic<int64_t> nnz{0};
    auto tiles = [&](int64_t i0_begin, int64_t i0_end, int64_t j0_begin, int64_t j0_end) {
      int64_t nz = 0;
      for (int64_t i0 = i0_begin; i0 < i0_end; i0 += kTile)
        for (int64_t j0 = j0_begin; j0 < j0_end; j0 += kTile) {
          const int64_t i1 = std::min(m, i0 + kTile), j1 = std::min(n, j0 + kTile);
          for (int64_t i = i0; i < i1; ++i)
            for (int64_t j = j0; j < j1; ++j) {
              const double x = a[i * n + j];
              b[j * m + i] = x;
              nz += x != 0.0;
            }
        }
      nnz += nz;
    };
    const bool by_rows = m >= n;
    const int64_t bands = ((by_rows ? m : n) + kTile - 1) / kTile;
    const int64_t band_cells = std::max<int64_t>(1, kTile * (by_rows ? n : m));
    parallel_for(0, bands, (kParallelGrain + band_cells - 1) / band_cells,
                 [&](int64_t t0, int64_t t1) {
                   if (by_rows)
                     tiles(t0 * kTile, std::min(m, t1 * kTile), 0, n);
                   else
                     tiles(0, m, t0 * kTile, std::min(n, t1 * kTile));
                 });
    out.examine_format(nnz.load());
    return out;
  }
  // CSR transpose by counting columns; visiting input rows in order leaves each output row's
  // column indices sorted.
  const auto& rp = in.row_ptr();
  const auto& ci = in.col_idx();
  const auto& v = in.csr_values();
  // Bands of rows count their entries per column; output column j takes band b's entries after
  // those of bands < b, so every output row keeps its entries in input-row order whatever the
  // bands: the same block for any thread count. Bands are fixed by the shape (about 4 Mi counters
  // in all at most).
  const int64_t nnz = rp[m];
  const int64_t max_bands = std::max<int64_t>(1, (int64_t{1} << 22) / std::max<int64_t>(1, n));
  const int64_t band = std::max<int64_t>(
      std::max<int64_t>(1, (m + max_bands - 1) / max_bands),
      row_grain(std::max<int64_t>(1, nnz / std::max<int64_t>(1, m))));
  const int64_t bands = chunk_count(0, m, band);
  std::vector<int64_t> count(static_cast<size_t>(bands * n), 0);  // (bands, n)
  parallel_chunks(0, m, band, [&](int64_t b, int64_t r0, int64_t r1) {
    int64_t* c = count.data() + b * n;
    for (int64_t k = rp[r0]; k < rp[r1]; ++k) ++c[ci[k]];
  });
  std::vector<int64_t> row_ptr(static_cast<size_t>(n + 1), 0);
  for (int64_t j = 0; j < n; ++j) {  // count[b][j] becomes band b's first slot in column j
    int64_t at = row_ptr[j];
    for (int64_t b = 0; b < bands; ++b) {
      const int64_t c = count[static_cast<size_t>(b * n + j)];
      count[static_cast<size_t>(b * n + j)] = at;
      at += c;
    }
    row_ptr[j + 1] = at;
  }
  std::vector<int32_t> col_idx(static_cast<size_t>(nnz));
  std::vector<double> values(static_cast<size_t>(nnz));
  parallel_chunks(0, m, band, [&](int64_t b, int64_t r0, int64_t r1) {
    int64_t* next = count.data() + b * n;
    for (int64_t i = r0; i < r1; ++i)
      for (int64_t k = rp[i]; k < rp[i + 1]; ++k) {
        const int64_t p = next[ci[k]]++;
        col_idx[p] = static_cast<int32_t>(i);
        values[p] = v[k];
      }
  });
  MatrixBlock out =
      MatrixBlock::csr(n, m, std::move(row_ptr), std::move(col_idx), std::move(values));
  out.examine_format();
  return out;
}

MatrixBlock reshape(const MatrixBlock& in, int64_t rows, int64_t cols, bool byrow) {
  const int64_t m = in.rows(), n = in.cols();
  DMLRT_REQUIRE(rows >= 0 && cols >= 0 && static_cast<__int128>(rows) * cols == m * n, ShapeError,
                "reshape: cannot reshape a " << dims_string(m, n) << " matrix (" << m * n
                                             << " cells) into " << dims_string(rows, cols) << " ("
                                             << static_cast<double>(rows) * cols << " cells)");
  if (!in.is_sparse()) {
    MatrixBlock out = MatrixBlock::dense(rows, cols, 0.0);  // (rows, cols) row-major
    const double* a = in.dense_data();
    double* b = out.dense_data();
    if (byrow) {
      std::copy(a, a + m * n, b);
    } else {
      // Column-major cell order: input (i, j) has index j*m + i, output (r, c) has c*rows + r.
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const int64_t idx = j * m + i;
          b[(idx % rows) * cols + idx / rows] = a[i * n + j];
        }
    }
    out.examine_format();
    return out;
  }
  // A CSR result has a row offset per row: reshaping a long sparse row into a column can ask
  // for far more than the input holds.
  check_host_alloc("reshape into " + dims_string(rows, cols) + " sparse", rows + 1, 1,
                   sizeof(int64_t));
  const auto& rp = in.row_ptr();
  const auto& ci = in.col_idx();
  const auto& v = in.csr_values();
  if (byrow) {
    // Row-major order is preserved, so the nonzeros arrive already sorted for the output CSR.
    std::vector<int64_t> row_ptr(static_cast<size_t>(rows + 1), 0);
    std::vector<int32_t> col_idx;
    std::vector<double> values;
    col_idx.reserve(v.size());
    values.reserve(v.size());
    int64_t cur_row = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t k = rp[i]; k < rp[i + 1]; ++k) {
        if (v[k] == 0.0) continue;
        const int64_t idx = i * n + ci[k];
        const int64_t r = idx / cols;
        while (cur_row < r)
          row_ptr[static_cast<size_t>(++cur_row)] = static_cast<int64_t>(values.size());
        col_idx.push_back(static_cast<int32_t>(idx % cols));
        values.push_back(v[k]);
      }
    while (cur_row < rows)
      row_ptr[static_cast<size_t>(++cur_row)] = static_cast<int64_t>(values.size());
    MatrixBlock out =
        MatrixBlock::csr(rows, cols, std::move(row_ptr), std::move(col_idx), std::move(values));
    out.examine_format();
    return out;
  }
  std::vector<int64_t> tr, tc;
  std::vector<double> tv;
  tr.reserve(v.size());
  tc.reserve(v.size());
  tv.reserve(v.size());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t k = rp[i]; k < rp[i + 1]; ++k) {
      const int64_t idx = static_cast<int64_t>(ci[k]) * m + i;
      tr.push_back(idx % rows);
      tc.push_back(idx / rows);
      tv.push_back(v[k]);
    }
  MatrixBlock out = csr_from_triplets(rows, cols, tr, tc, tv);
  out.examine_format();
  return out;
}

MatrixBlock diag(const MatrixBlock& in) {
  const int64_t m = in.rows(), n = in.cols();
  if (n == 1) {
    // Vector to diagonal matrix: built as CSR (n*n dense could be huge), then examined.
    std::vector<int64_t> row_ptr(static_cast<size_t>(m + 1), 0);
    std::vector<int32_t> col_idx;
    std::vector<double> values;
    for (int64_t i = 0; i < m; ++i) {
      const double x = in.get(i, 0);
      if (x != 0.0) {
        col_idx.push_back(static_cast<int32_t>(i));
        values.push_back(x);
      }
      row_ptr[static_cast<size_t>(i + 1)] = static_cast<int64_t>(values.size());
    }
    MatrixBlock out =
        MatrixBlock::csr(m, m, std::move(row_ptr), std::move(col_idx), std::move(values));
    out.examine_format();
    return out;
  }
  DMLRT_REQUIRE(
      m == n, ShapeError,
      "diag: expects a column vector (n x 1) or a square matrix, got " << dims_string(m, n));
  MatrixBlock out = MatrixBlock::dense(m, 1, 0.0);  // (n, 1)
  double* b = out.dense_data();
  for (int64_t i = 0; i < m; ++i) b[i] = in.get(i, i);
  out.examine_format();
  return out;
}

namespace {

// Output row i is input row src_row(i) (a permutation of the rows), in the input's format.
template <typename SrcRow>
MatrixBlock permute_rows(const MatrixBlock& in, SrcRow src_row) {
  const int64_t m = in.rows(), n = in.cols();
  if (!in.is_sparse()) {
    MatrixBlock out = MatrixBlock::dense(m, n, 0.0);  // (m, n) row-major
    const double* a = in.dense_data();
    double* b = out.dense_data();
    for (int64_t i = 0; i < m; ++i) {
      const int64_t src = src_row(i);
      std::copy(a + src * n, a + (src + 1) * n, b + i * n);
    }
    out.examine_format();
    return out;
  }
  const auto& rp = in.row_ptr();
  const auto& ci = in.col_idx();
  const auto& v = in.csr_values();
  std::vector<int64_t> row_ptr(static_cast<size_t>(m + 1), 0);
  std::vector<int32_t> col_idx;
  std::vector<double> values;
  col_idx.reserve(v.size());
  values.reserve(v.size());
  for (int64_t i = 0; i < m; ++i) {
    const int64_t src = src_row(i);
    col_idx.insert(col_idx.end(), ci.begin() + rp[src], ci.begin() + rp[src + 1]);
    values.insert(values.end(), v.begin() + rp[src], v.begin() + rp[src + 1]);
    row_ptr[static_cast<size_t>(i + 1)] = static_cast<int64_t>(values.size());
  }
  MatrixBlock out =
      MatrixBlock::csr(m, n, std::move(row_ptr), std::move(col_idx), std::move(values));
  out.examine_format();
  return out;
}

}  // namespace

MatrixBlock reverse_rows(const MatrixBlock& in) {
  const int64_t m = in.rows();
  return permute_rows(in, [m](int64_t i) { return m - 1 - i; });
}

MatrixBlock roll_rows(const MatrixBlock& in, int64_t shift) {
  const int64_t m = in.rows();
  if (m == 0) return in;
  const int64_t s = ((shift % m) + m) % m;
  // Output row i comes from input row (i - s) mod m.
  return permute_rows(in, [m, s](int64_t i) { return (i - s + m) % m; });
}

}  // namespace dmlrt::kernels::cpu
