// Matrix multiply through its instructions: ba+* on all four dense/CSR combinations (CP and GPU
// layouts, transposed-operand flags), matrix-vector, vector-vector, empty and ultra-sparse
// products; tsmm LEFT/RIGHT; mmchain XtXv/XtwXv/XtXvy; shape and parse errors. Expected values
// are hand-computed or come from a naive triple loop over MatrixBlock::get.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::inst::ScalarValue;
using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::random_block;
using dmlrt::test::seed_from;
using dmlrt::test::sparse_of;
using dmlrt::test::TestContext;

namespace {

// Naive op(a) %*% op(b) as row-major values.
std::vector<double> naive(const MatrixBlock& a, const MatrixBlock& b, bool ta = false,
                          bool tb = false) {
  const int64_t m = ta ? a.cols() : a.rows(), k = ta ? a.rows() : a.cols();
  const int64_t n = tb ? b.rows() : b.cols();
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += (ta ? a.get(p, i) : a.get(i, p)) * (tb ? b.get(j, p) : b.get(p, j));
      c[static_cast<size_t>(i * n + j)] = s;
    }
  return c;
}

MatrixBlock as(bool sparse, const MatrixBlock& m) { return sparse ? m.to_sparse() : m.to_dense(); }

MatrixBlock run_mm(const MatrixBlock& a, const MatrixBlock& b, const std::string& tail = "°2") {
  TestContext t;
  t.set_matrix("A", a);
  t.set_matrix("B", b);
  t.run("CP°ba+*°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64" + tail);
  return t.matrix("C");
}

MatrixBlock run_gpu_mm(const MatrixBlock& a, const MatrixBlock& b, bool ta, bool tb) {
  TestContext t;
  t.set_matrix("A", a);
  t.set_matrix("B", b);
  t.run(std::string("GPU°ba+*°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°-1°") +
        (ta ? "true" : "false") + "°" + (tb ? "true" : "false"));
  return t.matrix("C");
}

}  // namespace

TEST_CASE("ba+* hand-computed on all dense/sparse combinations", "[matmult]") {
  const MatrixBlock a = dense_of(2, 3, {1, 2, 3, 4, 5, 6});
  const MatrixBlock b = dense_of(3, 2, {7, 8, 9, 10, 11, 12});
  for (bool sa : {false, true})
    for (bool sb : {false, true}) {
      INFO("sparse A " << sa << " sparse B " << sb);
      DMLRT_REQUIRE_CLOSE(run_mm(as(sa, a), as(sb, b)), 2, 2, {58, 64, 139, 154});
      DMLRT_REQUIRE_CLOSE(run_mm(as(sa, a), as(sb, b), ""), 2, 2, {58, 64, 139, 154});  // no k
      // Matrix-vector, vector-matrix, vector-vector (a 1x1 matrix, not a scalar).
      DMLRT_REQUIRE_CLOSE(run_mm(as(sa, a), as(sb, dense_of(3, 1, {1, 0, -1}))), 2, 1, {-2, -2});
      DMLRT_REQUIRE_CLOSE(run_mm(as(sa, dense_of(1, 2, {1, -1})), as(sb, a)), 1, 3, {-3, -3, -3});
      const MatrixBlock dot =
          run_mm(as(sa, dense_of(1, 3, {1, 2, 3})), as(sb, dense_of(3, 1, {4, 5, 6})));
      DMLRT_REQUIRE_CLOSE(dot, 1, 1, {32});
      // Outer product of vectors.
      DMLRT_REQUIRE_CLOSE(run_mm(as(sa, dense_of(2, 1, {1, 2})), as(sb, dense_of(1, 3, {1, 0, 3}))),
                          2, 3, {1, 0, 3, 2, 0, 6});
    }
}

