// The CPU thread pool (kernels/cpu/parallel.h): ranges covered exactly once, exceptions carried to
// the caller, nested and concurrent calls; and thread-count independence: every parallel kernel
// gives bit-identical results with 1, 2, 3 and 8 threads on random inputs larger than the grain
// (Note [Deterministic parallel reductions]).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/compare.h"
#include "common/test_files.h"
#include "common/test_paths.h"
#include "gpu_context/error.h"
#include "kernels/cpu/aggregate.h"
#include "kernels/cpu/append.h"
#include "kernels/cpu/binary.h"
#include "kernels/cpu/indexing.h"
#include "kernels/cpu/matmult.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/random.h"
#include "kernels/cpu/reorg.h"
#include "kernels/cpu/stats.h"
#include "kernels/cpu/ternary.h"
#include "kernels/cpu/unary.h"
#include "runtime/config.h"

namespace cpu = dmlrt::kernels::cpu;
using dmlrt::kernels::MatrixBlock;
using dmlrt::test::compare_bits;
using dmlrt::test::random_block;
using dmlrt::test::seed_from;

namespace {

const int kThreadCounts[] = {1, 2, 3, 8};

// Restores the pool's thread count when a test ends.
struct ThreadCountGuard {
  int saved = cpu::num_threads();
  ~ThreadCountGuard() { cpu::set_num_threads(saved); }
};

// f() with every thread count, each result compared bit for bit with the 1-thread one.
void require_thread_independent(const std::function<MatrixBlock()>& f) {
  ThreadCountGuard guard;
  cpu::set_num_threads(1);
  const MatrixBlock ref = f();
  for (int t : kThreadCounts) {
    cpu::set_num_threads(t);
    const MatrixBlock got = f();
    const auto cmp = compare_bits(got, ref);
    INFO("threads " << t << ": " << cmp.report);
    REQUIRE(cmp.ok);
    REQUIRE(got.is_sparse() == ref.is_sparse());
  }
}

// The same for a scalar result; NaN must stay NaN.
void require_thread_independent_scalar(const std::function<double()>& f) {
  require_thread_independent([&] { return MatrixBlock::dense(1, 1, f()); });
}

// Cells of a random block with some NaN, Inf and negative zero among them.
MatrixBlock with_specials(MatrixBlock b) {
  std::vector<double>& v = b.dense_values();
  v[7] = std::numeric_limits<double>::quiet_NaN();
  v[v.size() / 2] = -0.0;
  v[v.size() - 3] = std::numeric_limits<double>::infinity();
  return b;
}

}  // namespace

TEST_CASE("parallel_for covers a range exactly once for any thread count", "[parallel]") {
  ThreadCountGuard guard;
  for (int t : kThreadCounts) {
    cpu::set_num_threads(t);
    REQUIRE(cpu::num_threads() == t);
    for (int64_t n : {0, 1, 100, 131072, 300007}) {
      for (int64_t grain : {1, 1000, 65536}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n) + 10);
        std::atomic<int> calls{0};
        cpu::parallel_for(10, 10 + n, grain, [&](int64_t lo, int64_t hi) {
          REQUIRE(lo < hi);
          ++calls;
          for (int64_t i = lo; i < hi; ++i) ++hits[static_cast<size_t>(i)];
        });
        INFO("threads " << t << " n " << n << " grain " << grain);
        for (int64_t i = 0; i < 10; ++i) REQUIRE(hits[static_cast<size_t>(i)] == 0);
        for (int64_t i = 10; i < 10 + n; ++i) REQUIRE(hits[static_cast<size_t>(i)] == 1);
        if (n > 0 && n < 2 * grain) REQUIRE(calls == 1);  // below the grain: inline, one call
      }
    }
  }
}

TEST_CASE("parallel_chunks makes the same chunks for any thread count", "[parallel]") {
  ThreadCountGuard guard;
  for (int t : kThreadCounts) {
    cpu::set_num_threads(t);
    const int64_t begin = 3, end = 3 + 1000003, size = 4096;
    std::vector<std::atomic<int>> seen(static_cast<size_t>(cpu::chunk_count(begin, end, size)));
    const int64_t chunks =
        cpu::parallel_chunks(begin, end, size, [&](int64_t c, int64_t lo, int64_t hi) {
          REQUIRE(lo == begin + c * size);
          REQUIRE(hi == std::min(end, lo + size));
          ++seen[static_cast<size_t>(c)];
        });
    REQUIRE(chunks == 245);
    REQUIRE(chunks == static_cast<int64_t>(seen.size()));
    for (const auto& s : seen) REQUIRE(s == 1);
    REQUIRE(cpu::parallel_chunks(5, 5, size, [](int64_t, int64_t, int64_t) { FAIL(); }) == 0);
  }
}

