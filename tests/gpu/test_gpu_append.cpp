// append (2-input, cbind and rbind) and n-ary cbind / rbind on the GPU against the same
// instruction on the CPU backend: every combination of dense / sparse / ultra-sparse / empty
// inputs, zero-row and zero-column inputs, 1x1, odd and larger-than-block shapes, FP64 and FP32;
// rbind of CSR inputs stays CSR; errors identical to the CPU's.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

// A CSR with entries (rbind of these alone concatenates into a CSR on the GPU).
bool nonempty_csr(const MatrixBlock& b) { return b.is_sparse() && b.nnz() > 0; }

struct Shape {
  int64_t rows, cols;
};

std::string describe(const char* name, const Shape& s, const Format& f) {
  std::ostringstream os;
  os << name << "(" << s.rows << "x" << s.cols << " " << f.name << ")";
  return os.str();
}

}  // namespace

TEST_CASE("gpu append (2-input cbind and rbind) matches the CPU", "[gpu][append]") {
  const uint64_t seed = test::seed_from("gpu append");
  // (common dim, first other dim, second other dim)
  const std::vector<std::vector<int64_t>> dims = {
      {1, 1, 1}, {7, 1, 3}, {0, 2, 3}, {5, 0, 2}, {5, 3, 0}, {33, 65, 17}, {1000, 517, 1003}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& d : dims)
      for (bool cbind : {true, false}) {
        const Shape sa = cbind ? Shape{d[0], d[1]} : Shape{d[1], d[0]};
        const Shape sb = cbind ? Shape{d[0], d[2]} : Shape{d[2], d[0]};
        for (const Format& fa : formats())
          for (const Format& fb : formats()) {
            const MatrixBlock a = input(sa.rows, sa.cols, fa, seed + d[0] + d[1], dt);
            const MatrixBlock b = input(sb.rows, sb.cols, fb, seed + d[2] * 3, dt);
            env.bind("A", a);
            env.bind("B", b);
            const bool csr = !cbind && nonempty_csr(a) && nonempty_csr(b);
            check_vs_cpu(env, dt, "append",
                         "A·MATRIX·FP64°B·MATRIX·FP64°" + std::to_string(sa.cols) +
                             "·SCALAR·INT64·true°OUT°" + (cbind ? "true" : "false"),
                         std::string("append ") + (cbind ? "cbind " : "rbind ") +
                             describe("A", sa, fa) + " " + describe("B", sb, fb),
                         csr ? 1 : -1);
          }
      }
  }
}

TEST_CASE("gpu n-ary cbind and rbind match the CPU", "[gpu][append]") {
  const uint64_t seed = test::seed_from("gpu nary append");
  // (common dim, other dims of three inputs)
  const std::vector<std::vector<int64_t>> dims = {
      {1, 1, 1, 1}, {7, 2, 0, 5}, {0, 1, 2, 3}, {33, 65, 1, 17}, {1000, 300, 1003, 1}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const auto& d : dims)
      for (const char* op : {"cbind", "rbind"}) {
        const bool cbind = std::string(op) == "cbind";
        // inputs[i][f]: input i in format f, generated once per shape.
        std::vector<std::vector<MatrixBlock>> inputs(3);
        std::vector<Shape> shapes;
        for (int i = 0; i < 3; ++i) {
          shapes.push_back(cbind ? Shape{d[0], d[i + 1]} : Shape{d[i + 1], d[0]});
          for (const Format& f : formats())
            inputs[i].push_back(
                input(shapes[i].rows, shapes[i].cols, f, seed + d[0] + 10 * i + d[i + 1], dt));
        }
        const size_t nf = formats().size();
        for (size_t fa = 0; fa < nf; ++fa)
          for (size_t fb = 0; fb < nf; ++fb)
            for (size_t fc = 0; fc < nf; ++fc) {
              const size_t fs[3] = {fa, fb, fc};
              std::string label = op;
              bool csr = !cbind;
              for (int i = 0; i < 3; ++i) {
                const MatrixBlock& m = inputs[i][fs[i]];
                csr = csr && nonempty_csr(m);
                env.bind(std::string(1, static_cast<char>('A' + i)), m);
                label += " " +
                         describe(i == 0 ? "A" : (i == 1 ? "B" : "C"), shapes[i], formats()[fs[i]]);
              }
              check_vs_cpu(env, dt, op, "A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°OUT", label,
                           csr ? 1 : -1);
            }
      }
    // One input, and the same variable three times.
    for (const Format& f : formats()) {
      env.bind("A", input(9, 4, f, seed, dt));
      for (const char* op : {"cbind", "rbind"}) {
        check_vs_cpu(env, dt, op, "A·MATRIX·FP64°OUT",
                     std::string(op) + " of one input A(9x4 " + f.name + ")");
        check_vs_cpu(env, dt, op, "A·MATRIX·FP64°A·MATRIX·FP64°A·MATRIX·FP64°OUT",
                     std::string(op) + " A,A,A (9x4 " + f.name + ")");
      }
    }
  }
}

TEST_CASE("gpu append errors are the CPU's", "[gpu][append]") {
  GpuEnv env;
  for (bool sparse : {false, true}) {
    env.bind("A", test::random_block(3, 4, 0.5, 1, -1, 1, sparse));
    env.bind("B", test::random_block(2, 5, 0.5, 2, -1, 1, sparse));
    for (const std::string& fields :
         {std::string("A·MATRIX·FP64°B·MATRIX·FP64°4·SCALAR·INT64·true°OUT°true"),
          std::string("A·MATRIX·FP64°B·MATRIX·FP64°4·SCALAR·INT64·true°OUT°false")}) {
      INFO((sparse ? "sparse" : "dense"));
      check_same_error(env, "append", fields);
    }
    for (const char* op : {"cbind", "rbind"}) {
      INFO((sparse ? "sparse" : "dense"));
      check_same_error(env, op, "A·MATRIX·FP64°A·MATRIX·FP64°B·MATRIX·FP64°OUT");
    }
  }
  REQUIRE_THROWS_WITH(env.run("GPU°cbind°A·MATRIX·FP64°B·MATRIX·FP64°G·MATRIX·FP64"),
                      "cbind: row counts differ: input 1 is 3x4, input 2 is 2x5");
}
