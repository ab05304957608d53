// DNN pool sub-family on the GPU against the same instructions on the CPU backend: max/avg
// pooling and backward (relu variants too) over dense / 0.1 sparse / 0.001 ultra-sparse / empty
// images and images full of ties (small integers, zeros, NaN), 1x1, odd and non-square shapes,
// strides, padding (windows of padding only), overlapping and gapped windows, C=1, N=1, N=0; the
// GPU layout carrying the forward output; forced batch splitting (tiny DNN budget); relu_backward,
// bias_add / bias_multiply, channel_sums and update_nesterov_x; FP64 (1e-9) and FP32 (1e-4); and
// error messages equal to the CPU's.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

const std::string kM = "·MATRIX·FP64";

struct Pool {
  int64_t n, c, h, w, r, s, sh, sw, ph, pw;
  int64_t p() const { return (h + 2 * ph - r) / sh + 1; }
  int64_t q() const { return (w + 2 * pw - s) / sw + 1; }
  int64_t chw() const { return c * h * w; }
  int64_t cpq() const { return c * p() * q(); }
};

// The 12 shape scalars: stride_h, stride_w, pad_h, pad_w, N, C, H, W, K(=C), C, R, S.
std::string shape_fields(const Pool& g) {
  std::string out;
  for (int64_t v : {g.sh, g.sw, g.ph, g.pw, g.n, g.c, g.h, g.w, g.c, g.c, g.r, g.s})
    out += "°" + lit(v);
  return out;
}

std::string label(const std::string& op, const Pool& g, const std::string& fmt) {
  std::ostringstream os;
  os << op << " N=" << g.n << " C=" << g.c << " " << g.h << "x" << g.w << " pool " << g.r << "x"
     << g.s << " stride " << g.sh << "," << g.sw << " pad " << g.ph << "," << g.pw << " X " << fmt;
  return os.str();
}

// Geometries: non-overlapping (stride = pool), overlapping (stride < pool), gaps (stride > pool),
// padding (also windows of padding only: a 1x1 pool with padding 1), non-square pools and
// images, C=1, N=1, 1x1, N=0.
const std::vector<Pool>& pools() {
  static const std::vector<Pool> p = {
      {2, 3, 6, 6, 2, 2, 2, 2, 0, 0},  // LeNet-like
      {1, 1, 1, 1, 1, 1, 1, 1, 0, 0},  // 1x1
      {3, 2, 7, 5, 3, 2, 2, 1, 1, 0},  // odd, non-square pool, overlapping
      {2, 1, 5, 7, 2, 3, 1, 2, 1, 1},  // padding, overlapping in both directions
      {4, 3, 9, 9, 3, 3, 2, 2, 1, 1},  // ResNet stem: 3x3 stride 2 pad 1
      {1, 4, 4, 6, 2, 2, 2, 2, 0, 0},  // N=1
      {5, 2, 8, 8, 3, 3, 3, 3, 0, 0},  // stride = pool = 3, last row/col uncovered
      {2, 2, 5, 5, 2, 2, 3, 3, 0, 0},  // gaps between windows
      {3, 1, 6, 4, 4, 4, 1, 1, 2, 2},  // big padding, heavy overlap, C=1
      {2, 2, 3, 3, 1, 1, 1, 1, 1, 1},  // 1x1 pool, padding 1: border windows are padding only
      {2, 1, 1, 9, 1, 3, 1, 2, 0, 1},  // a 1-row image
      {0, 2, 4, 4, 2, 2, 2, 2, 0, 0},  // empty batch
  };
  return p;
}

// Inputs full of ties: small integers (-2..1), about half of them zero, on the image formats.
MatrixBlock ties(int64_t r, int64_t c, uint64_t seed, bool sparse) {
  MatrixBlock a = test::random_block(r, c, 0.5, seed, -2, 2, false);
  std::vector<double> v = a.dense_values();
  for (double& x : v) x = std::floor(x);
  MatrixBlock out = MatrixBlock::dense(r, c, std::move(v));
  return sparse ? out.to_sparse() : out;
}