TEST_CASE("ba+* transposed-operand flags (GPU layout)", "[matmult]") {
  // t(A) with A = [1 2 3; 4 5 6] is [1 4; 2 5; 3 6].
  const MatrixBlock a = dense_of(2, 3, {1, 2, 3, 4, 5, 6});
  const MatrixBlock b = dense_of(2, 2, {1, 0, 1, 1});
  for (bool sa : {false, true})
    for (bool sb : {false, true}) {
      INFO("sparse A " << sa << " sparse B " << sb);
      // t(A) %*% B = [1+4 4; 2+5 5; 3+6 6]
      DMLRT_REQUIRE_CLOSE(run_gpu_mm(as(sa, a), as(sb, b), true, false), 3, 2, {5, 4, 7, 5, 9, 6});
      // B %*% A = [1 2 3; 5 7 9]; t(A) %*% t(A)^T ... use A %*% t(A) = [14 32; 32 77]
      DMLRT_REQUIRE_CLOSE(run_gpu_mm(as(sa, a), as(sb, a), false, true), 2, 2, {14, 32, 32, 77});
      // t(A) %*% t(B) = [1 4; 2 5; 3 6] %*% [1 1; 0 1] = [1 5; 2 7; 3 9]
      DMLRT_REQUIRE_CLOSE(run_gpu_mm(as(sa, a), as(sb, b), true, true), 3, 2, {1, 5, 2, 7, 3, 9});
      DMLRT_REQUIRE_CLOSE(run_gpu_mm(as(sa, b), as(sb, a), false, false), 2, 3, {1, 2, 3, 5, 7, 9});
      // Vector shapes with flags: t(x) %*% x and x %*% t(x) for x = [1;2].
      const MatrixBlock x = dense_of(2, 1, {1, 2});
      DMLRT_REQUIRE_CLOSE(run_gpu_mm(as(sa, x), as(sb, x), true, false), 1, 1, {5});
      DMLRT_REQUIRE_CLOSE(run_gpu_mm(as(sa, x), as(sb, x), false, true), 2, 2, {1, 2, 2, 4});
      // t(A) %*% x' with x' = [1;1] (2x1): gemv with a transposed matrix.
      DMLRT_REQUIRE_CLOSE(run_gpu_mm(as(sa, a), as(sb, dense_of(2, 1, {1, 1})), true, false), 3, 1,
                          {5, 7, 9});
      // [1 1] %*% t(t(A)) via a transposed right operand: (1x2) %*% t(3x2) is invalid, so use
      // y (1x3) %*% t(A) = [1 1 1] %*% [1 4; 2 5; 3 6] = [6 15].
      DMLRT_REQUIRE_CLOSE(run_gpu_mm(as(sa, dense_of(1, 3, {1, 1, 1})), as(sb, a), false, true), 1,
                          2, {6, 15});
    }
}

TEST_CASE("ba+* random products against a naive loop", "[matmult]") {
  const uint64_t seed = seed_from("ba+* random");
  const struct {
    int64_t m, k, n;
  } shapes[] = {{17, 13, 11}, {1, 29, 7}, {23, 31, 1}, {1, 40, 1}, {64, 3, 65}};
  for (const auto& s : shapes)
    for (double spa : {1.0, 0.1, 0.001})
      for (double spb : {1.0, 0.1}) {
        const MatrixBlock a = random_block(s.m, s.k, spa, seed + s.m, -1, 1);
        const MatrixBlock b = random_block(s.k, s.n, spb, seed + s.n + 100, -1, 1);
        const MatrixBlock at = random_block(s.k, s.m, spa, seed + 3, -1, 1);
        const MatrixBlock bt = random_block(s.n, s.k, spb, seed + 4, -1, 1);
        for (bool sa : {false, true})
          for (bool sb : {false, true}) {
            INFO(s.m << "x" << s.k << "x" << s.n << " sparsity " << spa << "/" << spb << " sparse "
                     << sa << sb);
            DMLRT_REQUIRE_CLOSE(run_mm(as(sa, a), as(sb, b)), s.m, s.n, naive(a, b));
            DMLRT_REQUIRE_CLOSE(run_gpu_mm(as(sa, at), as(sb, bt), true, true), s.m, s.n,
                                naive(at, bt, true, true));
            DMLRT_REQUIRE_CLOSE(run_gpu_mm(as(sa, at), as(sb, b), true, false), s.m, s.n,
                                naive(at, b, true, false));
            DMLRT_REQUIRE_CLOSE(run_gpu_mm(as(sa, a), as(sb, bt), false, true), s.m, s.n,
                                naive(a, bt, false, true));
          }
      }
}

