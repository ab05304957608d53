// lstm / lstm_backward through their instructions: a T=1, D=1, M=1 step whose forward and
// gradients are written out by hand, a central-difference gradient check of every backward output
// on a random multi-step case (both return_sequences settings), the cache layouts, the GPU
// layout on the CPU, CSR inputs, and the parse and shape errors.
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::kernels::MatrixBlock;
using dmlrt::test::dense_of;
using dmlrt::test::TestContext;

namespace {

const std::string kM = "·MATRIX·FP64";

std::string flag(bool v) { return std::string(v ? "true" : "false") + "·SCALAR·BOOLEAN·true"; }

std::string inputs6(bool return_seq) {
  return "X" + kM + "°W" + kM + "°b" + kM + "°out0" + kM + "°c0" + kM + "°" + flag(return_seq);
}
// CP layout: bare output names and the thread count.
std::string cp_forward(bool return_seq) {
  return "CP°lstm°" + inputs6(return_seq) + "°out°cy°cache_out°cache_c°cache_ifog°2";
}
std::string cp_backward(bool return_seq) {
  return "CP°lstm_backward°" + inputs6(return_seq) + "°dout" + kM + "°dc" + kM + "°cache_out" + kM +
         "°cache_c" + kM + "°cache_ifog" + kM + "°dX°dW°db°dout0°dc0°2";
}
// GPU layout (typed outputs), run on the CPU here.
std::string gpu_forward(bool return_seq) {
  return "GPU°lstm°" + inputs6(return_seq) + "°gout" + kM + "°gcy" + kM;
}
std::string gpu_backward(bool return_seq) {
  return "GPU°lstm_backward°" + inputs6(return_seq) + "°dout" + kM + "°dc" + kM + "°gdX" + kM +
         "°gdW" + kM + "°gdb" + kM + "°gdout0" + kM + "°gdc0" + kM;
}

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

struct Case {
  int64_t n, t, d, m;
  MatrixBlock x, w, b, out0, c0, dout, dc;
};

Case random_case(int64_t n, int64_t t, int64_t d, int64_t m, bool return_seq, uint64_t seed) {
  using dmlrt::test::random_block;
  Case c{n, t, d, m, {}, {}, {}, {}, {}, {}, {}};
  c.x = random_block(n, t * d, 1.0, seed + 1, -1, 1);
  c.w = random_block(d + m, 4 * m, 1.0, seed + 2, -0.8, 0.8);
  c.b = random_block(1, 4 * m, 1.0, seed + 3, -0.5, 0.5);
  c.out0 = random_block(n, m, 1.0, seed + 4, -0.5, 0.5);
  c.c0 = random_block(n, m, 1.0, seed + 5, -0.5, 0.5);
  c.dout = random_block(n, return_seq ? t * m : m, 1.0, seed + 6, -1, 1);
  c.dc = random_block(n, m, 1.0, seed + 7, -1, 1);
  return c;
}

void bind(TestContext& ctx, const Case& c) {
  ctx.set_matrix("X", c.x);
  ctx.set_matrix("W", c.w);
  ctx.set_matrix("b", c.b);
  ctx.set_matrix("out0", c.out0);
  ctx.set_matrix("c0", c.c0);
  ctx.set_matrix("dout", c.dout);
  ctx.set_matrix("dc", c.dc);
}

// sum(out .* dout) + sum(cy .* dc): the loss whose gradients lstm_backward returns.
double loss(const Case& c, bool return_seq) {
  TestContext ctx;
  bind(ctx, c);
  ctx.run(cp_forward(return_seq));
  const MatrixBlock out = ctx.matrix("out").to_dense(), cy = ctx.matrix("cy").to_dense();
  const MatrixBlock dout = c.dout.to_dense(), dc = c.dc.to_dense();
  double s = 0;
  for (int64_t i = 0; i < out.size(); ++i) s += out.dense_values()[i] * dout.dense_values()[i];
  for (int64_t i = 0; i < cy.size(); ++i) s += cy.dense_values()[i] * dc.dense_values()[i];
  return s;
}

// Central differences of `loss` over every cell of the input `member` of c.
std::vector<double> numeric_grad(Case c, MatrixBlock Case::*member, bool return_seq) {
  MatrixBlock base = (c.*member).to_dense();
  std::vector<double> g(static_cast<size_t>(base.size()));
  const double h = 1e-6;
  for (int64_t i = 0; i < base.size(); ++i) {
    std::vector<double> v = base.dense_values();
    v[i] += h;
    c.*member = MatrixBlock::dense(base.rows(), base.cols(), v);
    const double up = loss(c, return_seq);
    v[i] -= 2 * h;
    c.*member = MatrixBlock::dense(base.rows(), base.cols(), v);
    const double down = loss(c, return_seq);
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

std::string error_of(TestContext& ctx, const std::string& line) {
  try {
    ctx.run(line);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("lstm: one step with D=1, M=1 computed by hand", "[dnn_lstm]") {
  // Gate columns i | f | o | g. W row 0 multiplies x, row 1 multiplies out0.
  const double x = 0.7, h0 = -0.4, c0 = 0.9;
  const std::vector<double> wx = {0.5, -0.3, 0.8, 0.2}, wh = {-0.6, 0.4, 0.1, -0.9},
                            bb = {0.1, 0.2, -0.3, 0.4};
  double a[4];
  for (int k = 0; k < 4; ++k) a[k] = bb[k] + x * wx[k] + h0 * wh[k];
  const double i = sigmoid(a[0]), f = sigmoid(a[1]), o = sigmoid(a[2]), g = std::tanh(a[3]);
  const double c = f * c0 + i * g, h = o * std::tanh(c);
  // Backward with dout = dh and dc = dcy.
  const double dh = 1.3, dcy = -0.7;
  const double dct = dcy + o * (1 - std::tanh(c) * std::tanh(c)) * dh;
  const double da[4] = {i * (1 - i) * g * dct, f * (1 - f) * c0 * dct,
                        o * (1 - o) * std::tanh(c) * dh, (1 - g * g) * i * dct};
  double dx = 0, dh0 = 0;
  for (int k = 0; k < 4; ++k) {
    dx += da[k] * wx[k];
    dh0 += da[k] * wh[k];
  }
  for (bool sparse : {false, true}) {
    for (bool return_seq : {true, false}) {
      TestContext t;
      t.set_matrix("X", dmlrt::test::block_of(sparse, 1, 1, {x}));
      t.set_matrix("W",
                   dmlrt::test::block_of(sparse, 2, 4,
                                         {wx[0], wx[1], wx[2], wx[3], wh[0], wh[1], wh[2], wh[3]}));
      t.set_matrix("b", dmlrt::test::block_of(sparse, 1, 4, bb));
      t.set_matrix("out0", dense_of(1, 1, {h0}));
      t.set_matrix("c0", dense_of(1, 1, {c0}));
      t.set_matrix("dout", dense_of(1, 1, {dh}));
      t.set_matrix("dc", dense_of(1, 1, {dcy}));
      t.run(cp_forward(return_seq));
      DMLRT_REQUIRE_CLOSE(t.matrix("out"), 1, 1, {h}, 1e-14, 1e-14);
      DMLRT_REQUIRE_CLOSE(t.matrix("cy"), 1, 1, {c}, 1e-14, 1e-14);
      DMLRT_REQUIRE_CLOSE(t.matrix("cache_out"), 1, 1, {h}, 1e-14, 1e-14);
      DMLRT_REQUIRE_CLOSE(t.matrix("cache_c"), 1, 1, {c}, 1e-14, 1e-14);
      DMLRT_REQUIRE_CLOSE(t.matrix("cache_ifog"), 1, 4, {i, f, o, g}, 1e-14, 1e-14);
      t.run(cp_backward(return_seq));
      DMLRT_REQUIRE_CLOSE(t.matrix("dX"), 1, 1, {dx}, 1e-14, 1e-13);
      DMLRT_REQUIRE_CLOSE(t.matrix("dW"), 2, 4,
                          {x * da[0], x * da[1], x * da[2], x * da[3], h0 * da[0], h0 * da[1],
                           h0 * da[2], h0 * da[3]},
                          1e-14, 1e-13);
      DMLRT_REQUIRE_CLOSE(t.matrix("db"), 1, 4, {da[0], da[1], da[2], da[3]}, 1e-14, 1e-13);
      DMLRT_REQUIRE_CLOSE(t.matrix("dout0"), 1, 1, {dh0}, 1e-14, 1e-13);
      DMLRT_REQUIRE_CLOSE(t.matrix("dc0"), 1, 1, {f * dct}, 1e-14, 1e-13);
    }
  }
}

TEST_CASE("lstm: zero weights give gates of one half and g = 0", "[dnn_lstm]") {
  // i = f = o = sigmoid(0) = 1/2, g = tanh(0) = 0: c = c0 / 2 each step, out = tanh(c) / 2.
  TestContext t;
  t.set_matrix("X", dense_of(2, 2, {1, 2, 3, 4}));  // N=2, T=2, D=1
  t.set_matrix("W", MatrixBlock::empty_sparse(2, 4));
  t.set_matrix("b", MatrixBlock::empty_sparse(1, 4));
  t.set_matrix("out0", dense_of(2, 1, {5, 6}));
  t.set_matrix("c0", dense_of(2, 1, {4, -8}));
  t.run(cp_forward(true));
  DMLRT_REQUIRE_CLOSE(
      t.matrix("out"), 2, 2,
      {std::tanh(2.0) / 2, std::tanh(1.0) / 2, std::tanh(-4.0) / 2, std::tanh(-2.0) / 2});
  DMLRT_REQUIRE_CLOSE(t.matrix("cy"), 2, 1, {1, -2});
  // cache rows are time steps, each holding the (N, M) state flattened.
  DMLRT_REQUIRE_CLOSE(t.matrix("cache_c"), 2, 2, {2, -4, 1, -2});
  DMLRT_REQUIRE_CLOSE(t.matrix("cache_ifog"), 2, 8,
                      {0.5, 0.5, 0.5, 0, 0.5, 0.5, 0.5, 0, 0.5, 0.5, 0.5, 0, 0.5, 0.5, 0.5, 0});
}

TEST_CASE("lstm: caches, return_sequences and the GPU layout agree", "[dnn_lstm]") {
  const Case c = random_case(3, 4, 2, 3, true, dmlrt::test::seed_from("lstm caches"));
  TestContext t;
  bind(t, c);
  t.run(cp_forward(true));
  const MatrixBlock seq = t.matrix("out"), cache_out = t.matrix("cache_out");
  REQUIRE(seq.rows() == 3);
  REQUIRE(seq.cols() == 12);
  REQUIRE(cache_out.rows() == 4);
  REQUIRE(cache_out.cols() == 9);
  REQUIRE(t.matrix("cache_c").rows() == 4);
  REQUIRE(t.matrix("cache_c").cols() == 9);
  REQUIRE(t.matrix("cache_ifog").rows() == 4);
  REQUIRE(t.matrix("cache_ifog").cols() == 36);
  // cache_out[t, n*M + j] = out[n, t*M + j]
  for (int64_t s = 0; s < 3; ++s)
    for (int64_t step = 0; step < 4; ++step)
      for (int64_t j = 0; j < 3; ++j)
        REQUIRE(cache_out.get(step, s * 3 + j) == seq.get(s, step * 3 + j));
  // The last step's output is the return_sequences=FALSE output; cy is the last cache_c row.
  t.run(cp_forward(false));
  const MatrixBlock last = t.matrix("out");
  REQUIRE(last.rows() == 3);
  REQUIRE(last.cols() == 3);
  for (int64_t s = 0; s < 3; ++s)
    for (int64_t j = 0; j < 3; ++j) {
      REQUIRE(last.get(s, j) == seq.get(s, 9 + j));
      REQUIRE(t.matrix("cy").get(s, j) == t.matrix("cache_c").get(3, s * 3 + j));
    }
  // The GPU layout (out, cy only) computes the same on the CPU.
  for (bool rs : {true, false}) {
    t.run(cp_forward(rs));
    t.run(gpu_forward(rs));
    DMLRT_REQUIRE_CLOSE(t.matrix("gout"), t.matrix("out"), 0, 0);
    DMLRT_REQUIRE_CLOSE(t.matrix("gcy"), t.matrix("cy"), 0, 0);
  }
}

TEST_CASE("lstm_backward matches central differences of the forward", "[dnn_lstm]") {
  for (bool return_seq : {true, false}) {
    INFO("return_sequences=" << return_seq);
    const Case c =
        random_case(2, 3, 2, 2, return_seq, dmlrt::test::seed_from("lstm grad check") + return_seq);
    TestContext t;
    bind(t, c);
    t.run(cp_forward(return_seq));
    t.run(cp_backward(return_seq));
    const double tol = 1e-7;
    DMLRT_REQUIRE_CLOSE(t.matrix("dX"), 2, 6, numeric_grad(c, &Case::x, return_seq), tol, tol);
    DMLRT_REQUIRE_CLOSE(t.matrix("dW"), 4, 8, numeric_grad(c, &Case::w, return_seq), tol, tol);
    DMLRT_REQUIRE_CLOSE(t.matrix("db"), 1, 8, numeric_grad(c, &Case::b, return_seq), tol, tol);
    DMLRT_REQUIRE_CLOSE(t.matrix("dout0"), 2, 2, numeric_grad(c, &Case::out0, return_seq), tol,
                        tol);
    DMLRT_REQUIRE_CLOSE(t.matrix("dc0"), 2, 2, numeric_grad(c, &Case::c0, return_seq), tol, tol);
    // The GPU layout recomputes the caches and gives the same gradients.
    t.run(gpu_backward(return_seq));
    for (const char* o : {"dX", "dW", "db", "dout0", "dc0"})
      DMLRT_REQUIRE_CLOSE(t.matrix(std::string("g") + o), t.matrix(o), 0, 0);
  }
}

TEST_CASE("lstm: CSR inputs give the dense results; N=1, T=1 edge shapes", "[dnn_lstm]") {
  for (auto [n, steps, d, m] : std::vector<std::array<int64_t, 4>>{
           {1, 1, 1, 1}, {1, 5, 3, 2}, {4, 1, 2, 3}, {3, 2, 1, 5}}) {
    for (bool return_seq : {true, false}) {
      INFO("N=" << n << " T=" << steps << " D=" << d << " M=" << m << " rs=" << return_seq);
      Case c = random_case(n, steps, d, m, return_seq, dmlrt::test::seed_from("lstm csr") + n);
      TestContext dense;
      bind(dense, c);
      dense.run(cp_forward(return_seq));
      dense.run(cp_backward(return_seq));
      // X with about half of its cells zeroed, as CSR.
      MatrixBlock xs = c.x.to_dense();
      for (int64_t i = 0; i < xs.size(); i += 2) xs.dense_values()[i] = 0;
      c.x = xs.to_sparse();
      TestContext sparse;
      bind(sparse, c);
      dense.set_matrix("X", xs);
      dense.run(cp_forward(return_seq));
      dense.run(cp_backward(return_seq));
      sparse.run(cp_forward(return_seq));
      sparse.run(cp_backward(return_seq));
      for (const char* o :
           {"out", "cy", "cache_out", "cache_c", "cache_ifog", "dX", "dW", "db", "dout0", "dc0"})
        DMLRT_REQUIRE_CLOSE(sparse.matrix(o), dense.matrix(o), 0, 0);
    }
  }
}

TEST_CASE("lstm: malformed instructions and shape errors", "[dnn_lstm]") {
  const Case c = random_case(3, 4, 2, 3, true, dmlrt::test::seed_from("lstm errors"));
  TestContext t;
  bind(t, c);
  t.run(cp_forward(true));
  // Field counts.
  std::string e = error_of(t, "CP°lstm°" + inputs6(true) + "°out°cy°cache_out");
  CHECK_THAT(e, Catch::Contains("lstm expects 8 fields") && Catch::Contains("got 9"));
  e = error_of(t, "CP°lstm_backward°" + inputs6(true) + "°dout" + kM + "°dc" + kM + "°dX°dW");
  CHECK_THAT(e,
             Catch::Contains("lstm_backward expects 13 fields") && Catch::Contains("16-17 fields"));
  // Operand kinds.
  e = error_of(t, "CP°lstm°X" + kM + "°W" + kM + "°b" + kM + "°out0" + kM + "°c0" + kM + "°rs" +
                      kM + "°out°cy");
  CHECK_THAT(e, Catch::Contains("expects a scalar as input 6 (return_seq)"));
  e = error_of(t, "CP°lstm°1.0·SCALAR·FP64·true°W" + kM + "°b" + kM + "°out0" + kM + "°c0" + kM +
                      "°" + flag(true) + "°out°cy");
  CHECK_THAT(e, Catch::Contains("expects a matrix as input 1 (X)"));
  e = error_of(t, "CP°lstm°" + inputs6(true) + "°out°cy·SCALAR·FP64");
  CHECK_THAT(e, Catch::Contains("expects a matrix as output 2"));
  e = error_of(t, "CP°lstm°" + inputs6(true) + "°out°cy°cache_out°cache_c°cache_ifog°two");
  CHECK_THAT(e, Catch::Contains("thread count must be an integer"));

  // Shapes (N=3, T=4, D=2, M=3).
  auto shape_error = [&](const char* var, MatrixBlock m, const std::string& line) {
    TestContext s;
    bind(s, c);
    s.run(cp_forward(true));
    s.set_matrix(var, std::move(m));
    return error_of(s, line);
  };
  e = shape_error("c0", MatrixBlock::dense(3, 2), cp_forward(true));
  CHECK_THAT(e, Catch::Contains("c0 is 3x2, expected N x M (the shape of out0) = 3x3"));
  e = shape_error("W", MatrixBlock::dense(5, 10), cp_forward(true));
  CHECK_THAT(e, Catch::Contains("W is 5x10, expected (D+M) x 4M with D >= 1 and M = 3"));
  e = shape_error("W", MatrixBlock::dense(3, 12), cp_forward(true));
  CHECK_THAT(e, Catch::Contains("W is 3x12"));
  e = shape_error("b", MatrixBlock::dense(12, 1), cp_forward(true));
  CHECK_THAT(e, Catch::Contains("b is 12x1, expected 1 x 4M = 1x12 (N=3 T=4 D=2 M=3)"));
  e = shape_error("X", MatrixBlock::dense(3, 7), cp_forward(true));
  CHECK_THAT(e,
             Catch::Contains("X is 3x7, expected N x T*D with N = 3") && Catch::Contains("D = 2"));
  e = shape_error("X", MatrixBlock::dense(2, 8), cp_forward(true));
  CHECK_THAT(e, Catch::Contains("X is 2x8"));
  e = shape_error("X", MatrixBlock::dense(3, 0), cp_forward(true));
  CHECK_THAT(e, Catch::Contains("T >= 1 time steps"));
  e = shape_error("out0", MatrixBlock::dense(3, 0), cp_forward(true));
  CHECK_THAT(e, Catch::Contains("out0 is 3x0, expected N x M with M >= 1"));
  e = shape_error("dout", MatrixBlock::dense(3, 3), cp_backward(true));
  CHECK_THAT(e, Catch::Contains("dout is 3x3, expected N x T*M (return_sequences=TRUE) = 3x12"));
  e = shape_error("dout", MatrixBlock::dense(3, 12), cp_backward(false));
  CHECK_THAT(e, Catch::Contains("dout is 3x12, expected N x M (return_sequences=FALSE) = 3x3"));
  e = shape_error("dc", MatrixBlock::dense(1, 3), cp_backward(true));
  CHECK_THAT(e, Catch::Contains("dc is 1x3, expected N x M = 3x3"));
  e = shape_error("cache_out", MatrixBlock::dense(9, 4), cp_backward(true));
  CHECK_THAT(e, Catch::Contains("cache_out is 9x4, expected T x N*M = 4x9 (N=3 T=4 D=2 M=3)"));
  e = shape_error("cache_c", MatrixBlock::dense(4, 8), cp_backward(true));
  CHECK_THAT(e, Catch::Contains("cache_c is 4x8, expected T x N*M = 4x9"));
  e = shape_error("cache_ifog", MatrixBlock::dense(4, 9), cp_backward(true));
  CHECK_THAT(e, Catch::Contains("cache_ifog is 4x9, expected T x N*4M = 4x36"));
  // The GPU layout checks the same shapes (no caches).
  e = shape_error("dout", MatrixBlock::dense(3, 3), gpu_backward(true));
  CHECK_THAT(e, Catch::Contains("dout is 3x3, expected N x T*M (return_sequences=TRUE) = 3x12"));
}