TEST_CASE("parallel_for passes a worker's exception to the caller", "[parallel]") {
  ThreadCountGuard guard;
  for (int t : kThreadCounts) {
    cpu::set_num_threads(t);
    INFO("threads " << t);
    REQUIRE_THROWS_WITH(cpu::parallel_for(0, 1 << 20, 1024,
                                          [](int64_t lo, int64_t hi) {
                                            if (lo <= 777777 && 777777 < hi)
                                              throw std::runtime_error("cell 777777 is bad");
                                          }),
                        "cell 777777 is bad");
    REQUIRE_THROWS_WITH(cpu::parallel_chunks(0, 1 << 20, 1024,
                                             [](int64_t c, int64_t, int64_t) {
                                               if (c == 3) throw std::runtime_error("chunk 3");
                                             }),
                        "chunk 3");
    // The pool still works afterwards.
    std::atomic<int64_t> sum{0};
    cpu::parallel_for(0, 1 << 20, 1024, [&](int64_t lo, int64_t hi) { sum += hi - lo; });
    REQUIRE(sum == (1 << 20));
  }
}

TEST_CASE("nested parallel calls run inline and cover their range", "[parallel]") {
  ThreadCountGuard guard;
  cpu::set_num_threads(4);
  std::vector<std::atomic<int>> hits(64 * 4096);
  std::atomic<int> inner_calls{0};
  cpu::parallel_for(0, 64, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int calls = 0;
      cpu::parallel_for(r * 4096, (r + 1) * 4096, 1, [&](int64_t a, int64_t b) {
        ++calls;
        for (int64_t i = a; i < b; ++i) ++hits[static_cast<size_t>(i)];
      });
      REQUIRE(calls == 1);  // the whole inner range in one inline call
      ++inner_calls;
    }
  });
  REQUIRE(inner_calls == 64);
  for (const auto& h : hits) REQUIRE(h == 1);
}

TEST_CASE("parallel calls from several threads at once all complete", "[parallel]") {
  ThreadCountGuard guard;
  cpu::set_num_threads(3);
  const MatrixBlock x = random_block(513, 517, 1.0, seed_from("concurrent callers"));
  const double ref = cpu::aggregate_all(x, cpu::AggOp::kSum);
  std::vector<double> got(4, 0.0);
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i)
    callers.emplace_back([&, i] {
      for (int k = 0; k < 20; ++k)
        got[static_cast<size_t>(i)] = cpu::aggregate_all(x, cpu::AggOp::kSum);
    });
  for (auto& c : callers) c.join();
  for (double g : got) REQUIRE(g == ref);
}

TEST_CASE("set_num_threads: n <= 0 means every core", "[parallel]") {
  ThreadCountGuard guard;
  cpu::set_num_threads(-1);
  REQUIRE(cpu::num_threads() == cpu::default_num_threads());
  REQUIRE(cpu::default_num_threads() >= 1);
}

TEST_CASE("transpose is independent of the thread count", "[parallel][reorg]") {
  const uint64_t seed = seed_from("transpose threads");
  const MatrixBlock tall = random_block(1237, 301, 1.0, seed);
  const MatrixBlock wide = random_block(211, 1531, 1.0, seed + 1);
  require_thread_independent([&] { return cpu::transpose(tall); });
  require_thread_independent([&] { return cpu::transpose(wide); });
  // And still a transpose.
  const MatrixBlock t = cpu::transpose(tall);
  REQUIRE(t.rows() == 301);
  REQUIRE(t.get(300, 1236) == tall.get(1236, 300));
  REQUIRE(t.get(17, 999) == tall.get(999, 17));
  REQUIRE(compare_bits(cpu::transpose(t), tall).ok);
  // CSR inputs: bands of rows counted per column, entries kept in row order.
  const MatrixBlock sp = random_block(20011, 97, 0.05, seed + 2, -1.0, 1.0, true);
  const MatrixBlock sp_wide = random_block(57, 40009, 0.02, seed + 3, -1.0, 1.0, true);
  REQUIRE(sp.is_sparse());
  require_thread_independent([&] { return cpu::transpose(sp); });
  require_thread_independent([&] { return cpu::transpose(sp_wide); });
  const MatrixBlock st = cpu::transpose(sp);
  for (int64_t i = 0; i < 20011; i += 997)
    for (int64_t j = 0; j < 97; j += 7) REQUIRE(st.get(j, i) == sp.get(i, j));
  REQUIRE(compare_bits(cpu::transpose(st), sp).ok);
}

