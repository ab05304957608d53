// rand and seq on the CPU; see random.h. Values come from kernels/philox.h, so they do not depend
// on how the cells are traversed.
#include "kernels/cpu/random.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/cpu/parallel.h"
#include "kernels/host_memory.h"
#include "kernels/philox.h"

namespace dmlrt::kernels::cpu {
namespace {

// The value of a drawn cell; `s` has already consumed the cell's sparsity word.
inline double draw_value(const RandSpec& spec, PhiloxCellStream& s) {
  switch (spec.pdf) {
    case RandPdf::kUniform:
      return spec.min + (spec.max - spec.min) * s.next_double();
    case RandPdf::kNormal:
      return philox_normal(s);
    case RandPdf::kPoisson:
      return philox_poisson(s, spec.lambda);
  }
  return 0.0;
}

// The uniform double of words w1, w2, as PhiloxCellStream::next_double makes it.
inline double uniform_of(uint32_t w1, uint32_t w2) {
  const uint64_t a = w1 >> 5;  // 27 bits
  const uint64_t b = w2 >> 6;  // 26 bits
  return static_cast<double>((a << 26) | b) * (1.0 / 9007199254740992.0);
}

}  // namespace

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
__attribute__((target_clones("avx2", "default")))
#endif
void philox_first_words8(uint64_t seed, uint64_t first, uint32_t w0[8], uint32_t w1[8],
                         uint32_t w2[8]) {
  // philox4x32_10(lo32(cell), hi32(cell), 0, 0, lo32(seed), hi32(seed)), lane by lane.
  uint32_t c0[8], c1[8], c2[8], c3[8];
  for (int l = 0; l < 8; ++l) {
    const uint64_t cell = first + static_cast<uint64_t>(l);
    c0[l] = static_cast<uint32_t>(cell);
    c1[l] = static_cast<uint32_t>(cell >> 32);
    c2[l] = 0;
    c3[l] = 0;
  }
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += detail::kPhiloxW0;
      k1 += detail::kPhiloxW1;
    }
    for (int l = 0; l < 8; ++l) {
      const uint64_t p0 = static_cast<uint64_t>(detail::kPhiloxM0) * c0[l];
      const uint64_t p1 = static_cast<uint64_t>(detail::kPhiloxM1) * c2[l];
      const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1[l] ^ k0;
      const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3[l] ^ k1;
      c1[l] = static_cast<uint32_t>(p1);
      c3[l] = static_cast<uint32_t>(p0);
      c0[l] = n0;
      c2[l] = n2;
    }
  }
  for (int l = 0; l < 8; ++l) {
    w0[l] = c0[l];
    w1[l] = c1[l];
    w2[l] = c2[l];
  }
}

