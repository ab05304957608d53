// tak+*, tack+*, cov and cm on the GPU against the same instructions on the CPU backend: matrix
// and scalar operands over dense, sparse, ultra-sparse and empty inputs of empty, 1x1, odd and
// larger-than-block shapes, weighted and unweighted moments of orders 0 (the weighted mean) and
// 2 to 4, FP64 (1e-9) and FP32 (1e-4 relative on float-rounded inputs); run-to-run identical
// results (no atomics); one element read back for a scalar result, tack+*'s row kept on the
// device; CP lines under -gpu force; the CPU's errors for a bad order and mismatched shapes.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

const std::string kA = "A·MATRIX·FP64", kB = "B·MATRIX·FP64", kC = "C·MATRIX·FP64";

// Binds `m` as `name` on both backends.
void bind_both(GpuEnv& g, CpuEnv& c, const char* name, const MatrixBlock& m) {
  g.bind(name, m);
  c.bind(name, m);
}

struct Shape {
  int64_t rows, cols;
};

std::string label(const std::string& what, int64_t rows, int64_t cols, const char* format,
                  mem::DType dt) {
  std::ostringstream os;
  os << what << " " << rows << "x" << cols << " " << format << " " << prec_name(dt);
  return os.str();
}

// The scalar `name` as a 1x1 block (compare() handles NaN).
MatrixBlock scalar_block(inst::ExecutionContext& ec, const std::string& name) {
  return MatrixBlock::dense(1, 1, ec.scalar(name).to_double());
}

// Runs `fields` (an "OUT" placeholder for the output) as a CP line on the CPU and as a GPU line
// on the device, and compares the scalar `s` or the matrix `R`. A scalar result reads one element
// back and nothing else; a matrix result stays on the device until host() reads it.
void check_case(GpuEnv& g, CpuEnv& c, const std::string& what, const std::string& opcode,
                const std::string& fields, bool scalar_out, mem::DType dt) {
  const std::string out = scalar_out ? "s·SCALAR·FP64" : "R·MATRIX·FP64";
  const std::string gpu_line = "GPU°" + opcode + "°" + with_out(fields, out);
  const std::string cpu_line = "CP°" + opcode + "°" + with_out(fields, out) + "°8";
  INFO(what << "\n  gpu line: " << gpu_line);
  MatrixBlock ref;
  try {
    c.run(cpu_line);
    ref = scalar_out ? scalar_block(c.ec, "s") : c.host("R");
  } catch (const std::exception& e) {
    FAIL_CHECK("CPU reference threw: " << e.what());
    return;
  }
  try {
    const int64_t d2h = g.gpu->stats().from_dev_bytes;
    const bool on_gpu = g.run(gpu_line);
    CHECK(on_gpu);
    // At most the result element (the inputs were bound on the host and uploaded).
    CHECK(g.gpu->stats().from_dev_bytes - d2h <= 8);
    if (!scalar_out) CHECK(g.object("R")->has_device_copy());
    const MatrixBlock got = scalar_out ? scalar_block(*g.ec, "s") : g.host("R");
    const auto cmp = test::compare(got, ref, tol_of(dt), tol_of(dt));
    INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
    CHECK(cmp.ok);
  } catch (const std::exception& e) {
    FAIL_CHECK("GPU run threw: " << e.what());
  }
}

}  // namespace

TEST_CASE("gpu tak+* and tack+* match the CPU", "[gpu][stats]") {
  const std::vector<Shape> shapes = {{0, 0}, {0, 4},   {4, 0},    {1, 1},    {7, 1},
                                     {1, 7}, {33, 65}, {5000, 3}, {3, 5000}, {1000, 1003}};
  // Operand forms: three matrices, a scalar in the middle, a scalar last, one matrix only.
  struct Form {
    const char* name;
    std::string fields;
  };
  const std::vector<Form> forms = {
      {"M M M", kA + "°" + kB + "°" + kC + "°OUT"},
      {"M s M", kA + "°2.5·SCALAR·FP64·true°" + kC + "°OUT"},
      {"M M s", kA + "°" + kB + "°-0.75·SCALAR·FP64·true°OUT"},
      {"s M s", "0.5·SCALAR·FP64·true°" + kB + "°3·SCALAR·INT64·true°OUT"},
      {"A A B (one input twice)", kA + "°" + kA + "°" + kB + "°OUT"}};
  const uint64_t seed = test::seed_from("gpu tak+*");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv g(dt);
    CpuEnv c;
    for (const Shape& s : shapes)
      for (const Format& f : formats()) {
        int i = 0;
        for (const char* name : {"A", "B", "C"}) {
          // Each input in its own format: C dense, so mixed formats meet.
          const Format& fi = i == 2 ? formats()[0] : f;
          const MatrixBlock m = input(s.rows, s.cols, fi, seed + s.rows * 31 + s.cols + i++, dt);
          g.bind(name, m);
          c.bind(name, m);
        }
        for (const Form& form : forms)
          for (const char* op : {"tak+*", "tack+*"}) {
            const bool scalar_out = std::string(op) == "tak+*";
            check_case(g, c, label(std::string(op) + " " + form.name, s.rows, s.cols, f.name, dt),
                       op, form.fields, scalar_out, dt);
          }
      }
  }
}