// Ties with a few NaN cells (the first NaN of a window wins the forward max; the CPU's backward
// scan never moves past a NaN maximum).
MatrixBlock ties_nan(int64_t r, int64_t c, uint64_t seed) {
  MatrixBlock a = ties(r, c, seed, false);
  std::vector<double> v = a.dense_values();
  for (size_t i = 0; i < v.size(); i += 7) v[i] = std::numeric_limits<double>::quiet_NaN();
  return MatrixBlock::dense(r, c, std::move(v));
}

// Image inputs: the standard formats plus tie-heavy dense and sparse ones and NaNs.
struct ImageInput {
  std::string name;
  MatrixBlock x;
};
std::vector<ImageInput> images(int64_t r, int64_t c, uint64_t seed, mem::DType dt) {
  std::vector<ImageInput> out;
  for (const Format& f : formats()) out.push_back({f.name, input(r, c, f, seed, dt)});
  out.push_back({"ties", ties(r, c, seed + 1, false)});
  out.push_back({"ties-csr", ties(r, c, seed + 2, true)});
  out.push_back({"ties-nan", ties_nan(r, c, seed + 3)});
  return out;
}

// Every pooling op over every geometry and image input; backward ops with a dense and a sparse
// dout, in the CP layout and in the GPU layout with the forward output before out.
void check_pooling(GpuEnv& env, mem::DType dt, uint64_t seed, const std::vector<Pool>& geoms) {
  const Format sparse_dout{"sparse0.1", 0.1, true};
  for (const Pool& g : geoms) {
    const std::string shapes = shape_fields(g);
    int k = 0;
    for (const ImageInput& in : images(g.n, g.chw(), seed + g.chw() * 31 + g.n, dt)) {
      env.bind("X", in.x);
      const bool sparse_d = ++k % 2 == 0;
      env.bind("D", input(g.n, g.cpq(), sparse_d ? sparse_dout : formats()[0], seed + k, dt));
      for (const char* op : {"maxpooling", "relu_maxpooling", "avgpooling"})
        check_vs_cpu(env, dt, op, "X" + kM + shapes + "°OUT°1°1.0E9", label(op, g, in.name));
      env.bind("M", env.host("R"));  // the (N, C*P*Q) forward output of the CPU
      for (const char* op :
           {"maxpooling_backward", "relu_maxpooling_backward", "avgpooling_backward"}) {
        const std::string l =
            label(op, g, in.name) + (sparse_d ? " dout sparse0.1" : " dout dense");
        check_vs_cpu(env, dt, op, "X" + kM + "°D" + kM + shapes + "°OUT°1°1.0E9", l);
        // GPU layout: no k, the forward output M before out, the budget last.
        check_vs_cpu(env, dt, op, "X" + kM + "°D" + kM + shapes + "°M" + kM + "°OUT°1.0E9",
                     l + " (GPU layout with the forward output)");
      }
    }
  }
}

}  // namespace

TEST_CASE("gpu pooling ops match the CPU: formats, ties, geometries", "[gpu][dnn][kernel]") {
  const uint64_t seed = test::seed_from("gpu pooling");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    check_pooling(env, dt, seed, pools());
  }
}

TEST_CASE("gpu pooling ops split the batch under a small DNN budget and still match the CPU",
          "[gpu][dnn][kernel]") {
  // Budget 1 byte: one image per chunk whenever an op has per-image intermediates (CSR rows to
  // densify, window choices of overlapping max pooling backward); a few KB: chunks of several
  // images with a shorter last one (N=7).
  const uint64_t seed = test::seed_from("gpu pooling split");
  const std::vector<Pool> geoms = {{7, 3, 6, 6, 2, 2, 2, 2, 0, 0},
                                   {7, 2, 7, 5, 3, 3, 2, 1, 1, 1},
                                   {5, 1, 9, 9, 3, 3, 2, 2, 1, 1}};
  for (long long budget : {1LL, 3000LL})
    for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
      mem::GpuSessionOptions o = GpuEnv::options(dt);
      o.dnn_budget_bytes = budget;
      GpuEnv env(o);
      INFO("dnn budget " << budget << " bytes");
      check_pooling(env, dt, seed + budget, geoms);
    }
}

