// Aggregate instructions on the GPU against the same instructions on the CPU backend: every full,
// row and column aggregate and rowIndexMax/Min over dense, sparse, ultra-sparse, empty and NaN/Inf
// inputs of empty, 1x1, odd, wide and larger-than-block shapes, FP64 (1e-9) and FP32 (1e-4
// relative on float-rounded inputs); full aggregates as scalars (one read back) and as 1x1
// matrices; nrow/ncol/length of device-resident data without a transfer; stats names.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

struct Shape {
  int64_t rows, cols;
};
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {{0, 0}, {0, 4},   {4, 0},    {1, 1},    {1, 7},
                                       {7, 1}, {33, 65}, {3, 5000}, {5000, 3}, {1000, 1003}};
  return s;
}

enum class Range { kSigned, kProd, kVar };

struct AggCase {
  const char* opcode;
  char dir;  // 'a' full, 'r' row, 'c' column
  Range range;
};
// Inputs are well-conditioned (DESIGN.md §6): [-1, 1]; products over [0.999, 1.001]; variances
// over [2, 4].
const std::vector<AggCase>& cases() {
  static const std::vector<AggCase> c = {
      {"ua+", 'a', Range::kSigned},     {"uak+", 'a', Range::kSigned},
      {"uar+", 'r', Range::kSigned},    {"uark+", 'r', Range::kSigned},
      {"uac+", 'c', Range::kSigned},    {"uack+", 'c', Range::kSigned},
      {"ua*", 'a', Range::kProd},       {"uar*", 'r', Range::kProd},
      {"uac*", 'c', Range::kProd},      {"uamean", 'a', Range::kSigned},
      {"uarmean", 'r', Range::kSigned}, {"uacmean", 'c', Range::kSigned},
      {"uamax", 'a', Range::kSigned},   {"uarmax", 'r', Range::kSigned},
      {"uacmax", 'c', Range::kSigned},  {"uamin", 'a', Range::kSigned},
      {"uarmin", 'r', Range::kSigned},  {"uacmin", 'c', Range::kSigned},
      {"uasqk+", 'a', Range::kSigned},  {"uarsqk+", 'r', Range::kSigned},
      {"uacsqk+", 'c', Range::kSigned}, {"uavar", 'a', Range::kVar},
      {"uarvar", 'r', Range::kVar},     {"uacvar", 'c', Range::kVar},
      {"uarimax", 'r', Range::kSigned}, {"uarimin", 'r', Range::kSigned}};
  return c;
}

// The formats of gpu_env.h plus a dense input holding NaN, +-Inf and +-0.
std::vector<Format> all_formats() {
  std::vector<Format> f = formats();
  f.push_back({"dense+specials", 1.0, false});
  return f;
}
bool has_specials(const Format& f) { return std::string(f.name) == "dense+specials"; }

MatrixBlock make_input(const Format& f, Range range, int64_t rows, int64_t cols, uint64_t seed,
                       mem::DType dt) {
  const double lo = range == Range::kProd ? 0.999 : (range == Range::kVar ? 2.0 : -1.0);
  const double hi = range == Range::kProd ? 1.001 : (range == Range::kVar ? 4.0 : 1.0);
  MatrixBlock m = test::random_block(rows, cols, f.sparsity, seed, lo, hi, f.sparse);
  if (has_specials(f) && rows * cols > 0) {
    std::vector<double> v = m.to_dense().dense_values();
    const double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity(), 0.0, -0.0};
    std::mt19937_64 gen(seed);
    std::uniform_int_distribution<size_t> pos(0, v.size() - 1);
    const size_t count = v.size() < 16 ? 1 : v.size() / 50;
    for (size_t k = 0; k < count; ++k) v[pos(gen)] = kSpecial[k % 5];
    m = MatrixBlock::dense(rows, cols, std::move(v));
  }
  return dt == mem::DType::kFloat32 ? rounded_f32(m) : m;
}

std::string label(const std::string& what, int64_t rows, int64_t cols, const char* format,
                  mem::DType dt) {
  std::ostringstream os;
  os << what << " " << rows << "x" << cols << " " << format << " " << prec_name(dt);
  return os.str();
}

