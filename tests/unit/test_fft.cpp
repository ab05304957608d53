// Tests of fft, ifft, fft_linearized, ifft_linearized, stft (FFTW) and rcm: hand-computed DFTs,
// a naive DFT on random inputs (dense and sparse), SystemDS's all-zero shortcut, rowClassMeet's
// HashMap order, and every error message.
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <vector>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::random_block;
using dmlrt::test::seed_from;
using dmlrt::test::sparse_of;
using dmlrt::test::TestContext;

namespace {

// The naive DFT of each row (sign -1) or its inverse (sign +1, scaled by 1/n).
std::vector<std::complex<double>> dft_rows(const std::vector<std::complex<double>>& x, int64_t m,
                                           int64_t n, int sign) {
  std::vector<std::complex<double>> y(x.size());
  const double pi = std::acos(-1.0);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t k = 0; k < n; ++k) {
      std::complex<double> s = 0;
      for (int64_t j = 0; j < n; ++j)
        s += x[r * n + j] * std::polar(1.0, sign * 2 * pi * static_cast<double>(j * k % n) /
                                                static_cast<double>(n));
      y[r * n + k] = sign > 0 ? s / static_cast<double>(n) : s;
    }
  return y;
}

std::vector<std::complex<double>> transpose(const std::vector<std::complex<double>>& x, int64_t m,
                                            int64_t n) {
  std::vector<std::complex<double>> t(x.size());
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) t[c * m + r] = x[r * n + c];
  return t;
}

std::vector<std::complex<double>> complex_of(const MatrixBlock& re, const MatrixBlock* im) {
  std::vector<std::complex<double>> x(static_cast<size_t>(re.size()));
  for (int64_t r = 0; r < re.rows(); ++r)
    for (int64_t c = 0; c < re.cols(); ++c)
      x[r * re.cols() + c] = {re.get(r, c), im ? im->get(r, c) : 0.0};
  return x;
}

void require_complex(TestContext& t, const std::vector<std::complex<double>>& want, int64_t m,
                     int64_t n) {
  const MatrixBlock& re = t.matrix("R");
  const MatrixBlock& im = t.matrix("I");
  REQUIRE(re.rows() == m);
  REQUIRE(re.cols() == n);
  REQUIRE(im.rows() == m);
  REQUIRE(im.cols() == n);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) {
      const std::complex<double> w = want[r * n + c];
      REQUIRE(std::abs(re.get(r, c) - w.real()) <= 1e-9 + 1e-9 * std::abs(w.real()));
      REQUIRE(std::abs(im.get(r, c) - w.imag()) <= 1e-9 + 1e-9 * std::abs(w.imag()));
    }
}

}  // namespace

