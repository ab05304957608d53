// The sparse-filter conv2d path (kernels/cuda/dnn_sparse_conv_op.h) against the CPU reference
// kernels::cpu::conv2d: 0.1 / 0.001-sparse and empty filters with dense, CSR (0.1), ultra-sparse
// CSR (0.001) and empty image batches, with and without bias, whole-batch and forced small budgets
// (the batch splits into chunks), FP64 (1e-9) and FP32 (1e-4 relative); the path's decision
// (sparse_filter_conv2d_applies) and its error messages.
#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "instructions/dnn_conv_instructions.h"
#include "kernels/cpu/dnn_conv.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;
using kernels::cpu::ConvShape;
using mem::DeviceMatrix;
using mem::DType;

namespace {

ConvShape conv_shape(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r, int64_t s,
                     int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w) {
  ConvShape sh;
  sh.n = n, sh.c = c, sh.h = h, sh.w = w, sh.k = k, sh.r = r, sh.s = s;
  sh.stride_h = stride_h, sh.stride_w = stride_w, sh.pad_h = pad_h, sh.pad_w = pad_w;
  sh.derive_output_size();
  return sh;
}

std::string describe(const ConvShape& sh) {
  std::ostringstream os;
  os << "N=" << sh.n << " C=" << sh.c << " H=" << sh.h << " W=" << sh.w << " K=" << sh.k
     << " R=" << sh.r << " S=" << sh.s << " stride=[" << sh.stride_h << "," << sh.stride_w
     << "] pad=[" << sh.pad_h << "," << sh.pad_w << "]";
  return os.str();
}

int64_t crs_of(const ConvShape& sh) { return sh.c * sh.r * sh.s; }
int64_t chw_of(const ConvShape& sh) { return sh.c * sh.h * sh.w; }
int64_t kpq_of(const ConvShape& sh) { return sh.k * sh.p * sh.q; }

// Bytes of the im2col buffer and product of one image: a budget of `images` of them splits the
// batch into chunks of that many images.
int64_t budget_for(const ConvShape& sh, DType dt, int64_t images) {
  return images * (crs_of(sh) + sh.k) * sh.p * sh.q * static_cast<int64_t>(mem::dtype_size(dt));
}

MatrixBlock filter_of(const ConvShape& sh, double sparsity, uint64_t seed, DType dt) {
  MatrixBlock w = sparsity == 0.0
                      ? MatrixBlock::empty_sparse(sh.k, crs_of(sh))
                      : test::random_block(sh.k, crs_of(sh), sparsity, seed, -2, 2, true);
  return dt == DType::kFloat32 ? rounded_f32(w) : w;
}

// Runs sparse_filter_conv2d on x and w (device formats from the host formats) and compares the
// result with the CPU reference.
void check_conv(GpuEnv& env, DType dt, const ConvShape& sh, const MatrixBlock& x,
                const MatrixBlock& w, const MatrixBlock* bias, int64_t budget,
                const std::string& label) {
  INFO(label << " " << describe(sh) << " budget=" << budget << " " << prec_name(dt));
  mem::GpuSession& gpu = *env.gpu;
  const MatrixBlock ref = kernels::cpu::conv2d(x, w, sh, bias);
  try {
    const DeviceMatrix dx = gpu.upload(x, "test images");
    const DeviceMatrix dw = gpu.upload(w, "test filter");
    REQUIRE(dw.is_sparse());
    DeviceMatrix db;
    if (bias != nullptr) db = gpu.upload(*bias, "test bias");
    DeviceMatrix out =
        DeviceMatrix::dense(gpu.memory(), sh.n, kpq_of(sh), dt, gpu.stream(), "test output");
    inst::sparse_filter_conv2d(gpu, dx, dw, bias != nullptr ? &db : nullptr, sh, budget, out);
    const MatrixBlock got = gpu.download(out);
    // FP32: relative to the size of the sums (up to CRS products of magnitude <= 4).
    const double atol =
        dt == DType::kFloat64 ? 1e-9 : 1e-4 * std::max<double>(1.0, crs_of(sh) / 2.0);
    const auto cmp = test::compare(got, ref, atol, tol_of(dt));
    INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
    CHECK(cmp.ok);
  } catch (const std::exception& e) {
    FAIL_CHECK("threw: " << e.what());
  }
}

const std::vector<ConvShape>& shapes() {
  static const std::vector<ConvShape> s = {
      conv_shape(5, 3, 8, 8, 6, 3, 3, 1, 1, 1, 1),      // 3x3, padding 1
      conv_shape(4, 2, 9, 7, 5, 3, 2, 2, 2, 1, 0),      // stride 2, non-square, uneven padding
      conv_shape(3, 1, 6, 6, 4, 1, 1, 1, 1, 0, 0),      // C = 1, 1x1 filter
      conv_shape(1, 4, 5, 5, 3, 5, 5, 1, 1, 0, 0),      // N = 1, P = Q = 1
      conv_shape(7, 16, 12, 11, 32, 3, 3, 1, 2, 1, 1),  // more than a thread block of cells
  };
  return s;
}

}  // namespace

