// Tests of rand and seq: the Philox4x32-10 known-answer vectors, statistical checks of uniform,
// normal and poisson draws over 1e5 cells, sparsity, constants, determinism and seeds, and seq's
// SystemDS length/rounding rules and error messages, sinit (matrix("1 2 3 4", ...)) values,
// format and errors (values from SystemDS runs).
#include <catch2/catch.hpp>
#include <cmath>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"
#include "instructions/opcode_table.h"
#include "kernels/cpu/random.h"
#include "kernels/philox.h"

using dmlrt::inst::ScalarValue;
using dmlrt::kernels::MatrixBlock;
using dmlrt::test::TestContext;

namespace {

// CP rand with SystemDS's 11-field layout.
std::string rand_ins(int64_t rows, int64_t cols, const std::string& min, const std::string& max,
                     const std::string& sparsity, const std::string& seed,
                     const std::string& pdf = "uniform", const std::string& lambda = "1.0") {
  return "CP°rand°" + std::to_string(rows) + "·SCALAR·INT64·true°" + std::to_string(cols) +
         "·SCALAR·INT64·true°1000°" + min + "°" + max + "°" + sparsity + "°" + seed + "°" + pdf +
         "°" + lambda + "°2°X·MATRIX·FP64";
}

struct Moments {
  double mean = 0, var = 0, min = INFINITY, max = -INFINITY;
  int64_t nnz = 0;
};

// Moments over all cells (zeros included).
Moments moments(const MatrixBlock& b) {
  Moments m;
  const double n = static_cast<double>(b.size());
  for (int64_t i = 0; i < b.rows(); ++i)
    for (int64_t j = 0; j < b.cols(); ++j) {
      const double v = b.get(i, j);
      m.mean += v;
      m.min = std::min(m.min, v);
      m.max = std::max(m.max, v);
      m.nnz += v != 0.0;
    }
  m.mean /= n;
  for (int64_t i = 0; i < b.rows(); ++i)
    for (int64_t j = 0; j < b.cols(); ++j) m.var += (b.get(i, j) - m.mean) * (b.get(i, j) - m.mean);
  m.var /= n - 1;
  return m;
}

}  // namespace

TEST_CASE("Philox4x32-10 matches the Random123 known-answer vectors", "[datagen]") {
  using dmlrt::kernels::philox4x32_10;
  auto r = philox4x32_10(0, 0, 0, 0, 0, 0);
  CHECK(r.v[0] == 0x6627e8d5u);
  CHECK(r.v[1] == 0xe169c58du);
  CHECK(r.v[2] == 0xbc57ac4cu);
  CHECK(r.v[3] == 0x9b00dbd8u);
  r = philox4x32_10(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu);
  CHECK(r.v[0] == 0x408f276du);
  CHECK(r.v[1] == 0x41c83b0eu);
  CHECK(r.v[2] == 0xa20bc7c6u);
  CHECK(r.v[3] == 0x6d5451fdu);
  r = philox4x32_10(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u);
  CHECK(r.v[0] == 0xd16cfe09u);
  CHECK(r.v[1] == 0x94fdccebu);
  CHECK(r.v[2] == 0x5001e420u);
  CHECK(r.v[3] == 0x24126ea1u);
}