TEST_CASE("gpu max pooling backward on a larger batch matches the CPU", "[gpu][dnn][kernel]") {
  // Enough windows for many thread blocks, with relu ties (half the cells <= 0).
  const uint64_t seed = test::seed_from("gpu pooling larger");
  const std::vector<Pool> geoms = {{16, 8, 28, 28, 2, 2, 2, 2, 0, 0},
                                   {8, 16, 17, 17, 3, 3, 2, 2, 1, 1}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const Pool& g : geoms) {
      env.bind("X", ties(g.n, g.chw(), seed + g.c, false));
      env.bind("D", input(g.n, g.cpq(), formats()[0], seed + 2 * g.c, dt));
      for (const char* op : {"maxpooling", "relu_maxpooling", "avgpooling", "maxpooling_backward",
                             "relu_maxpooling_backward", "avgpooling_backward"}) {
        const bool bwd = std::string(op).find("_backward") != std::string::npos;
        check_vs_cpu(env, dt, op,
                     "X" + kM + (bwd ? "°D" + kM : std::string()) + shape_fields(g) + "°OUT°1°0.0",
                     label(op, g, "ties"), 0);
      }
    }
  }
}

TEST_CASE("gpu relu_backward matches the CPU", "[gpu][dnn][kernel]") {
  const uint64_t seed = test::seed_from("gpu relu_backward");
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1}, {0, 4}, {7, 13}, {64, 300}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes)
      for (const ImageInput& in : images(r, c, seed + r * 7 + c, dt))
        for (const Format& fd : formats()) {
          env.bind("X", in.x);
          env.bind("D", input(r, c, fd, seed + r + c, dt));
          std::ostringstream l;
          l << "relu_backward " << r << "x" << c << " X " << in.name << " dout " << fd.name;
          check_vs_cpu(env, dt, "relu_backward", "X" + kM + "°D" + kM + "°OUT°1°0.0", l.str(),
                       r * c > 0 ? 0 : -1);
        }
  }
}

TEST_CASE("gpu bias_add and bias_multiply match the CPU", "[gpu][dnn][kernel]") {
  const uint64_t seed = test::seed_from("gpu bias ops");
  struct Case {
    int64_t n, k, pq;
  };
  const std::vector<Case> cases = {{1, 1, 1}, {0, 3, 4}, {5, 3, 7}, {9, 7, 1}, {33, 16, 49}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const Case& cs : cases)
      for (const Format& fx : formats())
        for (const Format& fb : {formats()[0], formats()[1]}) {
          env.bind("X", input(cs.n, cs.k * cs.pq, fx, seed + cs.n * 13 + cs.k, dt));
          env.bind("B", input(cs.k, 1, fb, seed + cs.k, dt));
          for (const char* op : {"bias_add", "bias_multiply"}) {
            std::ostringstream l;
            l << op << " X " << cs.n << "x" << cs.k * cs.pq << " " << fx.name << " bias " << cs.k
              << "x1 " << fb.name;
            check_vs_cpu(env, dt, op, "X" + kM + "°B" + kM + "°OUT°1°0.0", l.str(),
                         cs.n > 0 ? 0 : -1);
          }
        }
  }
}

TEST_CASE("gpu channel_sums matches the CPU", "[gpu][dnn][kernel]") {
  const uint64_t seed = test::seed_from("gpu channel_sums");
  struct Case {
    int64_t n, c, hw;
  };
  // Few channels over many cells (many partial blocks per channel), many channels, C=0, N=0.
  const std::vector<Case> cases = {{1, 1, 1},     {0, 3, 4},     {3, 0, 5},   {7, 3, 9},
                                   {64, 2, 4096}, {300, 1, 999}, {4, 300, 3}, {13, 64, 49}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const Case& cs : cases)
      for (const Format& f : formats()) {
        env.bind("X", input(cs.n, cs.c * cs.hw, f, seed + cs.n * 17 + cs.c, dt));
        std::ostringstream l;
        l << "channel_sums X " << cs.n << "x" << cs.c * cs.hw << " C=" << cs.c << " HW=" << cs.hw
          << " " << f.name;
        check_vs_cpu(env, dt, "channel_sums",
                     "X" + kM + "°" + lit(cs.c) + "°" + lit(cs.hw) + "°OUT", l.str(),
                     cs.c > 0 ? 0 : -1);
      }
  }
}