TEST_CASE("sparse-safe unary and matrix-scalar ops on CSR are independent of the thread count",
          "[parallel][unary]") {
  const uint64_t seed = seed_from("sparse unary threads");
  const MatrixBlock sp = random_block(30011, 53, 0.05, seed, -2.0, 2.0, true);
  REQUIRE(sp.is_sparse());
  require_thread_independent([&] { return cpu::unary(sp, cpu::UnaryOp::kRound); });  // drops
  require_thread_independent([&] { return cpu::unary(sp, cpu::UnaryOp::kAbs); });
  // Matrix-scalar ops that keep zeros (x * 2, x %/% 3 drops cells) take the same path.
  using cpu::BinaryOp;
  require_thread_independent(
      [&] { return cpu::binary_matrix_scalar(BinaryOp::kMult, sp, 2.5, false); });
  require_thread_independent(
      [&] { return cpu::binary_matrix_scalar(BinaryOp::kIntDiv, sp, 3.0, false); });
  const auto ms =
      compare_bits(cpu::binary_matrix_scalar(BinaryOp::kMult, sp, 2.5, true),
                   cpu::binary_matrix_scalar(BinaryOp::kMult, sp.to_dense(), 2.5, true));
  INFO(ms.report);
  REQUIRE(ms.ok);
  // The same cells as the dense path computes.
  const auto cmp = compare_bits(cpu::unary(sp, cpu::UnaryOp::kRound),
                                cpu::unary(sp.to_dense(), cpu::UnaryOp::kRound));
  INFO(cmp.report);
  REQUIRE(cmp.ok);
}

TEST_CASE("cell-wise binary, unary and ternary ops are independent of the thread count",
          "[parallel][binary][unary][ternary]") {
  const uint64_t seed = seed_from("cellwise threads");
  const MatrixBlock a = with_specials(random_block(503, 401, 1.0, seed));
  const MatrixBlock b = random_block(503, 401, 1.0, seed + 1);
  const MatrixBlock col = random_block(503, 1, 1.0, seed + 2);
  const MatrixBlock row = random_block(1, 401, 1.0, seed + 3);
  const MatrixBlock sp = random_block(503, 401, 0.05, seed + 4, -1.0, 1.0, true);
  for (auto op : {cpu::BinaryOp::kPlus, cpu::BinaryOp::kDiv, cpu::BinaryOp::kPow,
                  cpu::BinaryOp::kMax, cpu::BinaryOp::kMod}) {
    require_thread_independent([&] { return cpu::binary_matrix_matrix(op, a, b); });
    require_thread_independent([&] { return cpu::binary_matrix_matrix(op, a, col); });
    require_thread_independent([&] { return cpu::binary_matrix_matrix(op, a, row); });
    require_thread_independent([&] { return cpu::binary_matrix_matrix(op, col, row); });
    require_thread_independent([&] { return cpu::binary_matrix_scalar(op, a, 0.75, false); });
    require_thread_independent([&] { return cpu::binary_matrix_scalar(op, a, 0.75, true); });
  }
  // A sparse input whose zeros map to a nonzero (sparse in, dense out).
  require_thread_independent(
      [&] { return cpu::binary_matrix_scalar(cpu::BinaryOp::kPlus, sp, 2.0, false); });
  for (auto op :
       {cpu::UnaryOp::kExp, cpu::UnaryOp::kSigmoid, cpu::UnaryOp::kRound, cpu::UnaryOp::kCos}) {
    require_thread_independent([&] { return cpu::unary(a, op); });
    require_thread_independent([&] { return cpu::unary(sp, op); });
  }
  const cpu::TernaryArg ta{&a}, tb{&b}, tsp{&sp}, ts{nullptr, 0.5};
  require_thread_independent(
      [&] { return cpu::ternary(cpu::TernaryOp::kIfElse, tsp, ta, tb, 503, 401); });
  require_thread_independent(
      [&] { return cpu::ternary(cpu::TernaryOp::kPlusMult, ta, ts, tb, 503, 401); });
  require_thread_independent(
      [&] { return cpu::ternary(cpu::TernaryOp::kMinusMult, ta, tb, tsp, 503, 401); });
}