TEST_CASE("gpu sparse-filter conv2d matches the CPU on all image formats and filter sparsities",
          "[gpu][dnn][cusparse]") {
  const uint64_t seed = test::seed_from("gpu sparse-filter conv2d");
  for (DType dt : {DType::kFloat64, DType::kFloat32}) {
    GpuEnv env(dt);
    for (size_t si = 0; si < shapes().size(); ++si) {
      const ConvShape& sh = shapes()[si];
      for (double wsp : {0.1, 0.001, 0.0}) {
        const MatrixBlock w =
            filter_of(sh, wsp, seed + si * 101 + static_cast<uint64_t>(wsp * 1e4), dt);
        for (const Format& f : formats()) {
          const MatrixBlock x = input(sh.n, chw_of(sh), f, seed + si * 7 + 3, dt);
          MatrixBlock bias = test::random_block(sh.k, 1, 1.0, seed + si, -1, 1, false);
          if (dt == DType::kFloat32) bias = rounded_f32(bias);
          std::ostringstream label;
          label << "filter sparsity " << wsp << " (nnz=" << w.nnz() << "), images " << f.name;
          for (const MatrixBlock* b :
               {static_cast<const MatrixBlock*>(nullptr), static_cast<const MatrixBlock*>(&bias)}) {
            const std::string l = label.str() + (b != nullptr ? ", bias" : ", no bias");
            check_conv(env, dt, sh, x, w, b, int64_t{1} << 40, l + ", whole batch");
            if (sh.n > 1) {
              // Chunks of 2 images (and a last chunk of 1 for odd N); 1 image per chunk.
              const int64_t small = budget_for(sh, dt, 2) + 7;
              REQUIRE(inst::sparse_filter_conv2d_chunk_rows(
                          sh, static_cast<int64_t>(mem::dtype_size(dt)), small) == 2);
              check_conv(env, dt, sh, x, w, b, small, l + ", chunks of 2");
              check_conv(env, dt, sh, x, w, b, budget_for(sh, dt, 1), l + ", chunks of 1");
            }
          }
        }
      }
    }
  }
}

TEST_CASE("gpu sparse-filter conv2d: a wide very sparse filter (the shape the path is for)",
          "[gpu][dnn][cusparse]") {
  const uint64_t seed = test::seed_from("gpu sparse-filter conv2d wide");
  const ConvShape sh = conv_shape(6, 64, 10, 10, 64, 3, 3, 1, 1, 1, 1);
  for (DType dt : {DType::kFloat64, DType::kFloat32}) {
    GpuEnv env(dt);
    const MatrixBlock w = filter_of(sh, 0.001, seed, dt);
    REQUIRE(w.nnz() > 0);
    const DeviceMatrix dw = env.gpu->upload(w, "test filter");
    CHECK(inst::sparse_filter_conv2d_applies(*env.gpu, dw, sh, int64_t{1} << 40));
    for (const Format& f : formats()) {
      const MatrixBlock x = input(sh.n, chw_of(sh), f, seed + 1, dt);
      MatrixBlock bias = test::random_block(sh.k, 1, 1.0, seed + 2, -1, 1, false);
      if (dt == DType::kFloat32) bias = rounded_f32(bias);
      check_conv(env, dt, sh, x, w, &bias, int64_t{1} << 40,
                 std::string("wide 0.001 filter, images ") + f.name);
      check_conv(env, dt, sh, x, w, &bias, budget_for(sh, dt, 4),
                 std::string("wide 0.001 filter, chunks of 4, images ") + f.name);
    }
  }
}

