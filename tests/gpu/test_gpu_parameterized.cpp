// contains, replace, rexpand and the scalar casts of a 1x1 matrix on the GPU against the same
// instruction on the CPU backend: dense / sparse / ultra-sparse / empty inputs, empty shapes,
// 1x1, odd and wide shapes, NaN patterns, both precisions (FP32 inputs rounded to float, so both
// backends see the same values; these ops move or compare values and are exact). Also the device
// formats that stay CSR, errors identical to the CPU's, and castdts reading one cell of a
// device-resident 1x1 without making a host copy.
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

const std::vector<std::pair<int64_t, int64_t>>& shapes() {
  static const std::vector<std::pair<int64_t, int64_t>> s = {
      {0, 0}, {0, 4}, {1, 1}, {37, 23}, {5, 300}, {1000, 3}};
  return s;
}

std::string label(const char* op, int64_t r, int64_t c, const Format& f, double pattern) {
  std::ostringstream os;
  os << op << " A(" << r << "x" << c << " " << f.name << ") pattern=" << pattern;
  return os.str();
}

// `m` with every 7th stored nonzero cell set to NaN, in m's format.
MatrixBlock with_nans(const MatrixBlock& m) {
  std::vector<double> v = m.to_dense().dense_values();
  int k = 0;
  for (double& x : v)
    if (x != 0 && ++k % 7 == 0) x = kNaN;
  MatrixBlock out = MatrixBlock::dense(m.rows(), m.cols(), std::move(v));
  return m.is_sparse() ? out.to_sparse() : out;
}

// The first nonzero, non-NaN cell of `m` (a pattern that is present), or 1.5.
double present_value(const MatrixBlock& m) {
  for (double x : m.to_dense().dense_values())
    if (x != 0 && !std::isnan(x)) return x;
  return 1.5;
}

// A column vector of m index-like values for rexpand / ctableexpand: floor(u) + shift for u
// uniform in [0, k + 1), so values run over shift .. k + shift (0 occurs when shift is 0);
// `fraction` keeps the fractional part (cast=false truncates it, cast=true floors it).
MatrixBlock index_vector(int64_t m, int64_t k, int64_t shift, uint64_t seed, bool fraction,
                         mem::DType dt) {
  MatrixBlock u = test::random_block(m, 1, 1.0, seed, 0, static_cast<double>(k + 1));
  std::vector<double> v = u.to_dense().dense_values();
  for (double& x : v) x = (fraction ? x : std::floor(x)) + static_cast<double>(shift);
  MatrixBlock out = MatrixBlock::dense(m, 1, std::move(v));
  return dt == mem::DType::kFloat32 ? rounded_f32(out) : out;
}

}  // namespace

TEST_CASE("gpu contains matches the CPU (patterns 0, NaN, present and absent)",
          "[gpu][parameterized]") {
  const uint64_t seed = test::seed_from("gpu contains");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats())
        for (bool nans : {false, true}) {
          MatrixBlock a = input(r, c, f, seed + r * 7 + c, dt);
          if (nans) a = with_nans(a);
          env.bind("A", a);
          for (double p : {0.0, kNaN, 7.25, present_value(a)}) {
            INFO(label("contains", r, c, f, p) << (nans ? " with NaN" : "") << " "
                                               << prec_name(dt));
            env.ec->set_scalar("P", inst::ScalarValue::fp64(p));
            try {
              env.run("CP°contains°target=A°pattern=P°R·SCALAR·BOOLEAN");
              const bool on_gpu = env.run("GPU°contains°target=A°pattern=P°G·SCALAR·BOOLEAN");
              CHECK(on_gpu);
              CHECK(env.ec->scalar("G").to_bool() == env.ec->scalar("R").to_bool());
              CHECK(env.ec->scalar("G").type() == inst::ValueType::kBoolean);
            } catch (const std::exception& e) {
              FAIL_CHECK("threw: " << e.what());
            }
          }
        }
  }
}

TEST_CASE("gpu contains of a device-resident matrix leaves it on the device",
          "[gpu][parameterized]") {
  GpuEnv env(mem::DType::kFloat64);
  env.bind("A", test::random_block(40, 30, 1.0, test::seed_from("contains resident"), -2, 2));
  REQUIRE(env.run("GPU°r'°A·MATRIX·FP64°T·MATRIX·FP64"));  // T lives on the device only
  env.ec->set_scalar("P", inst::ScalarValue::fp64(0.0));
  REQUIRE(env.run("GPU°contains°target=T°pattern=P°G·SCALAR·BOOLEAN"));
  CHECK_FALSE(env.ec->scalar("G").to_bool());
  CHECK_FALSE(env.object("T")->host_valid());
}