TEST_CASE("ba+* ultra-sparse x dense and sparse x sparse keep the right format", "[matmult]") {
  const uint64_t seed = seed_from("ba+* ultra-sparse");
  const MatrixBlock a = random_block(300, 200, 0.001, seed, -1, 1, true);
  const MatrixBlock b = random_block(200, 50, 1.0, seed + 1, -1, 1);
  const MatrixBlock c = run_mm(a, b);
  DMLRT_REQUIRE_CLOSE(c, 300, 50, naive(a, b));
  CHECK(c.is_sparse());  // most rows of the product are empty
  const MatrixBlock s = random_block(200, 300, 0.001, seed + 2, -1, 1, true);
  const MatrixBlock ss = run_mm(a, s);
  DMLRT_REQUIRE_CLOSE(ss, 300, 300, naive(a, s));
  CHECK(ss.is_sparse());
  const MatrixBlock d =
      run_mm(b.to_sparse().to_dense(), random_block(50, 40, 0.05, seed + 3, -1, 1, true));
  CHECK_FALSE(d.is_sparse());
}

TEST_CASE("ba+* empty shapes and zero inner dimension", "[matmult]") {
  for (bool sa : {false, true})
    for (bool sb : {false, true}) {
      const MatrixBlock c =
          run_mm(as(sa, MatrixBlock::dense(0, 3)), as(sb, MatrixBlock::dense(3, 2)));
      CHECK(c.rows() == 0);
      CHECK(c.cols() == 2);
      // 2x0 %*% 0x3 is a 2x3 matrix of zeros.
      DMLRT_REQUIRE_CLOSE(
          run_mm(as(sa, MatrixBlock::dense(2, 0)), as(sb, MatrixBlock::dense(0, 3))), 2, 3,
          std::vector<double>(6, 0.0));
      DMLRT_REQUIRE_CLOSE(run_mm(as(sa, dense_of(1, 1, {3})), as(sb, dense_of(1, 1, {-2}))), 1, 1,
                          {-6});
      // All-zero sparse operands.
      DMLRT_REQUIRE_CLOSE(
          run_mm(MatrixBlock::empty_sparse(2, 3), as(sb, dense_of(3, 1, {1, 2, 3}))), 2, 1, {0, 0});
    }
}

TEST_CASE("ba+* shape and parse errors", "[matmult]") {
  const MatrixBlock a = dense_of(2, 3, {1, 2, 3, 4, 5, 6});
  REQUIRE_THROWS_AS(run_mm(a, dense_of(2, 2, {1, 2, 3, 4})), dmlrt::ShapeError);
  REQUIRE_THROWS_WITH(run_mm(a, dense_of(2, 2, {1, 2, 3, 4})),
                      Catch::Contains("ba+*: inner dimensions differ: 2x3 %*% 2x2"));
  REQUIRE_THROWS_WITH(run_gpu_mm(a, a, true, true),
                      Catch::Contains("ba+*: inner dimensions differ: t(2x3) %*% t(2x3)"));
  TestContext t;
  REQUIRE_THROWS_WITH(t.run("GPU°ba+*°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°-1°yes°false"),
                      Catch::Contains("transpose flag must be true or false, got 'yes'"));
  REQUIRE_THROWS_WITH(t.run("CP°ba+*°A·MATRIX·FP64°B·MATRIX·FP64"),
                      Catch::Contains("ba+* expects 3 to 6 operand fields, got 2"));
  REQUIRE_THROWS_WITH(t.run("CP°ba+*°A·MATRIX·FP64°2·SCALAR·FP64·true°C·MATRIX·FP64°2"),
                      Catch::Contains("ba+* inputs must be matrices"));
}

