// einsum on the GPU (kernels/cuda/einsum.cu) against the CPU beyond the op registry's samples:
// every equation form (products, transposes, diagonal, row/column sums, outer product, 3-operand
// chains, scalar outputs) on 1x1, odd and empty shapes in every input format and both
// precisions; FP64 equal to the CPU bit for bit (Note [GPU einsum order]); equations past the
// kernel's limits run on the CPU; bad shapes and equations fail with the CPU's messages.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_util.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

struct Shape {
  int64_t rows, cols;
};

// A dim r * rows + c * cols + k of a test size (rows, cols).
struct Dim {
  int64_t r, c, k;
  int64_t at(const Shape& s) const { return r * s.rows + c * s.cols + k; }
};
const Dim R{1, 0, 0}, C{0, 1, 0};
Dim n(int64_t k) { return {0, 0, k}; }
Dim rows_plus(int64_t k) { return {1, 0, k}; }

// An equation and its operands' dims.
struct Eq {
  const char* eq;
  std::vector<std::pair<Dim, Dim>> dims;
};

const std::vector<Eq>& equations() {
  static const std::vector<Eq> eqs = {
      {"ij,jk->ik", {{R, C}, {C, rows_plus(2)}}},
      {"ji,jk->ik", {{C, R}, {C, n(3)}}},
      {"ij,kj->ik", {{R, C}, {rows_plus(1), C}}},
      {"ij,jk->ki", {{R, C}, {C, n(2)}}},
      {"ij->ji", {{R, C}}},
      {"ii->i", {{R, R}}},
      {"ii->", {{R, R}}},
      {"ij->i", {{R, C}}},
      {"ij->j", {{R, C}}},
      {"ij,ij->ij", {{R, C}, {R, C}}},
      {"ij,j->i", {{R, C}, {C, n(1)}}},
      {"i,ij->j", {{n(1), R}, {R, C}}},
      {"i,j->ij", {{R, n(1)}, {n(1), C}}},
      {"ij,jk,kl->il", {{R, C}, {C, C}, {C, n(2)}}},
      {"ij,jk,ik->ij", {{R, C}, {C, n(3)}, {R, n(3)}}},
      {"ij,jk,kl,lm->im", {{R, C}, {C, n(2)}, {n(2), n(3)}, {n(3), R}}},
      {"ij->", {{R, C}}},
      {"ij,ij->", {{R, C}, {R, C}}},
      {"i,i->", {{R, n(1)}, {n(1), R}}},
  };
  return eqs;
}

const char* kNames[] = {"A", "B", "C", "D", "E"};

// The einsum line's fields: equation, operands A, B, ... and the output `out`.
std::string fields_of(const std::string& eq, size_t operands, const std::string& out) {
  std::string f = eq + "·SCALAR·STRING·true";
  for (size_t k = 0; k < operands; ++k) f += std::string("°") + kNames[k] + "·MATRIX·FP64";
  return f + "°" + out;
}

// Runs `eq` on the bound operands on the CPU and on the GPU; checks it ran on the GPU (or not,
// `on_gpu`) and compares (bit for bit when `exact`).
void check_eq(GpuEnv& env, mem::DType dt, const std::string& eq, size_t operands,
              const std::string& label, bool exact = false, bool on_gpu = true) {
  INFO(label << " " << prec_name(dt));
  const bool scalar = eq.back() == '>';
  try {
    if (scalar) {
      env.run("CP°einsum°" + fields_of(eq, operands, "sR·SCALAR·FP64"));
      CHECK(env.run("GPU°einsum°" + fields_of(eq, operands, "sG·SCALAR·FP64")) == on_gpu);
      const double r = env.ec->scalar("sR").to_double(), g = env.ec->scalar("sG").to_double();
      if (exact)
        CHECK(g == r);
      else
        CHECK(g == Approx(r).epsilon(tol_of(dt)).margin(tol_of(dt)));
      return;
    }
    env.run("CP°einsum°" + fields_of(eq, operands, "R·MATRIX·FP64"));
    CHECK(env.run("GPU°einsum°" + fields_of(eq, operands, "G·MATRIX·FP64")) == on_gpu);
    const auto cmp = exact ? test::compare_bits(env.host("G"), env.host("R"))
                           : test::compare(env.host("G"), env.host("R"), tol_of(dt), tol_of(dt));
    INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
    CHECK(cmp.ok);
  } catch (const std::exception& e) {
    FAIL_CHECK("threw: " << e.what());
  }
}

}  // namespace

