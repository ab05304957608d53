// Device tests of the data-generation kernel family: rand must equal the CPU's Philox cells bit
// for bit (uniform, normal, poisson; with sparsity; FP32 = the double values rounded), and seq
// must equal the CPU's repeated addition bit for bit (Note [Parallel seq]).
#include <catch2/catch.hpp>
#include <cstring>
#include <sstream>
#include <tuple>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/cpu/random.h"
#include "kernels/cuda/datagen.h"

namespace {

using dmlrt::kernels::MatrixBlock;
using dmlrt::kernels::cpu::RandPdf;
using dmlrt::kernels::cpu::RandSpec;
namespace cuda = dmlrt::kernels::cuda;
namespace cpu = dmlrt::kernels::cpu;
namespace tg = dmlrt::test::gpu;

// Bitwise comparison of the device values with the CPU's (rounded to T); reports the first
// differing cells.
template <typename T>
void require_bitwise(const std::string& what, const std::vector<double>& got,
                     const std::vector<double>& ref) {
  REQUIRE(got.size() == ref.size());
  int64_t diffs = 0;
  std::ostringstream os;
  os.precision(17);
  for (size_t i = 0; i < ref.size(); ++i) {
    const double e = static_cast<double>(static_cast<T>(ref[i]));
    const bool same = std::memcmp(&got[i], &e, sizeof(double)) == 0 || (got[i] != got[i] && e != e);
    if (!same && diffs++ < 5) os << "  [" << i << "] got " << got[i] << " expected " << e << "\n";
  }
  INFO(what << ": " << diffs << " of " << ref.size() << " cells differ\n" << os.str());
  CHECK(diffs == 0);
}

const char* pdf_name(RandPdf p) {
  return p == RandPdf::kUniform ? "uniform" : (p == RandPdf::kNormal ? "normal" : "poisson");
}

}  // namespace

TEMPLATE_TEST_CASE("datagen kernels: rand equals the CPU's Philox cells bit for bit",
                   "[gpu][kernel][datagen]", double, float) {
  using T = TestType;
  for (RandPdf pdf : {RandPdf::kUniform, RandPdf::kNormal, RandPdf::kPoisson}) {
    for (const auto& [rows, cols] : tg::kernel_shapes()) {
      for (double sparsity : {1.0, 0.3, 0.001, 0.0}) {
        for (uint64_t seed : {uint64_t{7}, uint64_t{0xDEADBEEFCAFEull}}) {
          RandSpec spec;
          spec.rows = rows;
          spec.cols = cols;
          spec.min = -2.5;
          spec.max = 4.0;
          spec.sparsity = sparsity;
          spec.seed = seed;
          spec.pdf = pdf;
          spec.lambda = seed == 7 ? 3.5 : 42.0;  // Knuth's and the PTRS poisson paths
          const MatrixBlock ref = cpu::rand_matrix(spec);
          auto dout = tg::device_out<T>(rows * cols);
          cuda::launch_rand(spec, tg::ptr<T>(dout), nullptr);
          std::ostringstream os;
          os << "rand " << pdf_name(pdf) << " sparsity=" << sparsity << " seed=" << seed;
          require_bitwise<T>(tg::label(os.str(), rows, cols, tg::precision_name<T>()),
                             tg::from_device<T>(dout, rows * cols), tg::values_of(ref));
        }
      }
    }
  }
  // Constant matrices: min == max (with and without sparsity).
  for (double sparsity : {1.0, 0.5}) {
    RandSpec spec;
    spec.rows = 33;
    spec.cols = 65;
    spec.min = spec.max = 1.25;
    spec.sparsity = sparsity;
    spec.seed = 3;
    auto dout = tg::device_out<T>(33 * 65);
    cuda::launch_rand(spec, tg::ptr<T>(dout), nullptr);
    require_bitwise<T>(tg::label("rand constant 1.25 sparsity=" + std::to_string(sparsity), 33, 65,
                                 tg::precision_name<T>()),
                       tg::from_device<T>(dout, 33 * 65), tg::values_of(cpu::rand_matrix(spec)));
  }
}

TEMPLATE_TEST_CASE("datagen kernels: seq equals the CPU's repeated addition bit for bit",
                   "[gpu][kernel][datagen]", double, float) {
  using T = TestType;
  struct Case {
    double from, to, incr;
  };
  const Case kCases[] = {
      {1, 10, 1},
      {0, 1, 0.1},
      {1, 2, 0.1},
      {-5, 5, 0.1},
      {0, 100000, 0.1},
      {0.5, 1e6, 0.7},
      {10, -10, -0.3},
      {1e-300, 1e6, 1},
      {-1e6, 1e6, 1.1},
      {3, 1e5, 1.0 / 3},
      {0.1, 1000, 0.01},
      {1e15, 1e15 + 1000, 0.25},
      {-1, 1, 1e-6},
      {1, 1, 1},
      {0.125, 100, 0.1},
      {4503599627370496.0, 4503599627370496.0 + 100, 0.5},  // ties: the sum sticks
      {4503599627370497.0, 4503599627370497.0 + 100, 0.5},
      {9007199254740992.0, 9007199254740992.0 + 50, 1},  // beyond 2^53: x + 1 == x
      {-0.3, 2e3, 1e-4},
      {5, -5, -1},
      {2, 2.001, 1e-9},
  };
  for (const Case& c : kCases) {
    const int64_t n = cpu::seq_length(c.from, c.to, c.incr);
    const MatrixBlock ref = cpu::seq_column(c.from, c.to, c.incr);
    auto dout = tg::device_out<T>(n);
    cuda::launch_seq(c.from, c.incr, n, tg::ptr<T>(dout), nullptr);
    std::ostringstream os;
    os.precision(17);
    os << "seq(" << c.from << ", " << c.to << ", " << c.incr
       << ") runs=" << cuda::seq_runs(c.from, c.incr, n).size();
    require_bitwise<T>(tg::label(os.str(), n, 1, tg::precision_name<T>()),
                       tg::from_device<T>(dout, n), tg::values_of(ref));
  }
}

TEST_CASE("datagen kernels: seq runs reproduce the CPU on the host (no device work)",
          "[gpu][kernel][datagen]") {
  // The host half of Note [Parallel seq]: evaluate the runs exactly as the kernel does.
  for (const auto& [from, incr, n] : std::vector<std::tuple<double, double, int64_t>>{
           {0.0, 0.1, 200000}, {-7.3, 0.013, 300000}, {1e10, -3.7, 100000}, {0.0, -1e-3, 50000}}) {
    const std::vector<cuda::SeqRun> runs = cuda::seq_runs(from, incr, n);
    double cur = from;
    size_t r = 0;
    int64_t diffs = 0;
    for (int64_t i = 0; i < n; ++i, cur += incr) {
      while (r + 1 < runs.size() && runs[r + 1].start <= i) ++r;
      const double v = runs[r].x0 + static_cast<double>(i - runs[r].start) * runs[r].delta;
      diffs += std::memcmp(&v, &cur, sizeof(double)) != 0;
    }
    INFO("seq from=" << from << " incr=" << incr << " n=" << n << " runs=" << runs.size());
    CHECK(diffs == 0);
  }
}