TEST_CASE("fft of a small matrix matches hand-computed values", "[fft]") {
  TestContext t;
  t.set_matrix("X", dense_of(2, 4, {1, 2, 3, 4, 5, 6, 7, 8}));
  t.run("CP°fft°X·MATRIX·FP64°R°I°2");
  // SystemDS prints 36 -4 -4 -4 / -16 0 0 0 and 0 4 0 -4 / 0 0 0 0.
  DMLRT_REQUIRE_CLOSE(t.matrix("R"), 2, 4, {36, -4, -4, -4, -16, 0, 0, 0});
  DMLRT_REQUIRE_CLOSE(t.matrix("I"), 2, 4, {0, 4, 0, -4, 0, 0, 0, 0});
  t.run("CP°fft_linearized°X·MATRIX·FP64°R°I°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("R"), 2, 4, {10, -2, -2, -2, 26, -2, -2, -2});
  DMLRT_REQUIRE_CLOSE(t.matrix("I"), 2, 4, {0, 2, 0, -2, 0, 2, 0, -2});
  t.run("CP°ifft°X·MATRIX·FP64°R°I°2");  // no imaginary part: zero
  DMLRT_REQUIRE_CLOSE(t.matrix("R"), 2, 4, {4.5, -0.5, -0.5, -0.5, -2, 0, 0, 0});
  DMLRT_REQUIRE_CLOSE(t.matrix("I"), 2, 4, {0, -0.5, 0, 0.5, 0, 0, 0, 0});
}

TEST_CASE("fft, ifft and the linearized forms match a naive DFT", "[fft]") {
  const bool sparse = GENERATE(false, true);
  const bool with_im = GENERATE(false, true);
  TestContext t;
  const int64_t m = 4, n = 8;
  const MatrixBlock re = random_block(m, n, sparse ? 0.3 : 1.0, seed_from("fft re"));
  const MatrixBlock im = random_block(m, n, sparse ? 0.3 : 1.0, seed_from("fft im"));
  t.set_matrix("A", re);
  t.set_matrix("B", im);
  const std::vector<std::complex<double>> x = complex_of(re, with_im ? &im : nullptr);
  const std::string in = with_im ? "A·MATRIX·FP64°B·MATRIX·FP64" : "A·MATRIX·FP64";
  // 2-D: rows, then columns.
  auto two_d = [&](int sign) {
    return transpose(dft_rows(transpose(dft_rows(x, m, n, sign), m, n), n, m, sign), n, m);
  };
  if (!with_im) {
    t.run("CP°fft°" + in + "°R°I°2");
    require_complex(t, two_d(-1), m, n);
    t.run("CP°fft_linearized°" + in + "°R°I");
    require_complex(t, dft_rows(x, m, n, -1), m, n);
  }
  t.run("CP°ifft°" + in + "°R°I°2");
  require_complex(t, two_d(+1), m, n);
  t.run("CP°ifft_linearized°" + in + "°R°I°2");
  require_complex(t, dft_rows(x, m, n, +1), m, n);
}

TEST_CASE("stft frames each row, zero-pads the last frames and transforms them", "[fft]") {
  TestContext t;
  // window 4, overlap 2 over 5 columns: (5 - 2 + 1) / 2 = 2 frames, columns 0-3 and 2-5 (5 is
  // past the end: zero).
  t.set_matrix("X", dense_of(2, 5, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  t.run("CP°stft°X·MATRIX·FP64°4·SCALAR·INT64·true°2·SCALAR·INT64·true°R°I°2");
  const std::vector<std::complex<double>> frames = {1, 2, 3, 4, 3, 4, 5,  0,
                                                    6, 7, 8, 9, 8, 9, 10, 0};
  require_complex(t, dft_rows(frames, 4, 4, -1), 2, 8);
  // Variables for the window and overlap, and an imaginary part.
  t.set_scalar("w", dmlrt::inst::ScalarValue::int64(2));
  t.set_scalar("o", dmlrt::inst::ScalarValue::int64(0));
  t.set_matrix("Y", dense_of(2, 5, {1, 0, 0, 0, 0, 0, 0, 0, 0, -1}));
  t.run("CP°stft°X·MATRIX·FP64°Y·MATRIX·FP64°w·SCALAR·INT64°o·SCALAR·INT64°R°I°2");
  const std::vector<std::complex<double>> f2 = {{1, 1}, 2, 3, 4, 5, 0, 6, 7, 8, 9, {10, -1}, 0};
  require_complex(t, dft_rows(f2, 6, 2, -1), 2, 6);
}

TEST_CASE("fft sizes: all-zero inputs of any size are zeros, others fail clearly", "[fft]") {
  TestContext t;
  SECTION("SystemDS's all-zero shortcut (hand-written plans: its compiler rejects these sizes)") {
    const bool sparse = GENERATE(false, true);
    t.set_matrix("X", sparse ? MatrixBlock::empty_sparse(3, 5) : MatrixBlock::dense(3, 5, 0.0));
    for (const char* line :
         {"CP°fft°X·MATRIX·FP64°R°I°2", "CP°ifft°X·MATRIX·FP64°X·MATRIX·FP64°R°I",
          "CP°fft_linearized°X·MATRIX·FP64°R°I°2"}) {
      t.run(line);
      REQUIRE(t.matrix("R").rows() == 3);
      REQUIRE(t.matrix("R").cols() == 5);
      REQUIRE(t.matrix("R").nnz() == 0);
      REQUIRE(t.matrix("I").nnz() == 0);
    }
  }
  SECTION("a nonzero input of other sizes") {
    t.set_matrix("X", MatrixBlock::dense(3, 4, 1.0));
    REQUIRE_THROWS_AS(t.run("CP°fft°X·MATRIX·FP64°R°I°2"), dmlrt::RuntimeError);
    REQUIRE_THROWS_WITH(t.run("CP°fft°X·MATRIX·FP64°R°I°2"),
                        Catch::Contains("fft: SystemDS's FFT transforms only power-of-two sizes: "
                                        "both dims must be a power of two, got a nonzero 3x4 "
                                        "input"));
    t.run("CP°fft_linearized°X·MATRIX·FP64°R°I°2");  // 3 rows of 4: fine row-wise
    t.set_matrix("Z", MatrixBlock::dense(3, 4, 0.0));
    t.set_matrix("Y", MatrixBlock::dense(4, 6, 2.0));
    REQUIRE_THROWS_WITH(t.run("CP°ifft_linearized°Y·MATRIX·FP64°R°I°2"),
                        Catch::Contains("ifft_linearized: SystemDS's FFT transforms only "
                                        "power-of-two sizes: the number of columns must be a "
                                        "power of two, got a nonzero 4x6 input"));
    // An all-zero real part with a nonzero imaginary part is transformed, hence checked.
    REQUIRE_THROWS_WITH(t.run("CP°ifft°Z·MATRIX·FP64°X·MATRIX·FP64°R°I°2"),
                        Catch::Contains("ifft: SystemDS's FFT transforms only power-of-two sizes"));
  }
  SECTION("real and imaginary parts of different dims") {
    t.set_matrix("X", MatrixBlock::dense(4, 4, 1.0));
    t.set_matrix("Y", MatrixBlock::dense(4, 2, 1.0));
    REQUIRE_THROWS_AS(t.run("CP°ifft°X·MATRIX·FP64°Y·MATRIX·FP64°R°I°2"), dmlrt::ShapeError);
    REQUIRE_THROWS_WITH(t.run("CP°ifft°X·MATRIX·FP64°Y·MATRIX·FP64°R°I°2"),
                        Catch::Contains("ifft: the real part is 4x4 but the imaginary part 4x2; "
                                        "they must have the same dims"));
  }
  SECTION("stft's window and overlap") {
    t.set_matrix("X", MatrixBlock::dense(2, 5, 1.0));
    REQUIRE_THROWS_WITH(
        t.run("CP°stft°X·MATRIX·FP64°3·SCALAR·INT64·true°1·SCALAR·INT64·true°R°I°2"),
        Catch::Contains("stft: the window size must be a power of two, got 3"));
    REQUIRE_THROWS_WITH(
        t.run("CP°stft°X·MATRIX·FP64°4·SCALAR·INT64·true°4·SCALAR·INT64·true°R°I°2"),
        Catch::Contains("stft: the overlap (4) must be smaller than the window size (4)"));
    REQUIRE_THROWS_WITH(
        t.run("CP°stft°X·MATRIX·FP64°16·SCALAR·INT64·true°12·SCALAR·INT64·true°R°I°2"),
        Catch::Contains("stft: rows of 5 columns are shorter than the overlap (12)"));
  }
  SECTION("malformed lines") {
    REQUIRE_THROWS_AS(t.run("CP°fft°X·MATRIX·FP64°R"), dmlrt::ParseError);
    REQUIRE_THROWS_WITH(
        t.run("CP°stft°X·MATRIX·FP64°Y·MATRIX·FP64°W·MATRIX·FP64°2·SCALAR·INT64·true°R°I"),
        Catch::Contains("stft expects scalar window size and overlap"));
  }
}

TEST_CASE("rcm numbers classes in SystemDS's HashMap order", "[fft][rcm]") {
  TestContext t;
  // SystemDS 3.4: C = 2 4 1 3 0 5 / 1 1 1 0 2 3, N = 1 1 1 1 0 1 / 3 3 3 0 1 1.
  t.set_matrix("A", dense_of(2, 6, {1, 1, 2, 2, 0, 3, 5, 5, 5, 0, 1, 1}));
  t.set_matrix("B", dense_of(2, 6, {1, 2, 1, 2, 1, 1, 7, 7, 7, 7, 7, 8}));
  t.run("CP°rcm°A·MATRIX·FP64°B·MATRIX·FP64°C°N°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 2, 6, {2, 4, 1, 3, 0, 5, 1, 1, 1, 0, 2, 3});
  DMLRT_REQUIRE_CLOSE(t.matrix("N"), 2, 6, {1, 1, 1, 1, 0, 1, 3, 3, 3, 0, 1, 1});
  // Truncated labels (1.7 -> 1, -1.2 -> -1, 0.5 and NaN -> 0: left out) against B's one row;
  // SystemDS 3.4 gives 1 3 0 2 0 4.
  t.set_matrix("A", dense_of(1, 6, {1.7, -1.2, 0.5, 2, std::nan(""), 3}));
  t.set_matrix("B", sparse_of(1, 6, {1, 2, 1, 2, 1, 1}));
  t.run("CP°rcm°A·MATRIX·FP64°B·MATRIX·FP64°C°N");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 1, 6, {1, 3, 0, 2, 0, 4});
  DMLRT_REQUIRE_CLOSE(t.matrix("N"), 1, 6, {1, 1, 0, 1, 0, 1});
  // A with one row against a taller B: rows past A's stay 0 (as SystemDS 3.4).
  t.set_matrix("A", dense_of(1, 3, {1, 1, 2}));
  t.set_matrix("B", dense_of(3, 4, {1, 2, 1, 2, 1, 1, 7, 7, 7, 7, 7, 8}));
  t.run("CP°rcm°A·MATRIX·FP64°B·MATRIX·FP64°C°N°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("C"), 3, 4, {2, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  DMLRT_REQUIRE_CLOSE(t.matrix("N"), 3, 4, {1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}

TEST_CASE("rcm errors", "[fft][rcm]") {
  TestContext t;
  // SystemDS: ArrayIndexOutOfBoundsException -- Index 12 out of bounds for length 12.
  t.set_matrix("A", MatrixBlock::dense(3, 6, 1.0));
  t.set_matrix("B", MatrixBlock::dense(2, 6, 1.0));
  REQUIRE_THROWS_AS(t.run("CP°rcm°A·MATRIX·FP64°B·MATRIX·FP64°C°N°2"), dmlrt::ShapeError);
  REQUIRE_THROWS_WITH(t.run("CP°rcm°A·MATRIX·FP64°B·MATRIX·FP64°C°N°2"),
                      Catch::Contains("rcm: B is 2x6 and A 3x6; B must have one row or at least "
                                      "as many rows as A"));
  REQUIRE_THROWS_AS(t.run("CP°rcm°A·MATRIX·FP64°1·SCALAR·INT64·true°C°N"), dmlrt::ParseError);
}