TEST_CASE("gpu einsum matches the CPU on every form, shape and format", "[gpu][einsum]") {
  const uint64_t seed = test::seed_from("gpu einsum");
  const std::vector<Shape> sizes = {{1, 1}, {7, 5}, {37, 23}, {0, 3}, {4, 0}};
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    for (const Eq& e : equations())
      for (const Shape& s : sizes)
        for (const Format& f : formats()) {
          std::vector<Shape> shapes;
          for (const auto& [dr, dc] : e.dims) shapes.push_back({dr.at(s), dc.at(s)});
          std::string label = std::string(e.eq) + " " + f.name;
          for (size_t k = 0; k < shapes.size(); ++k) {
            // The first operand takes the format, the others alternate it with dense.
            const Format& fk = k % 2 == 0 ? f : formats()[0];
            env.bind(kNames[k], input(shapes[k].rows, shapes[k].cols, fk,
                                      seed + 31 * k + s.rows * 7 + s.cols, dt));
            label += " " + std::string(kNames[k]) + " " + std::to_string(shapes[k].rows) + "x" +
                     std::to_string(shapes[k].cols);
          }
          check_eq(env, dt, e.eq, shapes.size(), label, dt == mem::DType::kFloat64);
        }
  }
}

TEST_CASE("gpu einsum on larger operands matches the CPU", "[gpu][einsum]") {
  const uint64_t seed = test::seed_from("gpu einsum larger");
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    GpuEnv env(dt);
    // 300 x 257 %*% 257 x 301: more output cells than one block, odd sizes.
    env.bind("A", input(300, 257, formats()[0], seed, dt));
    env.bind("B", input(257, 301, formats()[1], seed + 1, dt));
    check_eq(env, dt, "ij,jk->ik", 2, "ij,jk->ik 300x257 257x301", dt == mem::DType::kFloat64);
    check_eq(env, dt, "ij->", 1, "ij-> 300x257", dt == mem::DType::kFloat64);
    check_eq(env, dt, "ij->j", 1, "ij->j 300x257", dt == mem::DType::kFloat64);
  }
}

TEST_CASE("gpu einsum leaves equations past the kernel's limits to the CPU", "[gpu][einsum]") {
  GpuEnv env;
  const uint64_t seed = test::seed_from("gpu einsum limits");
  for (size_t k = 0; k < 5; ++k)
    env.bind(kNames[k], input(3, 3, formats()[0], seed + k, mem::DType::kFloat64));
  // Five operands (kEinsumMaxOperands is 4): the CPU runs it, with the same result.
  check_eq(env, mem::DType::kFloat64, "ij,jk,kl,lm,mn->in", 5, "five operands", true, false);
}

TEST_CASE("gpu einsum fails with the CPU's messages", "[gpu][einsum]") {
  GpuEnv env;
  env.bind("A", MatrixBlock::dense(2, 3, 1.0));
  env.bind("B", MatrixBlock::dense(2, 3, 1.0));
  // Shapes: checked in the GPU run by the CPU kernel's layout.
  check_same_error(env, "einsum", fields_of("ij,jk->ik", 2, "OUT"));
  check_same_error(env, "einsum", fields_of("i,ij->j", 2, "OUT"));
  // Bad equations and a wrong output kind: gpu_applicable leaves them to run_cpu.
  check_same_error(env, "einsum", fields_of("ij,jk->ik", 1, "OUT"));
  check_same_error(env, "einsum", fields_of("ij->ik", 1, "OUT"));
  check_same_error(env, "einsum", fields_of("ij", 1, "OUT"));
  // The output kind's message names the output (R on the CPU, G on the GPU).
  CHECK_THROWS_WITH(env.run("GPU°einsum°" + fields_of("ij->", 1, "G·MATRIX·FP64")),
                    Catch::Contains("einsum: 'ij->' gives a scalar but the output G is a matrix"));
  CHECK_THROWS_WITH(env.run("GPU°einsum°" + fields_of("ij->i", 1, "G·SCALAR·FP64")),
                    Catch::Contains("einsum: 'ij->i' gives a matrix but the output G is a scalar"));
}