TEST_CASE("rand fast path: eight cells at a time give the cell streams' words and values",
          "[datagen]") {
  namespace k = dmlrt::kernels;
  // Cell indices across the 2^32 boundary take the counter's high word into account.
  for (uint64_t seed : {uint64_t{0}, uint64_t{42}, (uint64_t{1} << 40) + 7, ~uint64_t{0}})
    for (uint64_t first : {uint64_t{0}, uint64_t{5}, (uint64_t{1} << 32) - 3, uint64_t{1} << 40}) {
      uint32_t w0[8], w1[8], w2[8];
      k::cpu::philox_first_words8(seed, first, w0, w1, w2);
      for (int l = 0; l < 8; ++l) {
        k::PhiloxCellStream s(seed, first + static_cast<uint64_t>(l));
        INFO("seed " << seed << ", cell " << first + l);
        CHECK(w0[l] == s.next_u32());
        CHECK(w1[l] == s.next_u32());
        CHECK(w2[l] == s.next_u32());
      }
    }
  // Whole matrices (sizes not a multiple of eight, parallel bands, sparsity, min > max): every
  // cell as the cell stream draws it.
  for (int64_t rows : {1, 7, 301})
    for (double sparsity : {1.0, 0.97}) {
      k::cpu::RandSpec spec;
      spec.rows = rows;
      spec.cols = 333;
      spec.min = 3.5;
      spec.max = -1.25;
      spec.sparsity = sparsity;
      spec.seed = 1234567;
      const MatrixBlock b = k::cpu::rand_matrix(spec);
      int64_t bad = 0;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < spec.cols; ++c) {
          k::PhiloxCellStream s(spec.seed, static_cast<uint64_t>(r * spec.cols + c));
          const bool drawn = k::philox_bernoulli(s.next_u32(), sparsity);
          const double want = drawn ? spec.min + (spec.max - spec.min) * s.next_double() : 0.0;
          bad += b.get(r, c) == want ? 0 : 1;
        }
      CHECK(bad == 0);
    }
}

TEST_CASE("rand uniform: range, mean and variance over 1e5 cells", "[datagen]") {
  TestContext t;
  // SystemDS: CP rand 10 5 1000 0.0 1.0 1.0 7 uniform 1.0 2 _mVar0
  t.run(rand_ins(500, 200, "-2.0", "3.0", "1.0", "7"));
  const MatrixBlock& x = t.matrix("X");
  REQUIRE(x.rows() == 500);
  REQUIRE(x.cols() == 200);
  REQUIRE_FALSE(x.is_sparse());
  const Moments m = moments(x);
  REQUIRE(m.min >= -2.0);
  REQUIRE(m.max < 3.0);
  // mean 0.5, sd of the mean 5/sqrt(12)/sqrt(1e5) = 0.0046; variance 25/12.
  REQUIRE(std::fabs(m.mean - 0.5) < 5 * 0.0046);
  REQUIRE(std::fabs(m.var - 25.0 / 12.0) < 0.03);
  // Both ends of the range are reached.
  REQUIRE(m.min < -1.99);
  REQUIRE(m.max > 2.99);
}

TEST_CASE("rand sparsity: fraction of nonzeros and output format", "[datagen]") {
  TestContext t;
  SECTION("0.3 of 1e5 cells, sparse output") {
    t.run(rand_ins(400, 250, "1.0", "2.0", "0.3", "11"));
    const MatrixBlock& x = t.matrix("X");
    REQUIRE(x.is_sparse());
    // sd of the fraction sqrt(0.3*0.7/1e5) = 0.00145.
    REQUIRE(std::fabs(static_cast<double>(x.nnz()) / 1e5 - 0.3) < 5 * 0.00145);
    const Moments m = moments(x);
    REQUIRE(std::fabs(m.mean - 0.3 * 1.5) < 0.01);
  }
  SECTION("0.7: dense output") {
    t.run(rand_ins(400, 250, "1.0", "2.0", "0.7", "12"));
    const MatrixBlock& x = t.matrix("X");
    REQUIRE_FALSE(x.is_sparse());
    REQUIRE(std::fabs(static_cast<double>(x.nnz()) / 1e5 - 0.7) < 5 * 0.00145);
  }
  SECTION("ultra-sparse 0.001 of 1e6 cells") {
    t.run(rand_ins(1000, 1000, "0.0", "1.0", "0.001", "13"));
    const MatrixBlock& x = t.matrix("X");
    REQUIRE(x.is_sparse());
    // mean 1000, sd ~31.6.
    REQUIRE(std::abs(x.nnz() - 1000) < 160);
  }
  SECTION("sparsity 0 is an empty sparse matrix") {
    t.run(rand_ins(30, 40, "0.0", "1.0", "0.0", "14"));
    REQUIRE(t.matrix("X").is_sparse());
    REQUIRE(t.matrix("X").nnz() == 0);
    REQUIRE(t.matrix("X").rows() == 30);
  }
}