TEST_CASE("aggregates are independent of the thread count", "[parallel][aggregate]") {
  const uint64_t seed = seed_from("aggregate threads");
  // 137,557 cells: three chunks of a full aggregate; shifted away from zero so that the mean
  // and the variance see cancellation.
  const MatrixBlock d = random_block(301, 457, 1.0, seed, 99.0, 101.0);
  const MatrixBlock s = random_block(1201, 457, 0.3, seed + 1, -3.0, 5.0, true);
  const MatrixBlock nan = with_specials(random_block(301, 457, 1.0, seed + 2));
  for (auto op : {cpu::AggOp::kSum, cpu::AggOp::kSumSq, cpu::AggOp::kProd, cpu::AggOp::kMean,
                  cpu::AggOp::kMax, cpu::AggOp::kMin, cpu::AggOp::kVar}) {
    INFO("op " << static_cast<int>(op));
    for (const MatrixBlock* x : {&d, &s, &nan}) {
      require_thread_independent_scalar([&] { return cpu::aggregate_all(*x, op); });
      require_thread_independent([&] { return cpu::aggregate_rows(*x, op); });
      require_thread_independent([&] { return cpu::aggregate_cols(*x, op); });
    }
  }
  require_thread_independent([&] { return cpu::row_index_max(d); });
  require_thread_independent([&] { return cpu::row_index_min(s); });
}

TEST_CASE("chunked aggregates stay accurate", "[parallel][aggregate]") {
  const MatrixBlock d = random_block(301, 457, 1.0, seed_from("chunked accuracy"), 99.0, 101.0);
  long double sum = 0, sum_sq = 0;
  for (double x : d.dense_values()) {
    sum += x;
    sum_sq += static_cast<long double>(x) * x;
  }
  const long double n = static_cast<long double>(d.size());
  const long double mean = sum / n;
  long double m2 = 0;
  for (double x : d.dense_values()) m2 += (x - mean) * (x - mean);
  auto close = [](double got, long double ref) {
    return std::fabs(got - static_cast<double>(ref)) <= 1e-14 * std::fabs(static_cast<double>(ref));
  };
  for (int t : kThreadCounts) {
    ThreadCountGuard guard;
    cpu::set_num_threads(t);
    REQUIRE(close(cpu::aggregate_all(d, cpu::AggOp::kSum), sum));
    REQUIRE(close(cpu::aggregate_all(d, cpu::AggOp::kSumSq), sum_sq));
    REQUIRE(close(cpu::aggregate_all(d, cpu::AggOp::kMean), mean));
    REQUIRE(
        std::fabs(cpu::aggregate_all(d, cpu::AggOp::kVar) - static_cast<double>(m2 / (n - 1))) <=
        1e-10 * static_cast<double>(m2 / (n - 1)));
  }
}

TEST_CASE("tak+*, tack+*, mmchain and nnz are independent of the thread count",
          "[parallel][stats][matmult]") {
  const uint64_t seed = seed_from("tak mmchain threads");
  const MatrixBlock a = random_block(611, 233, 1.0, seed);
  const MatrixBlock b = random_block(611, 233, 1.0, seed + 1);
  const MatrixBlock s = random_block(611, 233, 0.2, seed + 2, -1.0, 1.0, true);
  const cpu::TernaryAggArg xa{&a}, xb{&b}, xs{&s}, sc{nullptr, 1.5};
  require_thread_independent_scalar([&] { return cpu::sum_product3(xa, xb, sc); });
  require_thread_independent_scalar([&] { return cpu::sum_product3(xa, xs, xb); });
  require_thread_independent([&] { return cpu::col_sum_product3(xa, xb, sc); });
  const MatrixBlock v = random_block(233, 1, 1.0, seed + 3);
  const MatrixBlock w = random_block(611, 1, 1.0, seed + 4);
  const MatrixBlock xs_big = random_block(4001, 233, 0.1, seed + 5, -1.0, 1.0, true);
  const MatrixBlock w_big = random_block(4001, 1, 1.0, seed + 6);
  require_thread_independent([&] { return cpu::mmchain(a, v, &w, cpu::ChainType::kXtwXv); });
  require_thread_independent(
      [&] { return cpu::mmchain(xs_big, v, &w_big, cpu::ChainType::kXtXvy); });
  require_thread_independent([&] { return cpu::matmult(xs_big, a, false, true); });
  require_thread_independent_scalar([&] { return static_cast<double>(a.nnz() + s.nnz()); });
}

