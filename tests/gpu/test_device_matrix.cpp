// Device matrices: upload/download round trips (dense, CSR, empty, 1x1; FP64 exact, FP32 rounded),
// dense <-> CSR conversions into temporaries, transposes, nnz counts, and the matrix object's
// host/device state machine (Note [Host and device copies]).
#include <catch2/catch.hpp>

#include "gpu_env.h"
#include "instructions/gpu_placement.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {
const std::vector<std::pair<int64_t, int64_t>>& shapes() {
  static const std::vector<std::pair<int64_t, int64_t>> s = {
      {0, 0}, {0, 5}, {3, 0}, {1, 1}, {1, 9}, {9, 1}, {33, 65}, {1000, 1001}, {3000, 3001}};
  return s;
}
}  // namespace

TEST_CASE("device matrices round-trip through upload and download", "[gpu][memory]") {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats()) {
        INFO("round trip " << r << "x" << c << " " << f.name << " " << prec_name(dt));
        MatrixBlock x = test::random_block(r, c, f.sparsity, test::seed_from("rt") + r, -5, 5,
                                           f.sparse);
        if (dt == mem::DType::kFloat32) x = rounded_f32(x);
        mem::DeviceMatrix d = env.gpu->upload(x, "test input");
        CHECK(d.is_sparse() == x.is_sparse());
        if (x.is_sparse() && x.nnz() == 0) CHECK(d.device_bytes() == 0);  // empty: no memory
        const MatrixBlock back = env.gpu->download(d);
        DMLRT_REQUIRE_CLOSE(back, x, 0.0, 0.0);  // exact (inputs are float-representable)
        if (!d.is_sparse()) d.set_nnz(-1);  // unknown: count_nnz runs the counting kernel
        CHECK(env.gpu->count_nnz(d) == (d.is_sparse() ? d.nnz() : x.nnz()));
      }
  }
}

TEST_CASE("dense <-> CSR conversions make temporaries and keep values", "[gpu][cusparse]") {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats()) {
        INFO("convert " << r << "x" << c << " " << f.name << " " << prec_name(dt));
        MatrixBlock x = rounded_f32(test::random_block(r, c, f.sparsity, 11 + r, -1, 1, false));
        mem::DeviceMatrix d = env.gpu->upload(x, "dense input");
        REQUIRE_FALSE(d.is_sparse());
        mem::DeviceMatrix s = env.gpu->to_csr(d, "csr temp");
        CHECK(s.is_sparse());
        CHECK(s.nnz() == x.nnz());
        CHECK_FALSE(d.is_sparse());  // the input keeps its representation
        DMLRT_REQUIRE_CLOSE(env.gpu->download(s), x, 0.0, 0.0);
        mem::DeviceMatrix d2 = env.gpu->to_dense(s, "dense temp");
        DMLRT_REQUIRE_CLOSE(env.gpu->download(d2), x, 0.0, 0.0);
        mem::DeviceMatrix t = env.gpu->transpose(s, "csr transpose");
        mem::DeviceMatrix td = env.gpu->transpose(d, "dense transpose");
        MatrixBlock xt = MatrixBlock::dense(c, r);
        for (int64_t i = 0; i < r; ++i)
          for (int64_t j = 0; j < c; ++j) xt.dense_values()[static_cast<size_t>(j * r + i)] = x.get(i, j);
        DMLRT_REQUIRE_CLOSE(env.gpu->download(t), xt, 0.0, 0.0);
        DMLRT_REQUIRE_CLOSE(env.gpu->download(td), xt, 0.0, 0.0);
      }
  }
}

TEST_CASE("matrix objects: GPU read uploads once, CPU read keeps the device copy, writes drop it",
          "[gpu][memory]") {
  GpuEnv env;
  MatrixBlock x = test::random_block(50, 40, 1.0, 21);
  env.bind("X", x);
  auto mo = env.object("X");
  CHECK(mo->host_valid());
  CHECK_FALSE(mo->has_device_copy());
  {
    inst::DeviceRead r = inst::gpu_read(*env.ec, *env.gpu, inst::Operand::parse("X·MATRIX·FP64"));
    CHECK(mo->device_pinned());
    CHECK(env.gpu->stats().to_dev_n == 1);
    inst::DeviceRead r2 = inst::gpu_read(*env.ec, *env.gpu, inst::Operand::parse("X·MATRIX·FP64"));
    CHECK(env.gpu->stats().to_dev_n == 1);  // already on the device
    CHECK(mo->read_pins() == 2);
  }
  CHECK_FALSE(mo->device_pinned());
  CHECK(mo->has_device_copy());
  CHECK(mo->host_valid());
  CHECK_FALSE(mo->device_dirty());

  // A GPU result: device dirty, host absent; a CPU read copies it down and keeps both.
  REQUIRE(env.run("GPU°+°X·MATRIX·FP64°X·MATRIX·FP64°Y·MATRIX·FP64"));
  auto y = env.object("Y");
  CHECK(y->device_dirty());
  CHECK_FALSE(y->host_valid());
  CHECK(y->has_block());
  CHECK(y->meta().rows == 50);
  CHECK(y->meta().cols == 40);
  (void)env.host("Y");
  CHECK(y->host_valid());
  CHECK(y->has_device_copy());
  CHECK_FALSE(y->device_dirty());
  CHECK(env.gpu->stats().from_dev_n == 1);
  (void)env.host("Y");
  CHECK(env.gpu->stats().from_dev_n == 1);  // no second copy

  // A host write drops the stale device copy.
  env.bind("Y", MatrixBlock::dense(2, 2, 1.0));
  CHECK_FALSE(y->has_device_copy());
  CHECK(y->meta().rows == 2);
}