TEST_CASE("rand: the same cell gets the same value whatever the sparsity and format", "[datagen]") {
  TestContext t;
  t.run(rand_ins(80, 60, "0.0", "1.0", "1.0", "99"));
  const MatrixBlock full = t.matrix("X");
  for (const char* sp : {"0.6", "0.1"}) {
    t.run(rand_ins(80, 60, "0.0", "1.0", sp, "99"));
    const MatrixBlock& x = t.matrix("X");
    REQUIRE(x.nnz() > 0);
    for (int64_t i = 0; i < 80; ++i)
      for (int64_t j = 0; j < 60; ++j)
        if (x.get(i, j) != 0.0) REQUIRE(x.get(i, j) == full.get(i, j));
  }
}

TEST_CASE("rand constants: min == max", "[datagen]") {
  TestContext t;
  // SystemDS compiles matrix(1, rows=2, cols=2) to: rand 2 2 1000 1 1 1.0 -1 uniform 1.0 2
  t.run(rand_ins(2, 2, "1", "1", "1.0", "-1"));
  DMLRT_REQUIRE_CLOSE(t.matrix("X"), 2, 2, {1, 1, 1, 1});
  t.run(rand_ins(3, 5, "7.5", "7.5", "1.0", "3"));
  DMLRT_REQUIRE_CLOSE(t.matrix("X"), 3, 5, std::vector<double>(15, 7.5));
  t.run(rand_ins(100, 100, "0.0", "0.0", "1.0", "3"));
  REQUIRE(t.matrix("X").nnz() == 0);
  REQUIRE(t.matrix("X").is_sparse());
  t.run(rand_ins(200, 500, "-4.0", "-4.0", "0.25", "5"));
  const MatrixBlock& x = t.matrix("X");
  REQUIRE(std::fabs(static_cast<double>(x.nnz()) / 1e5 - 0.25) < 0.007);
  const Moments m = moments(x);
  REQUIRE(m.min == -4.0);
  REQUIRE(m.max == 0.0);
}

TEST_CASE("rand determinism and seeds", "[datagen]") {
  TestContext t;
  t.run(rand_ins(37, 53, "0.0", "1.0", "0.5", "42"));
  const MatrixBlock a = t.matrix("X");
  t.run(rand_ins(37, 53, "0.0", "1.0", "0.5", "42"));
  REQUIRE(t.matrix("X").equals(a));
  t.run(rand_ins(37, 53, "0.0", "1.0", "0.5", "43"));
  REQUIRE_FALSE(t.matrix("X").equals(a));
  // Large seeds use all 64 bits of the key.
  t.run(rand_ins(10, 10, "0.0", "1.0", "1.0", "4294967338"));  // 2^32 + 42
  const MatrixBlock big = t.matrix("X");
  t.run(rand_ins(10, 10, "0.0", "1.0", "1.0", "42"));
  REQUIRE_FALSE(t.matrix("X").equals(big));

  SECTION("seed -1 draws a fresh seed every time") {
    t.run(rand_ins(20, 20, "0.0", "1.0", "1.0", "-1"));
    const MatrixBlock f1 = t.matrix("X");
    t.run(rand_ins(20, 20, "0.0", "1.0", "1.0", "-1"));
    REQUIRE_FALSE(t.matrix("X").equals(f1));
  }
  SECTION("seed -1 with a -seed base seed still differs between draws") {
    dmlrt::test::FakeServices services;
    dmlrt::inst::RunOptions opts;
    opts.seed = 1234;
    dmlrt::inst::ExecutionContext ec(services, opts);
    auto run = [&] {
      dmlrt::inst::make_instruction(
          dmlrt::inst::InstructionText::parse(rand_ins(20, 20, "0.0", "1.0", "1.0", "-1")))
          ->execute(ec);
      return *ec.matrix("X");
    };
    const MatrixBlock f1 = run();
    const MatrixBlock f2 = run();
    REQUIRE_FALSE(f1.equals(f2));
    REQUIRE(moments(f1).min >= 0.0);
  }
}