TEST_CASE("ba+* of vectors is independent of the thread count", "[parallel][matmult]") {
  // Note [Matrix-vector products on the CPU]: dot, M v, t(M) v, t(u) M and t(u) t(M), each over
  // more than one chunk or band of rows.
  const uint64_t seed = seed_from("matrix-vector threads");
  const MatrixBlock x = random_block(3001, 257, 1.0, seed);
  const MatrixBlock v = random_block(257, 1, 1.0, seed + 1);
  const MatrixBlock u = random_block(3001, 1, 1.0, seed + 2);
  const MatrixBlock p = random_block(200001, 1, 1.0, seed + 3);
  const MatrixBlock q = random_block(200001, 1, 1.0, seed + 4);
  require_thread_independent([&] { return cpu::matmult(p, q, true, false); });  // t(p) %*% q
  require_thread_independent([&] { return cpu::matmult(x, v, false, false); });
  require_thread_independent([&] { return cpu::matmult(x, u, true, false); });
  require_thread_independent([&] { return cpu::matmult(u, x, true, false); });
  require_thread_independent([&] { return cpu::matmult(v, x, true, true); });
  // The values themselves: against a long-double reference of t(x) %*% u.
  const MatrixBlock got = cpu::matmult(x, u, true, false);
  for (int64_t j = 0; j < 257; j += 64) {
    long double ref = 0;
    for (int64_t i = 0; i < 3001; ++i)
      ref += static_cast<long double>(x.get(i, j)) * static_cast<long double>(u.get(i, 0));
    CHECK(got.get(j, 0) == Approx(static_cast<double>(ref)).epsilon(1e-12).margin(1e-12));
  }
}

TEST_CASE("indexing and append are independent of the thread count", "[parallel][indexing]") {
  const uint64_t seed = seed_from("indexing append threads");
  const MatrixBlock a = random_block(2001, 131, 1.0, seed);
  const MatrixBlock b = random_block(2001, 77, 1.0, seed + 1);
  const MatrixBlock s = random_block(2001, 131, 0.3, seed + 2, -1.0, 1.0, true);  // CSR
  const MatrixBlock r = random_block(1500, 60, 1.0, seed + 3);
  require_thread_independent([&] { return cpu::slice(a, 3, 1990, 5, 120); });
  require_thread_independent([&] { return cpu::assign_range(a, r, 100, 40); });
  require_thread_independent([&] { return cpu::cbind({&a, &b, &s}); });
  require_thread_independent([&] { return cpu::rbind({&a, &s, &a}); });
  // The values: a cbind row holds the inputs' rows side by side.
  const MatrixBlock c = cpu::cbind({&a, &b});
  CHECK(c.get(1000, 130) == a.get(1000, 130));
  CHECK(c.get(1000, 131) == b.get(1000, 0));
}

TEST_CASE("rand draws the same matrix for any thread count", "[parallel][datagen]") {
  for (double sparsity : {1.0, 0.7, 0.01}) {
    INFO("sparsity " << sparsity);
    cpu::RandSpec spec;
    spec.rows = 997;
    spec.cols = 301;
    spec.sparsity = sparsity;
    spec.seed = 42;
    spec.min = -2.0;
    spec.max = 3.0;
    require_thread_independent([&] { return cpu::rand_matrix(spec); });
    spec.pdf = cpu::RandPdf::kNormal;
    require_thread_independent([&] { return cpu::rand_matrix(spec); });
  }
  // Cell (r, c) draws from stream r*cols + c, so the bands of rows drawn in parallel give the
  // first rows of a taller matrix with the same seed and columns.
  cpu::RandSpec small, big;
  small.rows = 300;
  big.rows = 900;
  small.cols = big.cols = 301;
  small.sparsity = big.sparsity = 0.02;
  small.seed = big.seed = 7;
  const MatrixBlock bs = cpu::rand_matrix(small), bb = cpu::rand_matrix(big);
  for (int64_t r = 0; r < 300; r += 13)
    for (int64_t c = 0; c < 301; ++c) REQUIRE(bs.get(r, c) == bb.get(r, c));
}