TEST_CASE("tsmm LEFT is t(X) %*% X and RIGHT is X %*% t(X)", "[matmult]") {
  const MatrixBlock x = dense_of(3, 2, {1, 2, 3, 4, 5, 6});
  for (bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("X", as(sparse, x));
    t.run("CP°tsmm°X·MATRIX·FP64°L·MATRIX·FP64°LEFT°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("L"), 2, 2, {35, 44, 44, 56});
    t.run("CP°tsmm°X·MATRIX·FP64°R·MATRIX·FP64°RIGHT°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("R"), 3, 3, {5, 11, 17, 11, 25, 39, 17, 39, 61});
    t.run("GPU°tsmm°X·MATRIX·FP64°G·MATRIX·FP64°LEFT");
    DMLRT_REQUIRE_CLOSE(t.matrix("G"), 2, 2, {35, 44, 44, 56});
  }
  const uint64_t seed = seed_from("tsmm random");
  for (double sp : {1.0, 0.1, 0.001}) {
    const MatrixBlock r = random_block(41, 19, sp, seed, -1, 1);
    for (bool sparse : {false, true}) {
      TestContext t;
      t.set_matrix("X", as(sparse, r));
      t.run("CP°tsmm°X·MATRIX·FP64°L·MATRIX·FP64°LEFT°2");
      DMLRT_REQUIRE_CLOSE(t.matrix("L"), 19, 19, naive(r, r, true, false));
      t.run("CP°tsmm°X·MATRIX·FP64°R·MATRIX·FP64°RIGHT°2");
      DMLRT_REQUIRE_CLOSE(t.matrix("R"), 41, 41, naive(r, r, false, true));
    }
  }
  TestContext t;
  t.set_matrix("X", MatrixBlock::dense(0, 3));
  t.run("CP°tsmm°X·MATRIX·FP64°L·MATRIX·FP64°LEFT°2");
  DMLRT_REQUIRE_CLOSE(t.matrix("L"), 3, 3, std::vector<double>(9, 0.0));
  REQUIRE_THROWS_WITH(t.run("CP°tsmm°X·MATRIX·FP64°L·MATRIX·FP64°UP°2"),
                      Catch::Contains("tsmm type must be LEFT or RIGHT, got 'UP'"));
}

TEST_CASE("mmchain XtXv, XtwXv and XtXvy", "[matmult]") {
  // X = [1 2; 3 4; 5 6], v = [1; -1]: Xv = [-1; -1; -1].
  const MatrixBlock x = dense_of(3, 2, {1, 2, 3, 4, 5, 6});
  const MatrixBlock v = dense_of(2, 1, {1, -1});
  const MatrixBlock w = dense_of(3, 1, {1, 2, 3});
  const MatrixBlock y = dense_of(3, 1, {1, 1, 1});
  for (bool sparse : {false, true}) {
    TestContext t;
    t.set_matrix("X", as(sparse, x));
    t.set_matrix("v", as(sparse, v));
    t.set_matrix("w", as(sparse, w));
    t.set_matrix("y", as(sparse, y));
    t.run("CP°mmchain°X·MATRIX·FP64°v·MATRIX·FP64°O·MATRIX·FP64°XtXv°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 1, {-9, -12});
    t.run("CP°mmchain°X·MATRIX·FP64°v·MATRIX·FP64°w·MATRIX·FP64°O·MATRIX·FP64°XtwXv°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 1, {-22, -28});
    t.run("CP°mmchain°X·MATRIX·FP64°v·MATRIX·FP64°y·MATRIX·FP64°O·MATRIX·FP64°XtXvy°2");
    DMLRT_REQUIRE_CLOSE(t.matrix("O"), 2, 1, {-18, -24});
  }
  const uint64_t seed = seed_from("mmchain random");
  for (double sp : {1.0, 0.1, 0.001}) {
    const MatrixBlock r = random_block(120, 30, sp, seed, -1, 1);
    const MatrixBlock rv = random_block(30, 1, 1.0, seed + 1, -1, 1);
    const MatrixBlock rw = random_block(120, 1, 1.0, seed + 2, -1, 1);
    const std::vector<double> q = naive(r, rv);
    std::vector<double> qw(q), qy(q);
    for (size_t i = 0; i < q.size(); ++i) {
      qw[i] = rw.get(static_cast<int64_t>(i), 0) * q[i];
      qy[i] = q[i] - rw.get(static_cast<int64_t>(i), 0);
    }
    for (bool sparse : {false, true}) {
      TestContext t;
      t.set_matrix("X", as(sparse, r));
      t.set_matrix("v", rv);
      t.set_matrix("w", rw);
      t.run("CP°mmchain°X·MATRIX·FP64°v·MATRIX·FP64°O·MATRIX·FP64°XtXv°2");
      DMLRT_REQUIRE_CLOSE(t.matrix("O"), 30, 1, naive(r, dense_of(120, 1, q), true, false));
      t.run("CP°mmchain°X·MATRIX·FP64°v·MATRIX·FP64°w·MATRIX·FP64°O·MATRIX·FP64°XtwXv°2");
      DMLRT_REQUIRE_CLOSE(t.matrix("O"), 30, 1, naive(r, dense_of(120, 1, qw), true, false));
      t.run("CP°mmchain°X·MATRIX·FP64°v·MATRIX·FP64°w·MATRIX·FP64°O·MATRIX·FP64°XtXvy°2");
      DMLRT_REQUIRE_CLOSE(t.matrix("O"), 30, 1, naive(r, dense_of(120, 1, qy), true, false));
    }
  }
}

TEST_CASE("mmchain shape and parse errors", "[matmult]") {
  TestContext t;
  t.set_matrix("X", dense_of(3, 2, {1, 2, 3, 4, 5, 6}));
  t.set_matrix("v", dense_of(3, 1, {1, 2, 3}));
  t.set_matrix("w", dense_of(2, 1, {1, 2}));
  REQUIRE_THROWS_WITH(t.run("CP°mmchain°X·MATRIX·FP64°v·MATRIX·FP64°O·MATRIX·FP64°XtXv°2"),
                      Catch::Contains("mmchain: v must be 2x1 for X 3x2, got 3x1"));
  t.set_matrix("v", dense_of(2, 1, {1, 2}));
  REQUIRE_THROWS_WITH(
      t.run("CP°mmchain°X·MATRIX·FP64°v·MATRIX·FP64°w·MATRIX·FP64°O·MATRIX·FP64°XtwXv°2"),
      Catch::Contains("mmchain: w must be 3x1 for X 3x2, got 2x1"));
  REQUIRE_THROWS_WITH(t.run("CP°mmchain°X·MATRIX·FP64°v·MATRIX·FP64°O·MATRIX·FP64°XtwXv°2"),
                      Catch::Contains("XtwXv/XtXvy needs third input"));
  REQUIRE_THROWS_WITH(t.run("CP°mmchain°X·MATRIX·FP64°v·MATRIX·FP64°O·MATRIX·FP64°XvX°2"),
                      Catch::Contains("mmchain type must be XtXv, XtwXv or XtXvy"));
}

TEST_CASE("ba+* with a scalar output operand takes the 1x1 product", "[matmult]") {
  TestContext t;
  t.set_matrix("A", dense_of(1, 2, {1, 2}));
  t.set_matrix("B", dense_of(2, 1, {3, 4}));
  t.run("CP°ba+*°A·MATRIX·FP64°B·MATRIX·FP64°s·SCALAR·FP64°2");
  CHECK(t.scalar("s").to_double() == 11.0);
}