MatrixBlock rand_matrix(const RandSpec& spec) {
  DMLRT_REQUIRE(spec.rows >= 0 && spec.cols >= 0, ShapeError,
                "rand: invalid dimensions " << spec.rows << "x" << spec.cols);
  DMLRT_REQUIRE(spec.sparsity >= 0.0 && spec.sparsity <= 1.0, RuntimeError,
                "rand: sparsity must be in [0, 1], got " << spec.sparsity);
  const int64_t rows = spec.rows, cols = spec.cols;
  if (rows == 0 || cols == 0 || spec.sparsity == 0.0) return MatrixBlock::empty_sparse(rows, cols);
  // A constant uniform matrix (min = max) needs no draws for its values, only for its pattern.
  const bool constant = spec.pdf == RandPdf::kUniform && spec.min == spec.max;
  if (constant && spec.min == 0.0) return MatrixBlock::empty_sparse(rows, cols);

  // The size is checked before anything is drawn or allocated: a dense target in 128-bit
  // arithmetic, a sparse one from its expected nonzeros (doubles: rows*cols may not fit int64).
  const double expected = spec.sparsity * static_cast<double>(rows) * static_cast<double>(cols);
  const bool sparse_target =
      spec.sparsity < 1.0 &&
      MatrixBlock::prefers_sparse(rows, cols, expected >= 9.2e18 ? INT64_MAX
                                                                 : static_cast<int64_t>(expected));
  if (sparse_target) {
    std::ostringstream shape;
    shape << "a " << dims_string(rows, cols) << " sparse matrix with about "
          << std::floor(expected) << " nonzeros";
    check_host_bytes("rand", shape.str(), 12.0 * expected * 1.05 + 8.0 * (rows + 1.0));
  } else {
    check_host_alloc("rand", rows, cols, sizeof(double));
  }
  DMLRT_REQUIRE(cols <= INT32_MAX, ShapeError,
                "rand: matrix with " << cols << " columns exceeds the supported 2^31-1 columns");

  if (constant && spec.sparsity == 1.0) {
    MatrixBlock b = MatrixBlock::dense(rows, cols, spec.min);
    b.examine_format();
    return b;
  }

  // Sparse targets are built as CSR directly so a large ultra-sparse rand never allocates the
  // dense size; examine_format() settles the final format either way.
  if (sparse_target) {
    // Bands of rows are drawn in parallel into their own nonzero lists (the values depend on the
    // cell index only), then concatenated in row order.
    struct Band {
      std::vector<int32_t> col_idx;
      std::vector<double> values;
    };
    const int64_t band_rows = row_grain(cols);
    std::vector<Band> bands(static_cast<size_t>(chunk_count(0, rows, band_rows)));
    std::vector<int64_t> row_ptr(static_cast<size_t>(rows + 1), 0);
    parallel_chunks(0, rows, band_rows, [&](int64_t band, int64_t r0, int64_t r1) {
      Band& bd = bands[static_cast<size_t>(band)];
      const double band_expected = spec.sparsity * static_cast<double>((r1 - r0) * cols);
      bd.col_idx.reserve(static_cast<size_t>(band_expected * 1.05) + 16);
      bd.values.reserve(static_cast<size_t>(band_expected * 1.05) + 16);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          PhiloxCellStream s(spec.seed, static_cast<uint64_t>(r * cols + c));
          if (!philox_bernoulli(s.next_u32(), spec.sparsity)) continue;
          const double v = constant ? spec.min : draw_value(spec, s);
          if (v == 0.0) continue;
          bd.col_idx.push_back(static_cast<int32_t>(c));
          bd.values.push_back(v);
        }
        row_ptr[static_cast<size_t>(r + 1)] = static_cast<int64_t>(bd.values.size());  // in-band
      }
    });
    std::vector<int32_t> col_idx;
    std::vector<double> values;
    if (bands.size() == 1) {
      col_idx = std::move(bands[0].col_idx);
      values = std::move(bands[0].values);
    } else {
      size_t total = 0;
      for (const Band& bd : bands) total += bd.values.size();
      col_idx.reserve(total);
      values.reserve(total);
      for (size_t i = 0; i < bands.size(); ++i) {
        // Shift the band's in-band offsets by the nonzeros of the bands before it.
        const auto offset = static_cast<int64_t>(values.size());
        const int64_t r0 = static_cast<int64_t>(i) * band_rows;
        const int64_t r1 = std::min(rows, r0 + band_rows);
        for (int64_t r = r0; r < r1; ++r) row_ptr[static_cast<size_t>(r + 1)] += offset;
        col_idx.insert(col_idx.end(), bands[i].col_idx.begin(), bands[i].col_idx.end());
        values.insert(values.end(), bands[i].values.begin(), bands[i].values.end());
        bands[i] = Band();
      }
    }
    MatrixBlock b =
        MatrixBlock::csr(rows, cols, std::move(row_ptr), std::move(col_idx), std::move(values));
    b.examine_format();
    return b;
  }

  MatrixBlock b = MatrixBlock::dense(rows, cols, 0.0);  // (rows, cols) row-major
  double* out = b.dense_data();
  const int64_t n = rows * cols;
  // Each cell's value depends on its index only, so any split draws the same matrix. Uniform
  // cells use words 0-2 of their stream's first block only: eight at a time (the same values).
  const bool uniform = spec.pdf == RandPdf::kUniform;
  parallel_for(0, n, kParallelGrain / 8, [&](int64_t lo, int64_t hi) {
    if (uniform) {
      uint32_t w0[8], w1[8], w2[8];
      for (; lo + 8 <= hi; lo += 8) {
        philox_first_words8(spec.seed, static_cast<uint64_t>(lo), w0, w1, w2);
        for (int l = 0; l < 8; ++l) {
          if (!philox_bernoulli(w0[l], spec.sparsity)) continue;
          out[lo + l] =
              constant ? spec.min : spec.min + (spec.max - spec.min) * uniform_of(w1[l], w2[l]);
        }
      }
    }
    for (int64_t i = lo; i < hi; ++i) {
      PhiloxCellStream s(spec.seed, static_cast<uint64_t>(i));
      if (!philox_bernoulli(s.next_u32(), spec.sparsity)) continue;
      out[i] = constant ? spec.min : draw_value(spec, s);
    }
  });
  b.examine_format();
  return b;
}

int64_t seq_length(double from, double to, double incr) {
  // UtilFunctions.getSeqLength: dividing each bound by incr (rather than (to-from)/incr) avoids
  // subtracting numbers of different magnitude; the correction adds the element that floor()
  // dropped when from + (len+1)*incr still reaches `to`.
  const auto len = static_cast<int64_t>(std::floor(to / incr - from / incr));
  const double next = from + static_cast<double>(len + 1) * incr;
  if (incr > 0) return 1 + len + (next <= to ? 1 : 0);
  return 1 + len + (next >= to ? 1 : 0);
}

MatrixBlock seq_column(double from, double to, double incr) {
  const int64_t n = seq_length(from, to, incr);
  MatrixBlock b = MatrixBlock::dense(n, 1, 0.0);  // (n, 1)
  double* out = b.dense_data();
  double cur = from;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = cur;
    cur += incr;
  }
  b.examine_format();
  return b;
}

MatrixBlock sample_column(int64_t range, int64_t size, bool replace, uint64_t seed) {
  check_host_alloc("sample", size, 1, sizeof(double));
  std::vector<double> out(static_cast<size_t>(size));
  // A uniform integer in [0, n) from 53 random bits (n <= 2^53 always holds: range is a long
  // read from a double).
  auto below = [&](int64_t i, int64_t n) {
    PhiloxCellStream s(seed, static_cast<uint64_t>(i));
    const auto v = static_cast<int64_t>(s.next_double() * static_cast<double>(n));
    return v < n ? v : n - 1;
  };
  if (replace) {
    for (int64_t i = 0; i < size; ++i) out[i] = static_cast<double>(below(i, range) + 1);
  } else {
    std::unordered_map<int64_t, int64_t> moved;  // position -> value, where it is not position+1
    auto at = [&](int64_t p) {
      const auto it = moved.find(p);
      return it == moved.end() ? p + 1 : it->second;
    };
    for (int64_t i = 0; i < size; ++i) {
      const int64_t j = i + below(i, range - i);
      const int64_t vi = at(i), vj = at(j);
      moved[j] = vi;
      out[i] = static_cast<double>(vj);
    }
  }
  return MatrixBlock::dense(size, 1, std::move(out));
}

}  // namespace dmlrt::kernels::cpu