// Runs the op on both envs and compares its output (a scalar for full aggregates with
// `scalar_out`, else a matrix). CHECKs, so one run reports every failing case.
void check_case(GpuEnv& g, CpuEnv& c, const std::string& what, const std::string& opcode,
                bool scalar_out, bool gpu_layout, mem::DType dt) {
  const std::string in = "°A·MATRIX·FP64";
  const std::string out = scalar_out ? "°s·SCALAR·FP64" : "°R·MATRIX·FP64";
  const bool index = opcode == "uarimax" || opcode == "uarimin";
  const std::string cp_tail = index ? "°8°1" : "°8";
  const std::string gpu_line =
      gpu_layout ? "GPU°" + opcode + in + out : "CP°" + opcode + in + out + cp_tail;
  const std::string cpu_line = "CP°" + opcode + in + out + cp_tail;
  INFO(what << "\n  gpu line: " << gpu_line);
  MatrixBlock ref;
  try {
    c.run(cpu_line);
    ref = scalar_out ? MatrixBlock::dense(1, 1, c.ec.scalar("s").to_double()) : c.host("R");
  } catch (const std::exception& e) {
    FAIL_CHECK("CPU reference threw: " << e.what());
    return;
  }
  try {
    const bool on_gpu = g.run(gpu_line);
    CHECK(on_gpu);
    const MatrixBlock got =
        scalar_out ? MatrixBlock::dense(1, 1, g.ec->scalar("s").to_double()) : g.host("R");
    // Row indices are exact.
    const double tol = index ? 0.0 : tol_of(dt);
    const auto cmp = test::compare(got, ref, tol, tol);
    INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
    CHECK(cmp.ok);
  } catch (const std::exception& e) {
    FAIL_CHECK("GPU run threw: " << e.what());
  }
}

}  // namespace

TEST_CASE("gpu aggregates: every full, row and column aggregate matches the CPU",
          "[gpu][aggregate]") {
  const uint64_t seed = test::seed_from("gpu aggregates");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv g(dt);
    CpuEnv c;
    for (const Shape& s : shapes())
      for (const Format& f : all_formats())
        for (Range range : {Range::kSigned, Range::kProd, Range::kVar}) {
          const MatrixBlock a =
              make_input(f, range, s.rows, s.cols, seed + s.rows * 7 + s.cols, dt);
          g.bind("A", a);
          c.bind("A", a);
          for (const AggCase& ac : cases()) {
            if (ac.range != range) continue;
            // The variance of data holding +-Inf is undefined: the CPU's incremental update gives
            // Inf or NaN by position, the GPU's Welford/Chan merge NaN. Not compared.
            if (ac.range == Range::kVar && has_specials(f)) continue;
            check_case(g, c, label(ac.opcode, s.rows, s.cols, f.name, dt), ac.opcode, ac.dir == 'a',
                       true, dt);
          }
        }
  }
}

TEST_CASE("gpu aggregates: full aggregates into a 1x1 matrix stay on the device",
          "[gpu][aggregate]") {
  const uint64_t seed = test::seed_from("gpu aggregates 1x1");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv g(dt);
    CpuEnv c;
    for (const Shape& s : std::vector<Shape>{{0, 3}, {1, 1}, {33, 65}, {1000, 1003}})
      for (const Format& f : formats()) {
        for (const char* op : {"uak+", "uamean", "uamax", "uamin", "uasqk+", "ua*", "uavar"}) {
          const std::string opcode = op;
          const Range range =
              opcode == "ua*" ? Range::kProd : (opcode == "uavar" ? Range::kVar : Range::kSigned);
          const MatrixBlock a = make_input(f, range, s.rows, s.cols, seed + s.rows, dt);
          g.bind("A", a);
          c.bind("A", a);
          const int64_t d2h = g.gpu->stats().from_dev_n;
          check_case(g, c, label(opcode + " into a 1x1 matrix", s.rows, s.cols, f.name, dt), opcode,
                     false, true, dt);
          CHECK(g.gpu->stats().from_dev_n == d2h + 1);  // only the host() read of the result
        }
      }
  }
}

TEST_CASE("gpu aggregates: CP lines under -gpu force and -gpu run on the GPU", "[gpu][aggregate]") {
  const uint64_t seed = test::seed_from("gpu aggregates cp lines");
  for (inst::GpuMode mode : {inst::GpuMode::kForce, inst::GpuMode::kOn}) {
    GpuEnv g(mem::DType::kFloat64, -1, mem::EvictionPolicy::kLru, mode);
    CpuEnv c;
    const MatrixBlock a =
        make_input(formats()[1], Range::kSigned, 257, 129, seed, mem::DType::kFloat64);
    g.bind("A", a);
    c.bind("A", a);
    const char* mode_name = mode == inst::GpuMode::kForce ? " CP line -gpu force" : " CP line -gpu";
    for (const AggCase& ac : cases()) {
      if (ac.range != Range::kSigned) continue;
      check_case(
          g, c,
          label(std::string(ac.opcode) + mode_name, 257, 129, "sparse0.1", mem::DType::kFloat64),
          ac.opcode, ac.dir == 'a', false, mem::DType::kFloat64);
    }
  }
}