TEST_CASE("rand normal: mean 0, variance 1", "[datagen]") {
  TestContext t;
  t.run(rand_ins(500, 200, "0.0", "1.0", "1.0", "21", "normal"));
  const Moments m = moments(t.matrix("X"));
  REQUIRE(std::fabs(m.mean) < 5 / std::sqrt(1e5));
  REQUIRE(std::fabs(m.var - 1.0) < 5 * std::sqrt(2.0 / 1e5));
  REQUIRE(m.min < -3.5);
  REQUIRE(m.max > 3.5);
  // Fraction within one standard deviation: 0.6827.
  int64_t within = 0;
  const MatrixBlock& x = t.matrix("X");
  for (double v : x.dense_values()) within += std::fabs(v) < 1.0;
  REQUIRE(std::fabs(static_cast<double>(within) / 1e5 - 0.6827) < 0.008);
}

TEST_CASE("rand poisson: integer values with mean and variance lambda", "[datagen]") {
  const double lambda = GENERATE(0.5, 3.0, 25.0, 400.0);
  TestContext t;
  t.run(rand_ins(500, 200, "0.0", "1.0", "1.0", "31", "poisson", std::to_string(lambda)));
  const MatrixBlock& x = t.matrix("X");
  const Moments m = moments(x);
  INFO("lambda " << lambda << " mean " << m.mean << " var " << m.var);
  REQUIRE(std::fabs(m.mean - lambda) < 5 * std::sqrt(lambda / 1e5));
  REQUIRE(std::fabs(m.var - lambda) < 0.03 * lambda + 0.01);
  REQUIRE(m.min >= 0.0);
  for (int64_t i = 0; i < 100; ++i) REQUIRE(x.get(i, i) == std::floor(x.get(i, i)));
  if (lambda == 0.5) {
    // P(0) = exp(-0.5) = 0.6065: poisson zeros are structural zeros of the output.
    REQUIRE(std::fabs(static_cast<double>(x.nnz()) / 1e5 - (1 - std::exp(-0.5))) < 0.008);
  }
}

TEST_CASE("rand dimensions from variables and empty shapes", "[datagen]") {
  TestContext t;
  t.set_scalar("r", ScalarValue::fp64(3.0));
  t.run(
      "CP°rand°r·SCALAR·FP64·false°4·SCALAR·INT64·true°1000°0.0°1.0°1.0°7°uniform°1.0°2°"
      "X·MATRIX·FP64");
  REQUIRE(t.matrix("X").rows() == 3);
  REQUIRE(t.matrix("X").cols() == 4);
  t.run(rand_ins(0, 5, "0.0", "1.0", "1.0", "7"));
  REQUIRE(t.matrix("X").rows() == 0);
  REQUIRE(t.matrix("X").cols() == 5);
  t.run(rand_ins(1, 1, "2.0", "3.0", "1.0", "7"));
  REQUIRE(t.matrix("X").get(0, 0) >= 2.0);
  // Without the optional thread count.
  t.run(
      "CP°rand°2·SCALAR·INT64·true°2·SCALAR·INT64·true°1000°0.0°1.0°1.0°7°uniform°1.0°"
      "X·MATRIX·FP64");
  REQUIRE(t.matrix("X").size() == 4);
}