TEST_CASE("gpu sparse-filter conv2d: when the path applies", "[gpu][dnn][cusparse]") {
  const uint64_t seed = test::seed_from("gpu sparse-filter conv2d applies");
  const ConvShape wide = conv_shape(4, 64, 16, 16, 64, 3, 3, 1, 1, 1, 1);
  const ConvShape narrow = conv_shape(4, 1, 16, 16, 1, 3, 3, 1, 1, 1, 1);
  for (DType dt : {DType::kFloat64, DType::kFloat32}) {
    GpuEnv env(dt);
    mem::GpuSession& gpu = *env.gpu;
    const int64_t big = int64_t{1} << 40;
    const DeviceMatrix sparse = gpu.upload(filter_of(wide, 0.001, seed, dt), "filter 0.001");
    REQUIRE(sparse.is_sparse());
    CHECK(inst::sparse_filter_conv2d_applies(gpu, sparse, wide, big));
    // One image's buffers do not fit: not applicable.
    CHECK_FALSE(inst::sparse_filter_conv2d_applies(gpu, sparse, wide, budget_for(wide, dt, 1) - 1));
    CHECK(inst::sparse_filter_conv2d_applies(gpu, sparse, wide, budget_for(wide, dt, 1)));
    // A half-dense filter costs more on the sparse path.
    const DeviceMatrix half = gpu.upload(filter_of(wide, 0.5, seed + 1, dt), "filter 0.5");
    REQUIRE(half.is_sparse());
    CHECK_FALSE(inst::sparse_filter_conv2d_applies(gpu, half, wide, big));
    // A dense device copy never takes the path.
    const DeviceMatrix dense =
        gpu.upload(test::random_block(wide.k, crs_of(wide), 1.0, seed + 2, -1, 1, false), "dense");
    REQUIRE_FALSE(dense.is_sparse());
    CHECK_FALSE(inst::sparse_filter_conv2d_applies(gpu, dense, wide, big));
    // One output channel of a single-channel 3x3 filter: never worth it.
    const DeviceMatrix one = gpu.upload(test::sparse_of(1, 9, {0, 0, 0, 0, 1.5, 0, 0, 0, 0}),
                                        "narrow filter with one nonzero");
    REQUIRE(one.is_sparse());
    CHECK_FALSE(inst::sparse_filter_conv2d_applies(gpu, one, narrow, big));
    // An empty filter always does (the output is the bias), whatever the budget.
    const DeviceMatrix empty = gpu.upload(filter_of(wide, 0.0, seed, dt), "empty filter");
    REQUIRE(empty.is_empty_sparse());
    CHECK(inst::sparse_filter_conv2d_applies(gpu, empty, wide, 0));
  }
}

TEST_CASE("gpu sparse-filter conv2d: bad operands and a budget too small are clear errors",
          "[gpu][dnn][cusparse]") {
  const uint64_t seed = test::seed_from("gpu sparse-filter conv2d errors");
  const ConvShape sh = conv_shape(3, 2, 6, 6, 4, 3, 3, 1, 1, 0, 0);
  GpuEnv env(DType::kFloat64);
  mem::GpuSession& gpu = *env.gpu;
  const DeviceMatrix x =
      gpu.upload(test::random_block(sh.n, chw_of(sh), 1.0, seed, -1, 1, false), "x");
  const DeviceMatrix w = gpu.upload(filter_of(sh, 0.3, seed + 1, DType::kFloat64), "w");
  REQUIRE(w.is_sparse());
  auto out = [&](int64_t rows, int64_t cols) {
    return DeviceMatrix::dense(gpu.memory(), rows, cols, DType::kFloat64, gpu.stream(), "out");
  };
  const int64_t big = int64_t{1} << 40;

  DeviceMatrix y = out(sh.n, kpq_of(sh));
  const std::string oom = error_of([&] {
    inst::sparse_filter_conv2d(gpu, x, w, nullptr, sh, budget_for(sh, DType::kFloat64, 1) - 1, y);
  });
  CHECK_THAT(oom, Catch::Contains("conv2d (sparse filter)") && Catch::Contains("over the budget") &&
                      Catch::Contains("K=4"));
  CHECK_THROWS_AS(inst::sparse_filter_conv2d(gpu, x, w, nullptr, sh, 0, y), OutOfMemory);

  const DeviceMatrix wd =
      gpu.upload(test::random_block(sh.k, crs_of(sh), 1.0, seed + 2, -1, 1, false), "wd");
  CHECK_THAT(error_of([&] { inst::sparse_filter_conv2d(gpu, x, wd, nullptr, sh, big, y); }),
             Catch::Contains("filter is 4x18 dense") && Catch::Contains("expected a CSR"));

  const DeviceMatrix xbad =
      gpu.upload(test::random_block(sh.n, chw_of(sh) + 1, 1.0, seed, -1, 1, false), "xbad");
  CHECK_THAT(error_of([&] { inst::sparse_filter_conv2d(gpu, xbad, w, nullptr, sh, big, y); }),
             Catch::Contains("image batch is 3x73") && Catch::Contains("expected N x CHW = 3x72"));

  const DeviceMatrix bbad =
      gpu.upload(test::random_block(sh.k + 1, 1, 1.0, seed, -1, 1, false), "bbad");
  CHECK_THAT(error_of([&] { inst::sparse_filter_conv2d(gpu, x, w, &bbad, sh, big, y); }),
             Catch::Contains("bias is 5x1") && Catch::Contains("expected K x 1 = 4x1"));

  DeviceMatrix ybad = out(sh.n, kpq_of(sh) - 1);
  CHECK_THAT(error_of([&] { inst::sparse_filter_conv2d(gpu, x, w, nullptr, sh, big, ybad); }),
             Catch::Contains("output is 3x63") && Catch::Contains("expected N x KPQ = 3x64"));
  CHECK_THROWS_AS(inst::sparse_filter_conv2d(gpu, x, w, nullptr, sh, big, ybad), ShapeError);
}
