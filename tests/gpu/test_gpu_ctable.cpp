// table() on the GPU against the CPU backend: ctable with matrix, scalar and NaN-holding weights,
// dims from the data, from literals (dropping cells) and from scalar variables, ignore-zeros, a
// row-vector shape paired with a column vector, and ctableexpand in both orientations. Index
// inputs are integer-valued (some fractional: toLong floors them) in dense and CSR form, both
// precisions. Counts and integer weights sum exactly; fractional weights are compared with a
// tolerance (Note [GPU ctable summation order] in kernels/cuda/ctable.h). Errors are the CPU's.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kM = "·MATRIX·FP64";
const std::string kFrom = "-1·true";  // a dim from the data

// (r, c) index-like values 1 .. k + 1 (every 5th with a fractional part when `fraction`), or,
// with `zeros`, 0 wherever the hash of the cell is 0 mod 4 (the same cells in every call).
MatrixBlock indices(int64_t r, int64_t c, int64_t k, uint64_t seed, bool fraction, bool zeros,
                    mem::DType dt) {
  MatrixBlock u = test::random_block(r, c, 1.0, seed, 0, static_cast<double>(k + 1));
  std::vector<double> v = u.to_dense().dense_values();
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = std::floor(v[i]) + 1 + (fraction && i % 5 == 0 ? 0.25 : 0.0);
    if (zeros && (i * 2654435761u) % 4 == 0) v[i] = 0;
  }
  MatrixBlock out = MatrixBlock::dense(r, c, std::move(v));
  return dt == mem::DType::kFloat32 ? rounded_f32(out) : out;
}

MatrixBlock weights(int64_t r, int64_t c, uint64_t seed, bool nan, mem::DType dt) {
  MatrixBlock w = test::random_block(r, c, 1.0, seed, -1, 3);
  std::vector<double> v = w.dense_values();
  if (nan)
    for (size_t i = 0; i < v.size(); i += 6) v[i] = kNaN;
  MatrixBlock out = MatrixBlock::dense(r, c, std::move(v));
  return dt == mem::DType::kFloat32 ? rounded_f32(out) : out;
}

// check_vs_cpu with the tolerance of a sum of fractional weights in the device precision.
void check_table(GpuEnv& env, mem::DType dt, const std::string& opcode, const std::string& fields,
                 const std::string& label) {
  INFO(label << " " << prec_name(dt));
  try {
    env.run("CP°" + opcode + "°" + with_out(fields, "R" + kM));
    const bool on_gpu = env.run("GPU°" + opcode + "°" + with_out(fields, "G" + kM));
    CHECK(on_gpu);
    if (!on_gpu) return;
    const double tol = dt == mem::DType::kFloat64 ? 1e-9 : 1e-4;
    const auto cmp = test::compare(env.host("G"), env.host("R"), tol, tol);
    INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
    CHECK(cmp.ok);
  } catch (const std::exception& e) {
    FAIL_CHECK("threw: " << e.what());
  }
}

}  // namespace

TEST_CASE("gpu ctable matches the CPU: weights, dims, ignore-zeros, formats",
          "[gpu][ctable]") {
  const uint64_t seed = test::seed_from("gpu ctable");
  // (A shape, B shape): equal shapes, and a row-vector A paired with a column-vector B.
  const std::vector<std::pair<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>>> shapes =
      {{{0, 1}, {0, 1}},   {{1, 1}, {1, 1}},   {{7, 1}, {7, 1}},
       {{1000, 1}, {1000, 1}}, {{37, 23}, {37, 23}}, {{1, 9}, {9, 1}}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    env.ec->set_scalar("N", inst::ScalarValue::int64(3));
    env.ec->set_scalar("K", inst::ScalarValue::int64(4));
    for (const auto& [as, bs] : shapes)
      for (bool fraction : {false, true})
        for (bool sparse : {false, true}) {
          const uint64_t s = seed + as.first * 31 + as.second + (fraction ? 7 : 0);
          MatrixBlock a = indices(as.first, as.second, 4, s, fraction, false, dt);
          MatrixBlock b = indices(bs.first, bs.second, 5, s + 1, fraction, false, dt);
          env.bind("A", sparse ? a.to_sparse() : a);
          env.bind("B", sparse ? b.to_sparse() : b);
          env.bind("W", weights(as.first, as.second, s + 2, false, dt));
          env.bind("V", weights(as.first, as.second, s + 3, true, dt));
          std::ostringstream os;
          os << "ctable A(" << as.first << "x" << as.second << ") B(" << bs.first << "x"
             << bs.second << ")" << (fraction ? " fractional" : "") << (sparse ? " csr" : "");
          const std::string ab = "A" + kM + "°B" + kM + "°";
          for (const char* w : {"1.0·SCALAR·FP64·true", "0.5·SCALAR·FP64·true", "W·MATRIX·FP64",
                                "V·MATRIX·FP64"})
            for (const char* dims : {"-1·true°-1·true", "3·true°4·true", "N·false°-1·true",
                                     "-1·true°K·false", "0·true°2·true"})
              check_table(env, dt, "ctable", ab + w + "°" + dims + "°OUT°false",
                          os.str() + " w=" + w + " dims=" + dims);
          // table(A, 2): a scalar index side.
          check_table(env, dt, "ctable",
                      "A" + kM + "°2·SCALAR·FP64·true°1.0·SCALAR·FP64·true°" + kFrom + "°" +
                          kFrom + "°OUT°false",
                      os.str() + " B=2");
        }
    // ignore zeros: A and B are 0 on the same cells.
    for (bool sparse : {false, true}) {
      MatrixBlock a = indices(50, 3, 4, seed + 11, false, true, dt);
      MatrixBlock b = indices(50, 3, 6, seed + 12, false, true, dt);
      env.bind("A", sparse ? a.to_sparse() : a);
      env.bind("B", sparse ? b.to_sparse() : b);
      check_table(env, dt, "ctable",
                  "A" + kM + "°B" + kM + "°1.0·SCALAR·FP64·true°" + kFrom + "°" + kFrom +
                      "°OUT°true",
                  std::string("ctable ignore zeros") + (sparse ? " csr" : ""));
    }
  }
}