TEST_CASE("rand errors", "[datagen]") {
  TestContext t;
  // SystemDS: "Invalid matrix characteristics: 2x2, 2.0".
  REQUIRE_THROWS_WITH(t.run(rand_ins(2, 2, "0.0", "1.0", "2.0", "3")),
                      "rand: invalid matrix characteristics: 2x2, sparsity 2.0");
  REQUIRE_THROWS_WITH(t.run(rand_ins(-1, 2, "0.0", "1.0", "1.0", "3")),
                      "rand: invalid matrix characteristics: -1x2, sparsity 1.0");
  REQUIRE_THROWS_WITH(t.run(rand_ins(2, 2, "0.0", "1.0", "1.0", "3", "gamma")),
                      Catch::Contains("rand: unsupported distribution 'gamma' (expected uniform, "
                                      "normal or poisson)"));
  REQUIRE_THROWS_WITH(t.run(rand_ins(2, 2, "0.0", "1.0", "1.0", "3", "poisson", "0.0")),
                      "rand: poisson lambda must be positive, got 0.0");
  REQUIRE_THROWS_WITH(t.run(rand_ins(2, 2, "zero", "1.0", "1.0", "3")),
                      Catch::Contains("rand min must be a number, got 'zero'"));
  REQUIRE_THROWS_WITH(t.run(rand_ins(2, 2, "0.0", "1.0", "1.0", "3.5")),
                      Catch::Contains("rand seed must be an integer, got '3.5'"));
  REQUIRE_THROWS_AS(t.run("CP°rand°dims·SCALAR·STRING·true°1000°0.0°1.0°1.0°7°uniform°1.0°2°"
                          "X·MATRIX·FP64"),
                    dmlrt::NotSupported);
  REQUIRE_THROWS_AS(t.run("CP°rand°2·SCALAR·INT64·true°X·MATRIX·FP64"), dmlrt::ParseError);
}

namespace {
std::string seq_ins(const std::string& from, const std::string& to, const std::string& incr) {
  return "CP°seq°-1°1°1000°" + from + "·SCALAR·FP64·true°" + to + "·SCALAR·FP64·true°" + incr +
         "·SCALAR·FP64·true°S·MATRIX·FP64";
}
}  // namespace

TEST_CASE("seq lengths and values follow SystemDS", "[datagen]") {
  TestContext t;
  SECTION("seq(1, 2, 0.1): 11 elements accumulated by addition (SystemDS output)") {
    t.run(seq_ins("1", "2", "0.1"));
    DMLRT_REQUIRE_CLOSE(t.matrix("S"), 11, 1,
                        {1.0, 1.1, 1.2000000000000002, 1.3000000000000003, 1.4000000000000004,
                         1.5000000000000004, 1.6000000000000005, 1.7000000000000006,
                         1.8000000000000007, 1.9000000000000008, 2.000000000000001},
                        0.0, 0.0);
  }
  SECTION("seq(2, 1, -0.1): 11 elements") {
    t.run(seq_ins("2", "1", "-0.1"));
    const MatrixBlock& s = t.matrix("S");
    REQUIRE(s.rows() == 11);
    REQUIRE(s.get(2, 0) == 1.7999999999999998);
    REQUIRE(s.get(10, 0) == 0.9999999999999992);
  }
  SECTION("seq(0, 0.3, 0.1): 3 elements") {
    t.run(seq_ins("0", "0.3", "0.1"));
    DMLRT_REQUIRE_CLOSE(t.matrix("S"), 3, 1, {0.0, 0.1, 0.2}, 0.0, 0.0);
  }
  SECTION("seq(0, 4.3, 0.1): the rounding correction adds the 44th element (SystemDS: 44)") {
    t.run(seq_ins("0", "4.3", "0.1"));
    REQUIRE(t.matrix("S").rows() == 44);
    REQUIRE(t.matrix("S").get(43, 0) == 4.300000000000001);
  }
  SECTION("integer sequences, single elements and the default increment") {
    t.run(
        "CP°seq°5°1°1000°1·SCALAR·INT64·true°3·SCALAR·INT64·true°0.5·SCALAR·FP64·true°"
        "S·MATRIX·FP64");
    DMLRT_REQUIRE_CLOSE(t.matrix("S"), 5, 1, {1, 1.5, 2, 2.5, 3});
    t.run(seq_ins("3", "1", "-1"));
    DMLRT_REQUIRE_CLOSE(t.matrix("S"), 3, 1, {3, 2, 1});
    // SystemDS turns incr 1 into -1 when from > to (LibMatrixDatagen.updateSeqIncr).
    t.run(seq_ins("3", "1", "1"));
    DMLRT_REQUIRE_CLOSE(t.matrix("S"), 3, 1, {3, 2, 1});
    t.run(seq_ins("7", "7", "1"));
    DMLRT_REQUIRE_CLOSE(t.matrix("S"), 1, 1, {7});
    t.run(seq_ins("1", "10", "20"));
    DMLRT_REQUIRE_CLOSE(t.matrix("S"), 1, 1, {1});
    // Zeros in the sequence: the format still follows the nonzero count.
    t.run(seq_ins("0", "0", "1"));
    REQUIRE(t.matrix("S").nnz() == 0);
    REQUIRE(t.matrix("S").rows() == 1);
  }
}

