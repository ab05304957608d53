// Device tests of the im2col kernel family (kernels/cuda/dnn_im2col.h) against host loops written
// from the definition: im2col from dense rows and from CSR rows (int32 and int64 indices, whole
// batches and row chunks), stride 2, padding, non-square images and filters, 1x1, C = 1, N = 1,
// empty CSRs; reorg_knpq with and without bias (and with a null product). Exact in FP64 and FP32.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/cuda/dnn_im2col.h"

namespace {

using dmlrt::kernels::MatrixBlock;
namespace cuda = dmlrt::kernels::cuda;
namespace tg = dmlrt::test::gpu;

struct Case {
  int64_t n, c, h, w, r, s, stride_h, stride_w, pad_h, pad_w;
};

cuda::Im2colGeometry geometry_of(const Case& k) {
  cuda::Im2colGeometry g;
  g.c = k.c, g.h = k.h, g.w = k.w, g.r = k.r, g.s = k.s;
  g.stride_h = k.stride_h, g.stride_w = k.stride_w, g.pad_h = k.pad_h, g.pad_w = k.pad_w;
  g.p = (k.h + 2 * k.pad_h - k.r) / k.stride_h + 1;
  g.q = (k.w + 2 * k.pad_w - k.s) / k.stride_w + 1;
  return g;
}

std::string label_of(const std::string& op, const Case& k, const char* prec) {
  std::ostringstream os;
  os << op << " N=" << k.n << " C=" << k.c << " H=" << k.h << " W=" << k.w << " R=" << k.r
     << " S=" << k.s << " stride=[" << k.stride_h << "," << k.stride_w << "] pad=[" << k.pad_h
     << "," << k.pad_w << "] " << prec;
  return os.str();
}

// The (CRS, (r1-r0)*PQ) im2col matrix of rows [r0, r1) of x (N, CHW), straight from the definition.
MatrixBlock host_im2col(const MatrixBlock& x, int64_t r0, int64_t r1,
                        const cuda::Im2colGeometry& g) {
  const MatrixBlock xd = x.to_dense();
  const int64_t pq = g.p * g.q, n = r1 - r0, cols = n * pq;
  std::vector<double> out(static_cast<size_t>(g.c * g.r * g.s * cols), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < g.c; ++c)
      for (int64_t r = 0; r < g.r; ++r)
        for (int64_t s = 0; s < g.s; ++s)
          for (int64_t p = 0; p < g.p; ++p)
            for (int64_t q = 0; q < g.q; ++q) {
              const int64_t h = p * g.stride_h - g.pad_h + r, w = q * g.stride_w - g.pad_w + s;
              if (h < 0 || h >= g.h || w < 0 || w >= g.w) continue;
              const int64_t row = (c * g.r + r) * g.s + s, col = i * pq + p * g.q + q;
              out[static_cast<size_t>(row * cols + col)] = xd.get(r0 + i, (c * g.h + h) * g.w + w);
            }
  return MatrixBlock::dense(g.c * g.r * g.s, cols, std::move(out));
}

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {3, 2, 5, 5, 3, 3, 1, 1, 0, 0},     // plain 3x3
      {2, 3, 7, 6, 3, 2, 2, 2, 1, 1},     // stride 2, padding, non-square image and filter
      {4, 1, 9, 4, 2, 3, 2, 1, 2, 0},     // C = 1, asymmetric strides and padding
      {1, 4, 6, 6, 1, 1, 1, 1, 0, 0},     // 1x1 filter, N = 1
      {2, 2, 1, 1, 1, 1, 1, 1, 0, 0},     // 1x1 images and filters
      {2, 2, 3, 3, 3, 3, 1, 1, 2, 2},     // padding larger than half the filter
      {5, 3, 17, 13, 5, 4, 3, 2, 2, 1},   // odd sizes, stride 3
      {1, 1, 4, 4, 4, 4, 1, 1, 0, 0},     // filter as large as the image (P = Q = 1)
      {7, 16, 12, 12, 3, 3, 1, 1, 1, 1},  // more cells than one thread block
  };
  return c;
}

template <typename I>
tg::DeviceBlock ints_to_device(const std::vector<I>& v) {
  tg::DeviceBlock buf(std::max<size_t>(v.size(), 1) * sizeof(I));
  if (!v.empty()) buf.copy_from_host(v.data(), v.size() * sizeof(I));
  return buf;
}