TEST_CASE("gpu replace matches the CPU; CSR inputs with a nonzero pattern stay CSR",
          "[gpu][parameterized]") {
  const uint64_t seed = test::seed_from("gpu replace");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats())
        for (bool nans : {false, true}) {
          MatrixBlock a = input(r, c, f, seed + r * 7 + c, dt);
          if (nans) a = with_nans(a);
          env.bind("A", a);
          for (double p : {0.0, kNaN, 7.25, present_value(a)})
            for (double rep : {0.0, 5.5, kNaN}) {
              env.ec->set_scalar("P", inst::ScalarValue::fp64(p));
              env.ec->set_scalar("Q", inst::ScalarValue::fp64(rep));
              std::ostringstream os;
              os << label("replace", r, c, f, p) << " replacement=" << rep
                 << (nans ? " with NaN" : "");
              // A CSR input keeps its format unless every absent cell matches (pattern 0).
              const int expect_sparse = a.is_sparse() ? (p != 0.0 ? 1 : 0) : 0;
              check_vs_cpu(env, dt, "replace", "target=A°pattern=P°replacement=Q°OUT", os.str(),
                           expect_sparse);
            }
        }
  }
}

TEST_CASE("gpu rexpand matches the CPU: dir rows/cols, cast, ignore, values past max",
          "[gpu][parameterized]") {
  const uint64_t seed = test::seed_from("gpu rexpand");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (int64_t m : {0, 1, 7, 1000})
      for (bool fraction : {false, true})
        for (int64_t shift : {0, 1, -2}) {  // 0: zeros, 1: all valid, -2: negatives too
          MatrixBlock v = index_vector(m, 6, shift, seed + m * 13 + shift, fraction, dt);
          for (bool sparse : {false, true}) {
            env.bind("v", sparse ? v.to_sparse() : v);
            for (const char* dir : {"rows", "cols"})
              for (bool cast : {true, false})
                for (int64_t max : {0, 1, 5, 9}) {
                  std::ostringstream os;
                  os << "rexpand v(" << m << "x1, shift " << shift << (fraction ? ", frac" : "")
                     << (sparse ? ", csr" : "") << ") dir=" << dir << " cast=" << cast
                     << " max=" << max;
                  const std::string fields = std::string("target=v°max=") + std::to_string(max) +
                                             "°dir=" + dir + "°cast=" + (cast ? "true" : "false");
                  // ignore=true always runs; ignore=false only where the CPU accepts the input.
                  check_vs_cpu(env, dt, "rexpand", fields + "°ignore=true°OUT", os.str(), 1);
                  if (shift == 1 && !fraction)
                    check_vs_cpu(env, dt, "rexpand", fields + "°ignore=false°OUT",
                                 os.str() + " ignore=false");
                }
          }
        }
  }
}

TEST_CASE("gpu rexpand raises the CPU's errors", "[gpu][parameterized]") {
  GpuEnv env(mem::DType::kFloat64);
  const std::string f = "°dir=cols°cast=true°ignore=false°OUT";
  env.bind("z", test::dense_of(4, 1, {1, 0, 2, 3}));  // a zero: the nnz check
  check_same_error(env, "rexpand", "target=z°max=3" + f);
  env.bind("n", test::dense_of(4, 1, {1, 2, -1, 3}));  // a negative value, row 3
  check_same_error(env, "rexpand", "target=n°max=3" + f);
  env.bind("q", test::dense_of(3, 1, {1, kNaN, 2}));  // NaN, row 2
  check_same_error(env, "rexpand", "target=q°max=3" + f);
  check_same_error(env, "rexpand", "target=n°max=-2°dir=rows°cast=true°ignore=true°OUT");
  env.bind("w", test::dense_of(2, 2, {1, 2, 3, 4}));  // not a column vector
  check_same_error(env, "rexpand", "target=w°max=3" + f);
  CHECK_THAT(error_of(env, "GPU°rexpand°target=n°max=3" + with_out(f, "G·MATRIX·FP64")),
             Catch::Contains("rexpand: invalid input value -1 (<= 0) at row 3"));
}

TEST_CASE("gpu castdts of a device-resident 1x1 reads one cell, no host copy",
          "[gpu][parameterized][variable]") {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    INFO(prec_name(dt));
    GpuEnv env(dt);
    for (bool sparse : {false, true})
      for (double x : {0.0, -2.5, 3.0}) {
        INFO((sparse ? "csr " : "dense ") << x);
        env.bind("A", sparse ? test::sparse_of(1, 1, {x}) : test::dense_of(1, 1, {x}));
        REQUIRE(env.run("GPU°r'°A·MATRIX·FP64°T·MATRIX·FP64"));  // T: on the device only
        REQUIRE_FALSE(env.object("T")->host_valid());
        for (const char* op : {"castdts", "castvtd", "castvti", "castvtb"}) {
          INFO(op);
          env.run(std::string("CP°") + op + "°A·MATRIX·FP64°R·SCALAR·FP64");
          CHECK(env.run(std::string("GPU°") + op + "°T·MATRIX·FP64°G·SCALAR·FP64"));
          CHECK(env.ec->scalar("G").to_double() == env.ec->scalar("R").to_double());
          CHECK(env.ec->scalar("G").type() == env.ec->scalar("R").type());
          CHECK_FALSE(env.object("T")->host_valid());
        }
      }
    // A host-resident 1x1 is read on the host; a matrix of another shape is the CPU's error.
    env.bind("B", test::dense_of(1, 1, {4.0}));
    CHECK(env.run("GPU°castdts°B·MATRIX·FP64°G·SCALAR·FP64"));
    CHECK(env.ec->scalar("G").to_double() == 4.0);
    CHECK_FALSE(env.object("B")->has_device_copy());
    env.bind("C", test::dense_of(1, 2, {1, 2}));
    check_same_error(env, "castdts", "C·MATRIX·FP64°OUT", "SCALAR");
  }
}