TEST_CASE("seq errors carry SystemDS's messages", "[datagen]") {
  TestContext t;
  // SystemDS: "Wrong sequence increment: from=1.0, to=0.8999999999999999, incr=0.1".
  REQUIRE_THROWS_WITH(t.run(seq_ins("1", "0.8999999999999999", "0.1")),
                      "seq: wrong sequence increment: from=1.0, to=0.8999999999999999, incr=0.1");
  REQUIRE_THROWS_WITH(t.run(seq_ins("3", "1", "2")),
                      "seq: wrong sequence increment: from=3.0, to=1.0, incr=2.0");
  // SystemDS: "Wrong sequence increment: from=1.0, to=1.0, incr=0.0".
  REQUIRE_THROWS_WITH(t.run(seq_ins("1", "1", "0")),
                      "seq: wrong sequence increment: from=1.0, to=1.0, incr=0.0");
  // SystemDS: "Invalid seq parameters: (1.0, 2.0, -1.0)" and "(1.0, 2.0, NaN)".
  REQUIRE_THROWS_WITH(t.run(seq_ins("1", "2", "-1")),
                      "seq: invalid seq parameters: (1.0, 2.0, -1.0)");
  REQUIRE_THROWS_WITH(t.run(seq_ins("1", "2", "NaN")),
                      "seq: invalid seq parameters: (1.0, 2.0, NaN)");
  REQUIRE_THROWS_WITH(t.run(seq_ins("1", "Infinity", "1")),
                      "seq: invalid seq parameters: (1.0, Infinity, 1.0)");
  REQUIRE_THROWS_WITH(t.run("CP°seq°-1°1°1000°1·SCALAR·INT64·true°A·MATRIX·FP64°"
                            "1·SCALAR·INT64·true°S·MATRIX·FP64"),
                      Catch::Contains("seq expects scalar from, to and incr operands"));
  REQUIRE_THROWS_AS(t.run("CP°seq°1·SCALAR·INT64·true°S·MATRIX·FP64"), dmlrt::ParseError);
}

namespace {
std::string sinit_ins(const std::string& rows, const std::string& cols, const std::string& data) {
  return "CP°sinit°" + rows + "°" + cols + "°1000°" + data + "°X·MATRIX·FP64";
}
}  // namespace

TEST_CASE("sinit: row-major values in Java's number forms", "[datagen]") {
  TestContext t;
  t.run(sinit_ins("2", "3", "1 2 3 4 5 6"));
  DMLRT_REQUIRE_CLOSE(t.matrix("X"), 2, 3, {1, 2, 3, 4, 5, 6}, 0.0, 0.0);
  // SystemDS runs: runs of spaces separate; 4.5d, 0x1p3, +6, .5, 5., 1E-3 and 0.1f are numbers.
  t.run(sinit_ins("3", "3", " 1  -2.5e3 4.5d 0x1p3 +6 .5 5. 1E-3 0.1f "));
  DMLRT_REQUIRE_CLOSE(t.matrix("X"), 3, 3, {1, -2500, 4.5, 8, 6, 0.5, 5, 0.001, 0.1}, 0.0, 0.0);
  t.run(sinit_ins("2", "2", "NaN Infinity -Infinity 1e400"));
  const MatrixBlock& s = t.matrix("X");
  REQUIRE(std::isnan(s.get(0, 0)));
  REQUIRE(s.get(0, 1) == INFINITY);
  REQUIRE(s.get(1, 0) == -INFINITY);
  REQUIRE(s.get(1, 1) == INFINITY);
  // Sizes patched from FP64 scalars arrive as "3.0"; an empty matrix takes no values.
  t.run(sinit_ins("3.0", "1.0", "7 8 9"));
  REQUIRE(t.matrix("X").rows() == 3);
  t.run(sinit_ins("0", "4", ""));
  REQUIRE(t.matrix("X").rows() == 0);
  REQUIRE(t.matrix("X").cols() == 4);
}