TEST_CASE("sysds.num.threads: a count, -1 for every core, anything else an error",
          "[parallel][config]") {
  auto parse = [](const std::string& value) {
    dmlrt::runtime::RuntimeConfig c;
    dmlrt::runtime::parse_config(
        "<root><sysds.num.threads>" + value + "</sysds.num.threads></root>", "c.xml", c);
    return c.num_threads;
  };
  REQUIRE(dmlrt::runtime::RuntimeConfig{}.num_threads == -1);
  REQUIRE(parse("4") == 4);
  REQUIRE(parse("-1") == -1);
  REQUIRE(parse("0") == -1);  // SystemDS: a count <= 0 means every core
  for (const char* bad : {"many", "2.5", "", "4096"})
    REQUIRE_THROWS_WITH(parse(bad),
                        Catch::Contains("c.xml:1: sysds.num.threads: expected a thread "
                                        "count (1 to 1024, or -1 for every core), got '" +
                                        std::string(bad) + "'"));
}

TEST_CASE("dmlrt -threads: the same digits for any count; bad counts are usage errors",
          "[parallel][cli]") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("dmlrt_threads_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // rand 1000x457, its transpose's sum and its variance: a chunked reduction and a tiled transpose.
  dmlrt::test::write_file(
      dir / "t.plan",
      "PROGRAM\n--MAIN PROGRAM\n----GENERIC (lines 1-3) [recompile=false]\n"
      "------CP°createvar°_mVar0°scratch_space/temp0°true°MATRIX°binary°1000°457°1000°457000°copy\n"
      "------CP°rand°1000·SCALAR·INT64·true°457·SCALAR·INT64·true°1000°-1.0°3.0°1.0°7°uniform°1."
      "0°2°"
      "_mVar0·MATRIX·FP64\n"
      "------CP°createvar°_mVar1°scratch_space/temp1°true°MATRIX°binary°457°1000°1000°457000°copy\n"
      "------CP°r'°_mVar0·MATRIX·FP64°_mVar1·MATRIX·FP64°2\n"
      "------CP°uak+°_mVar1·MATRIX·FP64°_Var1·SCALAR·FP64°2\n"
      "------CP°uavar°_mVar0·MATRIX·FP64°_Var2·SCALAR·FP64°2\n"
      "------CP°print°_Var1·SCALAR·FP64·false°_Var3·SCALAR·STRING°2\n"
      "------CP°print°_Var2·SCALAR·FP64·false°_Var4·SCALAR·STRING°2\n");
  auto run = [&](const std::string& args) {
    const std::string cmd = "cd '" + dir.string() + "' && '" + dmlrt::test::dmlrt_binary() + "' " +
                            args + " > out 2> err";
    const int status = std::system(cmd.c_str());
    return std::make_tuple(WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                           dmlrt::test::read_all(dir / "out"), dmlrt::test::read_all(dir / "err"));
  };
  const auto [code1, out1, err1] = run("-threads 1 -f t.plan");
  INFO(err1);
  REQUIRE(code1 == 0);
  REQUIRE(std::count(out1.begin(), out1.end(), '\n') == 2);  // sum and variance
  for (const char* t : {"2", "3", "8"}) {
    const auto [code, out, err] = run(std::string("-threads ") + t + " -f t.plan");
    REQUIRE(code == 0);
    REQUIRE(out == out1);
  }
  for (const char* bad : {"0", "x", "-2", "2000"}) {
    const auto [code, out, err] = run(std::string("-threads ") + bad + " -f t.plan");
    INFO("-threads " << bad << ": " << err);
    REQUIRE(code == 2);
    REQUIRE_THAT(err, Catch::Contains("option '-threads'"));
  }
  fs::remove_all(dir);
}