TEST_CASE("gpu update_nesterov_x matches the CPU with a fractional mu", "[gpu][dnn][kernel]") {
  const uint64_t seed = test::seed_from("gpu update_nesterov_x");
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1}, {0, 5}, {7, 13}, {100, 333}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& [r, c] : shapes)
      for (const Format& f : formats()) {
        env.bind("X", input(r, c, f, seed + r, dt));
        env.bind("V", input(r, c, formats()[(r + 1) % 4], seed + c, dt));
        env.bind("P", input(r, c, formats()[0], seed + r + c, dt));
        for (const char* mu : {"0.9", "0.5", "1.5"}) {
          std::ostringstream l;
          l << "update_nesterov_x " << r << "x" << c << " X " << f.name << " mu " << mu;
          check_vs_cpu(env, dt, "update_nesterov_x",
                       "X" + kM + "°V" + kM + "°P" + kM + "°" + mu + "·SCALAR·FP64·true°OUT",
                       l.str(), r * c > 0 ? 0 : -1);
        }
      }
  }
}

TEST_CASE("gpu DNN pool ops fail with the CPU's messages", "[gpu][dnn]") {
  GpuEnv env(mem::DType::kFloat64);
  env.bind("X", test::dense_of(1, 9, {1, 2, 3, 4, 9, 6, 7, 8, 5}));
  env.bind("D", test::dense_of(1, 3, {1, 2, 3}));
  env.bind("D4", test::dense_of(1, 4, {1, 2, 3, 4}));
  const Pool ok{1, 1, 3, 3, 2, 2, 1, 1, 0, 0};
  Pool two = ok;
  two.n = 2;  // X has one row
  Pool big = ok;
  big.r = 4;  // the pool does not fit
  Pool zero = ok;
  zero.sh = 0;  // invalid stride
  for (const char* op : {"maxpooling", "relu_maxpooling", "avgpooling"}) {
    check_same_error(env, op, "X" + kM + shape_fields(two) + "°OUT°1°0.0");
    check_same_error(env, op, "X" + kM + shape_fields(big) + "°OUT°1°0.0");
    check_same_error(env, op, "X" + kM + shape_fields(zero) + "°OUT°1°0.0");
  }
  for (const char* op :
       {"maxpooling_backward", "relu_maxpooling_backward", "avgpooling_backward"}) {
    check_same_error(env, op, "X" + kM + "°D" + kM + shape_fields(ok) + "°OUT°1°0.0");    // dout
    check_same_error(env, op, "X" + kM + "°D4" + kM + shape_fields(two) + "°OUT°1°0.0");  // X
    check_same_error(env, op, "X" + kM + "°D4" + kM + shape_fields(big) + "°OUT°1°0.0");
  }
  env.bind("B", test::dense_of(4, 1, {1, 2, 3, 4}));
  env.bind("Brow", test::dense_of(1, 3, {1, 2, 3}));
  for (const char* op : {"bias_add", "bias_multiply"}) {
    check_same_error(env, op, "X" + kM + "°B" + kM + "°OUT°1°0.0");     // 4 does not divide 9
    check_same_error(env, op, "X" + kM + "°Brow" + kM + "°OUT°1°0.0");  // not K x 1
  }
  check_same_error(env, "relu_backward", "X" + kM + "°D" + kM + "°OUT°1°0.0");
  check_same_error(env, "channel_sums", "X" + kM + "°" + lit(4) + "°" + lit(2) + "°OUT");
  check_same_error(env, "update_nesterov_x",
                   "X" + kM + "°X" + kM + "°D" + kM + "°0.9·SCALAR·FP64·true°OUT");
}