TEST_CASE("gpu cov and cm match the CPU, weighted and unweighted", "[gpu][stats]") {
  const uint64_t seed = test::seed_from("gpu cov cm");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv g(dt);
    CpuEnv c;
    for (int64_t n : {0, 1, 2, 7, 1000, 100003})
      for (const Format& f : formats()) {
        const MatrixBlock x = input(n, 1, f, seed + n, dt);
        const MatrixBlock y = input(n, 1, formats()[0], seed + n + 1, dt);
        // Positive weights (frequencies in SystemDS), dense.
        MatrixBlock w = test::random_block(n, 1, 1.0, seed + n + 2, 0.5, 1.5, false);
        if (dt == mem::DType::kFloat32) w = rounded_f32(w);
        bind_both(g, c, "X", x);
        bind_both(g, c, "Y", y);
        bind_both(g, c, "W", w);
        const std::string X = "X·MATRIX·FP64", Y = "Y·MATRIX·FP64", W = "W·MATRIX·FP64";
        check_case(g, c, label("cov", n, 1, f.name, dt), "cov", X + "°" + Y + "°OUT", true, dt);
        check_case(g, c, label("cov x,x", n, 1, f.name, dt), "cov", X + "°" + X + "°OUT", true, dt);
        check_case(g, c, label("cov weighted", n, 1, f.name, dt), "cov",
                   X + "°" + Y + "°" + W + "°OUT", true, dt);
        for (int order : {0, 2, 3, 4}) {
          const std::string o = std::to_string(order) + "·SCALAR·INT64·true";
          check_case(g, c, label("cm order " + std::to_string(order), n, 1, f.name, dt), "cm",
                     X + "°" + o + "°OUT", true, dt);
          check_case(g, c, label("cm weighted order " + std::to_string(order), n, 1, f.name, dt),
                     "cm", X + "°" + W + "°" + o + "°OUT", true, dt);
        }
      }
  }
}

TEST_CASE("gpu tak+*, tack+*, cov and cm give the same bits run after run", "[gpu][stats]") {
  const uint64_t seed = test::seed_from("gpu stats deterministic");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv g(dt);
    g.bind("A", input(2000, 777, formats()[0], seed, dt));
    g.bind("B", input(2000, 777, formats()[1], seed + 1, dt));
    g.bind("X", input(300001, 1, formats()[0], seed + 2, dt));
    g.bind("Y", input(300001, 1, formats()[0], seed + 3, dt));
    const std::vector<std::string> lines = {
        "GPU°tak+*°A·MATRIX·FP64°B·MATRIX·FP64°A·MATRIX·FP64°s·SCALAR·FP64",
        "GPU°cov°X·MATRIX·FP64°Y·MATRIX·FP64°s·SCALAR·FP64",
        "GPU°cm°X·MATRIX·FP64°3·SCALAR·INT64·true°s·SCALAR·FP64"};
    for (const std::string& line : lines) {
      INFO(line << " " << prec_name(dt));
      REQUIRE(g.run(line));
      const double first = g.ec->scalar("s").to_double();
      for (int rep = 0; rep < 3; ++rep) {
        REQUIRE(g.run(line));
        CHECK(g.ec->scalar("s").to_double() == first);  // bit-identical (finite values)
      }
    }
    INFO("tack+* 2000x777 " << prec_name(dt));
    REQUIRE(g.run("GPU°tack+*°A·MATRIX·FP64°B·MATRIX·FP64°A·MATRIX·FP64°R·MATRIX·FP64"));
    const MatrixBlock first = g.host("R");
    REQUIRE(g.run("GPU°tack+*°A·MATRIX·FP64°B·MATRIX·FP64°A·MATRIX·FP64°R·MATRIX·FP64"));
    const auto cmp = test::compare_bits(g.host("R"), first);
    INFO(cmp.report);
    CHECK(cmp.ok);
  }
}