// Runs the CSR im2col of rows [r0, r1) of x (CSR) with index type I and checks it against the host.
template <typename T, typename I>
void check_csr_im2col(const MatrixBlock& x, int64_t r0, int64_t r1, const Case& k,
                      const std::string& what) {
  const cuda::Im2colGeometry g = geometry_of(k);
  const MatrixBlock xs = x.to_sparse();
  std::vector<I> row_ptr, col_idx;
  std::vector<double> values;
  if (xs.nnz() > 0) {
    row_ptr.assign(xs.row_ptr().begin(), xs.row_ptr().end());
    col_idx.assign(xs.col_idx().begin(), xs.col_idx().end());
    values = xs.csr_values();
  } else {
    row_ptr.assign(static_cast<size_t>(x.rows() + 1), 0);
  }
  auto drp = ints_to_device(row_ptr);
  auto dci = ints_to_device(col_idx);
  auto dv = tg::to_device<T>(values.empty() ? std::vector<double>{0.0} : values);
  const int64_t cells = g.c * g.r * g.s * (r1 - r0) * g.p * g.q;
  auto dout = tg::device_out<T>(cells);  // garbage: the launcher must zero it
  cuda::launch_im2col_csr(tg::ptr<I>(drp), tg::ptr<I>(dci), tg::ptr<T>(dv), r0, r1,
                          xs.nnz() * (r1 - r0) / std::max<int64_t>(x.rows(), 1), g,
                          tg::ptr<T>(dout), nullptr);
  std::ostringstream os;
  os << what << " rows [" << r0 << "," << r1 << ") int" << 8 * sizeof(I);
  DMLRT_REQUIRE_KERNEL_CLOSE(label_of(os.str(), k, tg::precision_name<T>()),
                             tg::block_from_device<T>(dout, g.c * g.r * g.s, (r1 - r0) * g.p * g.q),
                             host_im2col(x, r0, r1, g), 0.0);
}

}  // namespace

TEMPLATE_TEST_CASE("im2col kernels: dense rows match the host im2col", "[gpu][kernel][dnn]", double,
                   float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("im2col-dense");
  for (const Case& k : cases()) {
    const cuda::Im2colGeometry g = geometry_of(k);
    const MatrixBlock x =
        tg::rounded<T>(tg::random_dense(k.n, k.c * k.h * k.w, seed + k.h * 31 + k.c, -4, 4));
    auto dx = tg::to_device<T>(x);
    const int64_t crs = g.c * g.r * g.s, cols = k.n * g.p * g.q;
    auto dout = tg::device_out<T>(crs * cols);
    cuda::launch_im2col_dense(tg::ptr<T>(dx), k.n, g, tg::ptr<T>(dout), nullptr);
    DMLRT_REQUIRE_KERNEL_CLOSE(label_of("im2col dense", k, tg::precision_name<T>()),
                               tg::block_from_device<T>(dout, crs, cols), host_im2col(x, 0, k.n, g),
                               0.0);
  }
}

TEMPLATE_TEST_CASE("im2col kernels: dense rows of a batch chunk (pointer offset)",
                   "[gpu][kernel][dnn]", double, float) {
  using T = TestType;
  const Case k{6, 3, 7, 5, 3, 2, 2, 1, 1, 1};
  const cuda::Im2colGeometry g = geometry_of(k);
  const int64_t chw = k.c * k.h * k.w, crs = g.c * g.r * g.s;
  const MatrixBlock x = tg::rounded<T>(
      tg::random_dense(k.n, chw, dmlrt::test::seed_from("im2col-dense-chunk"), -4, 4));
  auto dx = tg::to_device<T>(x);
  for (const auto& [r0, r1] : std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {2, 5}, {5, 6}}) {
    const int64_t cols = (r1 - r0) * g.p * g.q;
    auto dout = tg::device_out<T>(crs * cols);
    cuda::launch_im2col_dense(tg::ptr<T>(dx) + r0 * chw, r1 - r0, g, tg::ptr<T>(dout), nullptr);
    DMLRT_REQUIRE_KERNEL_CLOSE(
        label_of("im2col dense chunk from " + std::to_string(r0), k, tg::precision_name<T>()),
        tg::block_from_device<T>(dout, crs, cols), host_im2col(x, r0, r1, g), 0.0);
  }
}