TEST_CASE("gpu ctableexpand matches the CPU: both orientations, weights, dims",
          "[gpu][ctable]") {
  const uint64_t seed = test::seed_from("gpu ctableexpand");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (int64_t m : {0, 1, 7, 1000})
      for (bool fraction : {false, true})
        for (bool sparse : {false, true}) {
          MatrixBlock v = indices(m, 1, 5, seed + m + (fraction ? 3 : 0), fraction, false, dt);
          env.bind("v", sparse ? v.to_sparse() : v);
          env.bind("W", weights(m, 1, seed + m + 1, false, dt));
          env.bind("V", weights(m, 1, seed + m + 2, true, dt));
          const std::string seq = "seq(1, " + std::to_string(m) + ")·SCALAR·STRING·true";
          for (bool left : {true, false})
            for (const char* w : {"1.0·SCALAR·FP64·true", "0·SCALAR·FP64·true", "W·MATRIX·FP64",
                                  "V·MATRIX·FP64"})
              for (const char* dim : {"-1·true", "4·true", "0·true"}) {
                std::ostringstream os;
                os << "ctableexpand v(" << m << "x1" << (fraction ? " fractional" : "")
                   << (sparse ? " csr" : "") << ") " << (left ? "seq left" : "seq right")
                   << " w=" << w << " dim=" << dim;
                const std::string ins = left ? seq + "°v" + kM : "v" + kM + "°" + seq;
                // The sequence side's dim is ignored; the other is `dim`.
                const std::string dims =
                    left ? kFrom + "°" + dim : std::string(dim) + "°" + kFrom;
                check_table(env, dt, "ctableexpand", ins + "°" + w + "°" + dims + "°OUT°false",
                            os.str());
              }
        }
  }
}

TEST_CASE("gpu ctable and ctableexpand raise the CPU's errors", "[gpu][ctable]") {
  GpuEnv env(mem::DType::kFloat64);
  const std::string tail = "°1.0·SCALAR·FP64·true°-1·true°-1·true°OUT°false";
  env.bind("A", test::dense_of(4, 1, {1, 2, 3, 2}));
  env.bind("Z", test::dense_of(4, 1, {1, 0, 2, -3}));  // 0 at row 2 (the first), -3 at row 4
  env.bind("N", test::dense_of(4, 1, {1, kNaN, 2, -1}));
  env.bind("C", test::dense_of(3, 1, {1, 2, 3}));
  check_same_error(env, "ctable", "A" + kM + "°Z" + kM + tail);
  check_same_error(env, "ctable", "Z" + kM + "°A" + kM + tail);
  check_same_error(env, "ctable", "N" + kM + "°A" + kM + tail);
  check_same_error(env, "ctable", "A" + kM + "°C" + kM + tail);  // shapes differ
  CHECK_THAT(error_of(env, "GPU°ctable°A" + kM + "°Z" + kM + with_out(tail, "G" + kM)),
             Catch::Contains("(one of the value <= zero): 2 0"));
  const std::string seq = "seq(1, 4)·SCALAR·STRING·true°";
  check_same_error(env, "ctableexpand", seq + "Z" + kM + tail);
  check_same_error(env, "ctableexpand", seq + "N" + kM + tail);
  // NaN cells are skipped, not errors.
  env.bind("P", test::dense_of(4, 1, {1, kNaN, 2, 3}));
  check_vs_cpu(env, mem::DType::kFloat64, "ctable", "A" + kM + "°P" + kM + tail, "ctable NaN");
  check_vs_cpu(env, mem::DType::kFloat64, "ctableexpand", seq + "P" + kM + tail,
               "ctableexpand NaN");
}