TEST_CASE("sinit: output format as SystemDS's examSparsity picks it", "[datagen]") {
  TestContext t;
  t.run(sinit_ins("2", "3", "1 2 3 4 5 6"));
  REQUIRE_FALSE(t.matrix("X").is_sparse());
  t.run(sinit_ins("4", "5", "0 0 0 0 0 0 0 3 0 0 0 0 0 0 0 0 0 0 0 0"));
  REQUIRE(t.matrix("X").is_sparse());
  REQUIRE(t.matrix("X").get(1, 2) == 3.0);
}

TEST_CASE("sinit errors", "[datagen]") {
  TestContext t;
  // SystemDS: "Invalid matrix string intialization: dimensions=[3x2] vs numValues=1" (a single
  // value is not repeated; commas do not separate).
  REQUIRE_THROWS_WITH(t.run(sinit_ins("3", "2", "7")),
                      "sinit: invalid matrix string initialization: dimensions=[3x2] vs "
                      "numValues=1 (matrix(\"...\") needs exactly rows*cols values)");
  REQUIRE_THROWS_WITH(t.run(sinit_ins("3", "2", "1,2,3,4,5,6")),
                      Catch::Contains("dimensions=[3x2] vs numValues=1"));
  REQUIRE_THROWS_WITH(t.run(sinit_ins("-2", "-3", "1 2 3 4 5 6")),
                      Catch::Contains("dimensions=[-2x-3] vs numValues=6"));
  REQUIRE_THROWS_WITH(t.run(sinit_ins("4294967296", "4294967296", "1")),
                      Catch::Contains("dimensions=[4294967296x4294967296] vs numValues=1"));
  // SystemDS: NumberFormatException "For input string: "Inf"" (and "nan", "x").
  REQUIRE_THROWS_WITH(t.run(sinit_ins("3", "2", "1 -2.5e3 NaN Inf -Infinity 0")),
                      "sinit: value 4 'Inf' is not a number (Java's Double.parseDouble forms, "
                      "e.g. 1, -2.5e3, NaN, Infinity)");
  for (const char* bad : {"nan", "x", "1e", "0x1", "1.2.3", ".", "+", "1ee2", "1fd"})
    REQUIRE_THROWS_WITH(t.run(sinit_ins("1", "2", std::string("5 ") + bad)),
                        Catch::Contains(std::string("value 2 '") + bad + "' is not a number"));
  // The count is checked before the values, as SystemDS does.
  REQUIRE_THROWS_WITH(t.run(sinit_ins("2", "2", "x")), Catch::Contains("numValues=1"));
  REQUIRE_THROWS_WITH(t.run(sinit_ins("two", "2", "1 2 3 4")),
                      Catch::Contains("sinit rows must be a number, got 'two'"));
  REQUIRE_THROWS_WITH(t.run("CP°sinit°2°2°1000°1 2 3 4°x·SCALAR·FP64"),
                      Catch::Contains("sinit expects a matrix output, got x·SCALAR·FP64"));
  REQUIRE_THROWS_AS(t.run("CP°sinit°2°2°1 2 3 4°X·MATRIX·FP64"), dmlrt::ParseError);
}