TEST_CASE("gpu stats: CP lines under -gpu force and -gpu run on the GPU", "[gpu][stats]") {
  const uint64_t seed = test::seed_from("gpu stats cp lines");
  for (inst::GpuMode mode : {inst::GpuMode::kForce, inst::GpuMode::kOn}) {
    GpuEnv g(mem::DType::kFloat64, -1, mem::EvictionPolicy::kLru, mode);
    CpuEnv c;
    const MatrixBlock a = input(257, 129, formats()[1], seed, mem::DType::kFloat64);
    const MatrixBlock x = input(1001, 1, formats()[0], seed + 1, mem::DType::kFloat64);
    for (const char* name : {"A", "B"}) {
      g.bind(name, a);
      c.bind(name, a);
    }
    g.bind("X", x);
    c.bind("X", x);
    const std::string X = "X·MATRIX·FP64";
    struct Line {
      const char* opcode;
      std::string fields;
      bool scalar_out;
    };
    for (const Line& l : {Line{"tak+*", kA + "°" + kB + "°" + kA + "°OUT", true},
                          Line{"tack+*", kA + "°" + kB + "°2·SCALAR·FP64·true°OUT", false},
                          Line{"cov", X + "°" + X + "°OUT", true},
                          Line{"cm", X + "°4·SCALAR·INT64·true°OUT", true}}) {
      const std::string out = l.scalar_out ? "s·SCALAR·FP64" : "R·MATRIX·FP64";
      const std::string line = "CP°" + std::string(l.opcode) + "°" + with_out(l.fields, out) + "°8";
      INFO(line << (mode == inst::GpuMode::kForce ? " -gpu force" : " -gpu"));
      c.run(line);
      CHECK(g.run(line));
      const MatrixBlock got = l.scalar_out ? scalar_block(*g.ec, "s") : g.host("R");
      const MatrixBlock ref = l.scalar_out ? scalar_block(c.ec, "s") : c.host("R");
      const auto cmp = test::compare(got, ref);
      INFO(cmp.report);
      CHECK(cmp.ok);
    }
  }
}

TEST_CASE("gpu stats: the CPU's errors for a bad order and mismatched shapes", "[gpu][stats]") {
  GpuEnv g;
  g.bind("A", test::random_block(3, 2, 1.0, 1));
  g.bind("D", test::random_block(2, 3, 1.0, 2));
  g.bind("X", test::random_block(5, 1, 1.0, 3));
  g.bind("Y", test::random_block(4, 1, 1.0, 4));
  check_same_error(g, "tak+*", kA + "°D·MATRIX·FP64°" + kA + "°OUT", "SCALAR");
  check_same_error(g, "tack+*", kA + "°" + kA + "°D·MATRIX·FP64°OUT");
  check_same_error(g, "cov", "X·MATRIX·FP64°Y·MATRIX·FP64°OUT", "SCALAR");
  check_same_error(g, "cov", kA + "°" + kA + "°OUT", "SCALAR");
  check_same_error(g, "cm", "X·MATRIX·FP64°Y·MATRIX·FP64°2·SCALAR·INT64·true°OUT", "SCALAR");
  check_same_error(g, "cm", "X·MATRIX·FP64°5·SCALAR·INT64·true°OUT", "SCALAR");
  check_same_error(g, "cm", "X·MATRIX·FP64°1·SCALAR·INT64·true°OUT", "SCALAR");
  CHECK_THAT(error_of(g, "GPU°cm°X·MATRIX·FP64°5·SCALAR·INT64·true°s·SCALAR·FP64"),
             Catch::Contains("cm: order must be 0 (mean), 2, 3 or 4, got 5"));
  CHECK_THAT(error_of(g, "GPU°tak+*°A·MATRIX·FP64°D·MATRIX·FP64°A·MATRIX·FP64°s·SCALAR·FP64"),
             Catch::Contains("tak+*: inputs must have the same dimensions, got 3x2 and 2x3"));
  CHECK_THAT(error_of(g, "GPU°cov°X·MATRIX·FP64°Y·MATRIX·FP64°s·SCALAR·FP64"),
             Catch::Contains("cov: the second input must be a column vector of 5 rows, got 4x1"));
}