TEST_CASE("gpu aggregates: rowIndexMax/Min pick the CPU's column (ties, implicit zeros, NaN rows)",
          "[gpu][aggregate]") {
  const uint64_t seed = test::seed_from("gpu aggregates rowindex");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv g(dt);
    CpuEnv c;
    for (const Shape& s : std::vector<Shape>{{1, 1}, {7, 1}, {1, 7}, {33, 65}, {4, 5000}})
      for (const Format& f : formats()) {
        // Small integers make many ties; sparse rows tie on their implicit zeros; row 1 is NaN.
        MatrixBlock a = test::random_block(s.rows, s.cols, f.sparsity, seed + s.cols, -2, 2, false);
        std::vector<double> v = a.dense_values();
        for (double& x : v) x = std::round(x);
        if (s.rows >= 2)
          for (int64_t j = 0; j < s.cols; ++j)
            v[static_cast<size_t>(s.cols + j)] = std::numeric_limits<double>::quiet_NaN();
        a = MatrixBlock::dense(s.rows, s.cols, std::move(v));
        if (f.sparse) a = a.to_sparse();
        g.bind("A", a);
        c.bind("A", a);
        for (const char* op : {"uarimax", "uarimin"})
          check_case(g, c, label(std::string(op) + " integer ties", s.rows, s.cols, f.name, dt), op,
                     false, true, dt);
      }
  }
}

TEST_CASE("gpu aggregates: chains stay on the device; nrow/ncol/length read no data",
          "[gpu][aggregate]") {
  GpuEnv g;
  g.gpu->set_timing(true);
  const MatrixBlock a = test::random_block(300, 200, 0.1, 3, -1, 1, true);
  g.bind("A", a);
  CHECK(g.run("GPU°uark+°A·MATRIX·FP64°R·MATRIX·FP64"));
  CHECK(g.run("GPU°uacmax°A·MATRIX·FP64°C·MATRIX·FP64"));
  CHECK(g.gpu->stats().from_dev_n == 0);
  // Dims of device-resident results come from the metadata: no transfer, not a GPU op.
  CHECK_FALSE(g.run("CP°nrow°R·MATRIX·FP64°n·SCALAR·INT64°8"));
  CHECK_FALSE(g.run("CP°ncol°C·MATRIX·FP64°m·SCALAR·INT64"));
  CHECK_FALSE(g.run("GPU°length°R·MATRIX·FP64·false°l·SCALAR·INT64"));
  CHECK(g.ec->scalar("n").to_int() == 300);
  CHECK(g.ec->scalar("m").to_int() == 200);
  CHECK(g.ec->scalar("l").to_int() == 300);
  CHECK(g.gpu->stats().from_dev_n == 0);
  CHECK(g.object("R")->has_device_copy());
  // A full aggregate of a device result: one element read back, no block transfer.
  CHECK(g.run("GPU°uak+°R·MATRIX·FP64°s·SCALAR·FP64"));
  CHECK(g.gpu->stats().from_dev_n == 0);
  std::vector<std::string> names;
  g.gpu->collect_timings([&](const std::string& n, double) { names.push_back(n); }, true);
  CHECK(names == std::vector<std::string>{"gpu_uark+", "gpu_uacmax", "gpu_uak+"});

  CpuEnv c;
  c.bind("A", a);
  c.run("CP°uark+°A·MATRIX·FP64°R·MATRIX·FP64°8");
  c.run("CP°uak+°R·MATRIX·FP64°s·SCALAR·FP64°8");
  c.run("CP°uacmax°A·MATRIX·FP64°C·MATRIX·FP64°8");
  INFO("uak+(uark+(A)) 300x200 sparse0.1 FP64");
  CHECK(g.ec->scalar("s").to_double() ==
        Approx(c.ec.scalar("s").to_double()).margin(1e-9).epsilon(1e-9));
  const auto cmp = test::compare(g.host("C"), c.host("C"));
  INFO("uacmax 300x200 sparse0.1 FP64: " << cmp.report);
  CHECK(cmp.ok);
}