TEST_CASE("gpu groupedagg sum / count / mean match the CPU", "[gpu][parameterized]") {
  const uint64_t seed = test::seed_from("gpu groupedagg");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes())
      for (const Format& f : formats()) {
        const uint64_t s = seed + r * 7 + c;
        env.bind("A", input(r, c, f, s, dt));
        // ids 1..6 (fractional: Java's int cast truncates) in I, a CSR copy in J
        env.bind("I", index_vector(r, 5, 1, s + 1, true, dt));
        env.bind("J", index_vector(r, 5, 1, s + 1, true, dt).to_sparse());
        MatrixBlock w = test::random_block(r, c, 1.0, s + 2, 0, 2);
        env.bind("W", dt == mem::DType::kFloat32 ? rounded_f32(w) : w);
        for (const char* fn : {"sum", "count", "mean"})
          for (const char* extra : {"", "°weights=W", "°ngroups=3", "°ngroups=8°weights=W"})
            for (const char* groups : {"I", "J"}) {
              std::ostringstream os;
              os << "groupedagg fn=" << fn << extra << " groups=" << groups << " A(" << r << "x"
                 << c << " " << f.name << ")";
              // Sums in double on the device (FP32 results are rounded once).
              check_vs_cpu(env, dt, "groupedagg",
                           std::string("target=A°groups=") + groups + "°fn=" + fn + extra +
                               "°OUT",
                           os.str());
            }
      }
  }
}

// Both device kernels of grouped_sums (Note [GPU grouped aggregates]): up to 8 groups a thread
// sums runs of rows in registers (tall inputs span many runs), more groups add cell by cell.
TEST_CASE("gpu groupedagg with few and many groups on tall inputs", "[gpu][parameterized]") {
  const uint64_t seed = test::seed_from("gpu groupedagg tall");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : std::vector<std::pair<int64_t, int64_t>>{{20000, 3}, {3000, 70}})
      for (const Format& f : formats())
        for (int64_t k : {1, 3, 8, 9, 40}) {
          const uint64_t s = seed + r + c + k;
          env.bind("A", input(r, c, f, s, dt));
          env.bind("I", index_vector(r, k - 1, 1, s + 1, false, dt));  // ids 1..k
          MatrixBlock w = test::random_block(r, c, 1.0, s + 2, 0, 2);
          env.bind("W", dt == mem::DType::kFloat32 ? rounded_f32(w) : w);
          for (const char* fn : {"sum", "count", "mean"})
            for (const char* extra : {"", "°weights=W"}) {
              std::ostringstream os;
              os << "groupedagg fn=" << fn << extra << " k=" << k << " A(" << r << "x" << c << " "
                 << f.name << ")";
              check_vs_cpu(env, dt, "groupedagg",
                           std::string("target=A°groups=I°fn=") + fn + extra + "°OUT", os.str());
            }
        }
  }
}

TEST_CASE("gpu groupedagg raises the CPU's errors; other functions stay on the CPU",
          "[gpu][parameterized]") {
  GpuEnv env(mem::DType::kFloat64);
  env.bind("A", test::dense_of(4, 2, {1, 2, 3, 4, 5, 6, 7, 8}));
  for (const std::vector<double>& ids :
       {std::vector<double>{1, 2, 0, 1}, {1, kNaN, 2, 1}, {1, 2, 1, -3}}) {
    env.bind("I", test::dense_of(4, 1, ids));
    check_same_error(env, "groupedagg", "target=A°groups=I°fn=sum°OUT");
  }
  env.bind("I", test::dense_of(4, 1, {1, 2, 0.5, 1}));
  CHECK_THAT(error_of(env, "GPU°groupedagg°target=A°groups=I°fn=mean°G2·MATRIX·FP64"),
             Catch::Contains("groupedagg: invalid value (0.5) encountered in 'groups' at row 3"));
  env.bind("I", test::dense_of(4, 1, {1, 2, 2, 1}));
  CHECK_FALSE(env.run("GPU°groupedagg°target=A°groups=I°fn=variance°V·MATRIX·FP64"));
}