TEMPLATE_TEST_CASE("im2col kernels: CSR rows match the host im2col", "[gpu][kernel][dnn]", double,
                   float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("im2col-csr");
  for (const Case& k : cases()) {
    const int64_t chw = k.c * k.h * k.w;
    for (double sparsity : {0.3, 0.05, 0.001, 0.0, 1.0}) {
      MatrixBlock x = dmlrt::test::random_block(k.n, chw, sparsity, seed + k.w * 7 + k.n, -4, 4);
      x = tg::rounded<T>(x);
      const std::string what = "im2col csr sparsity=" + std::to_string(sparsity);
      check_csr_im2col<T, int32_t>(x, 0, k.n, k, what);
      check_csr_im2col<T, int64_t>(x, 0, k.n, k, what);
      // A chunk in the middle and the last row alone: the row offsets are the whole matrix's.
      if (k.n >= 3) check_csr_im2col<T, int32_t>(x, 1, k.n - 1, k, what);
      check_csr_im2col<T, int32_t>(x, k.n - 1, k.n, k, what);
    }
  }
}

TEMPLATE_TEST_CASE("im2col kernels: CSR rows with empty rows around the chunk",
                   "[gpu][kernel][dnn]", double, float) {
  using T = TestType;
  // Rows 0, 2, 3 and 6 empty: the binary search must skip runs of empty rows on both sides.
  const Case k{7, 2, 6, 5, 3, 3, 1, 2, 1, 0};
  const int64_t chw = k.c * k.h * k.w;
  MatrixBlock x = tg::rounded<T>(
      tg::random_dense(k.n, chw, dmlrt::test::seed_from("im2col-csr-empty-rows"), -4, 4));
  std::vector<double> v = x.dense_values();
  for (int64_t row : {0, 2, 3, 6})
    for (int64_t j = 0; j < chw; ++j) v[static_cast<size_t>(row * chw + j)] = 0.0;
  x = MatrixBlock::dense(k.n, chw, std::move(v));
  for (const auto& [r0, r1] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 7}, {0, 1}, {2, 4}, {1, 5}, {3, 7}, {4, 6}, {6, 7}})
    check_csr_im2col<T, int32_t>(x, r0, r1, k, "im2col csr with empty rows");
}

TEMPLATE_TEST_CASE("reorg_knpq kernel: K x NPQ to N x KPQ with and without bias",
                   "[gpu][kernel][dnn]", double, float) {
  using T = TestType;
  const uint64_t seed = dmlrt::test::seed_from("reorg_knpq");
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
      {1, 1, 1},   {3, 4, 5},   {1, 7, 9},    {5, 1, 3},    {2, 3, 1}, {17, 33, 65},
      {3, 5, 128}, {4, 3, 300}, {1, 2, 1000}, {9, 70, 127}, {0, 3, 4}, {3, 0, 4}};
  // PQ >= 128 takes the segmented kernel, shorter segments the one-thread-per-cell kernel.
  for (const auto& [n, k, pq] : shapes) {
    const MatrixBlock in = tg::rounded<T>(tg::random_dense(k, n * pq, seed + n + 3 * k, -5, 5));
    const MatrixBlock bias = tg::rounded<T>(tg::random_dense(k, 1, seed + pq, -2, 2));
    auto din = tg::to_device<T>(in);
    auto db = tg::to_device<T>(bias);
    for (int mode = 0; mode < 3; ++mode) {  // 0: no bias, 1: bias, 2: bias alone (null product)
      const bool with_bias = mode >= 1, with_in = mode != 2;
      std::vector<double> ref(static_cast<size_t>(n * k * pq));
      for (int64_t i = 0; i < n; ++i)
        for (int64_t kk = 0; kk < k; ++kk)
          for (int64_t j = 0; j < pq; ++j) {
            double x = with_in ? in.get(kk, i * pq + j) : 0.0;
            if (with_bias) x += bias.get(kk, 0);
            ref[static_cast<size_t>((i * k + kk) * pq + j)] =
                static_cast<double>(static_cast<T>(x));  // the device adds in T
          }
      auto dout = tg::device_out<T>(n * k * pq);
      cuda::launch_reorg_knpq(with_in ? tg::ptr<T>(din) : nullptr,
                              with_bias ? tg::ptr<T>(db) : nullptr, n, k, pq, tg::ptr<T>(dout),
                              nullptr);
      std::ostringstream os;
      os << "reorg_knpq N=" << n << " K=" << k << " PQ=" << pq << " mode=" << mode << " "
         << tg::precision_name<T>();
      DMLRT_REQUIRE_KERNEL_CLOSE(os.str(), tg::block_from_device<T>(dout, n, k * pq),
                                 MatrixBlock::dense(n, k * pq, std::move(ref)), 0.0);
    }
  }
}
