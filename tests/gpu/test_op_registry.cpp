// The backend-vs-reference runner of op_registry.h: every sample at every test size, format and
// device precision runs its GPU line on a GPU session and its CP line on the CPU backend (a
// context without a device) and the outputs are compared. Also: every opcode the opcode table
// marks `gpu` has samples, and every sample names a table opcode marked `gpu`.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "op_registry.h"

using namespace dmlrt;
using namespace dmlrt::test::gpu;

namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// `m` with about `fraction` of its nonzero cells set to NaN, +Inf and -Inf in turn (a fixed
// hash of the cell index picks them), in m's format.
MatrixBlock with_specials(const MatrixBlock& m, double fraction) {
  std::vector<double> v = m.to_dense().dense_values();
  const double special[] = {std::nan(""), HUGE_VAL, -HUGE_VAL};
  size_t next = 0;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != 0 && static_cast<double>((i * 2654435761u) % 1000) < fraction * 1000)
      v[i] = special[next++ % 3];
  MatrixBlock out = MatrixBlock::dense(m.rows(), m.cols(), std::move(v));
  return m.is_sparse() ? out.to_sparse() : out;
}

// Input i of a case: uniform in [lo, hi] in format f (a dense full block when not formatted);
// `dominant` adds rows + 1 to the diagonal before the format is applied; rounded through float
// for an FP32 device, so that both backends see the same values.
MatrixBlock make_input(const OpInput& in, const Format& f, uint64_t seed, mem::DType dt) {
  const double sparsity = in.formatted ? f.sparsity : 1.0;
  const bool sparse = in.formatted && f.sparse;
  MatrixBlock m;
  if (in.dominant || in.symmetric) {
    MatrixBlock r = test::random_block(in.rows, in.cols, sparsity, seed, in.lo, in.hi, false);
    std::vector<double> v = r.to_dense().dense_values();
    if (in.symmetric)
      for (int64_t i = 0; i < in.rows; ++i)
        for (int64_t j = 0; j < i; ++j)
          v[static_cast<size_t>(i * in.cols + j)] = v[static_cast<size_t>(j * in.cols + i)];
    for (int64_t i = 0; in.dominant && i < std::min(in.rows, in.cols); ++i)
      v[static_cast<size_t>(i * in.cols + i)] += static_cast<double>(in.rows + 1);
    m = MatrixBlock::dense(in.rows, in.cols, std::move(v));
    if (sparse) m = m.to_sparse();
  } else {
    m = test::random_block(in.rows, in.cols, sparsity, seed, in.lo, in.hi, sparse);
  }
  if (in.specials > 0) m = with_specials(m, in.specials);
  return dt == mem::DType::kFloat32 ? rounded_f32(m) : m;
}

double rms(const MatrixBlock& m) {
  const std::vector<double> v = m.to_dense().dense_values();
  double sq = 0;
  for (double x : v) sq += x * x;
  return v.empty() ? 0.0 : std::sqrt(sq / static_cast<double>(v.size()));
}

template <typename Env>
MatrixBlock result(Env& env, inst::ExecutionContext& ec, const OpOutput& o) {
  if (o.scalar) return MatrixBlock::dense(1, 1, ec.scalar(o.name).to_double());
  return env.host(o.name);
}

// Runs one case on both backends and compares every output. CHECKs, so one run reports every
// failing case.
void check_case(GpuEnv& g, CpuEnv& c, const OpCase& k, mem::DType dt) {
  INFO("gpu line: " << k.gpu_line << "\n  cpu line: " << k.cpu_line);
  std::vector<MatrixBlock> ref;
  try {
    c.run(k.cpu_line);
    for (const std::string& l : k.then) c.run(l);
    for (const OpOutput& o : k.outputs) ref.push_back(result(c, c.ec, o));
  } catch (const std::exception& e) {
    FAIL_CHECK("CPU reference threw: " << e.what());
    return;
  }
  try {
    const bool on_gpu = g.run(k.gpu_line);
    CHECK(on_gpu);
    if (!on_gpu) return;
    for (const std::string& l : k.then) g.run(l);
    const OpTol& t = dt == mem::DType::kFloat64 ? k.tol64 : k.tol32;
    for (size_t i = 0; i < k.outputs.size(); ++i) {
      const MatrixBlock want =
          k.round_reference && dt == mem::DType::kFloat32 ? rounded_f32(ref[i]) : ref[i];
      const double abs = t.rms ? t.abs * (1 + rms(want)) : t.abs;
      const auto cmp = test::compare(result(g, *g.ec, k.outputs[i]), want, abs, t.rel);
      INFO("output " << k.outputs[i].name << ": " << cmp.report
                     << " max_abs_err=" << cmp.max_abs_err << " atol=" << abs);
      CHECK(cmp.ok);
    }
  } catch (const std::exception& e) {
    FAIL_CHECK("GPU run threw: " << e.what());
  }
}

// Every sample of `family` at every test size, format and precision.
void run_family(OpFamily family, const char* what) {
  for (mem::DType dt : {mem::DType::kFloat64, mem::DType::kFloat32}) {
    // One session per precision (inputs are rebound per case); the cuDNN algorithm cache in
    // memory only.
    mem::GpuSessionOptions o = GpuEnv::options(dt);
    o.cudnn_cache_dir = "none";
    GpuEnv g(o);
    CpuEnv c;
    for (const OpSample& s : op_samples()) {
      if (s.family != family) continue;
      const uint64_t seed = test::seed_from(s.name);
      for (const auto& [rows, cols] : op_test_sizes()) {
        const OpCase k = s.make(rows, cols);
        if (dt == mem::DType::kFloat32 && !k.fp32) continue;
        for (size_t fi = 0; fi < formats().size(); ++fi) {
          const Format& f = formats()[fi];
          if (f.sparsity == 0.0 ? !s.empty : (f.sparse && !s.sparse)) continue;
          bool formatted = false;
          for (const OpInput& in : k.inputs) formatted |= in.formatted;
          if (fi > 0 && !formatted) continue;  // the format changes nothing
          INFO(what << " sample '" << s.name << "' (" << s.opcode << ") at " << rows << "x" << cols
                    << " " << f.name << " " << prec_name(dt));
          for (size_t i = 0; i < k.inputs.size(); ++i) {
            const MatrixBlock m =
                make_input(k.inputs[i], f, seed + rows * 1009 + cols * 31 + i, dt);
            g.bind(k.inputs[i].name, m);
            c.bind(k.inputs[i].name, m);
          }
          for (const OpScalar& sc : k.scalars) {
            g.ec->set_scalar(sc.name, inst::ScalarValue::fp64(sc.value));
            c.ec.set_scalar(sc.name, inst::ScalarValue::fp64(sc.value));
          }
          check_case(g, c, k, dt);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("op registry: every GPU-capable opcode has samples, every sample a GPU opcode",
          "[gpu][registry]") {
  std::set<std::string> sampled, names;
  for (const OpSample& s : op_samples()) {
    const std::string op = lower(s.opcode);
    sampled.insert(op);
    INFO("sample '" << s.name << "' (" << s.opcode << ")");
    CHECK(names.insert(s.name).second);  // names are unique: the bench keys cases by them
    const inst::OpcodeEntry* e = inst::find_opcode(op);
    CHECK(e != nullptr);              // not an opcode of the table
    if (e != nullptr) CHECK(e->gpu);  // the table does not mark it GPU-capable
  }
  std::vector<std::string> missing;
  for (const inst::OpcodeEntry& e : inst::opcode_table())
    if (e.gpu && sampled.count(e.opcode) == 0) missing.push_back(e.opcode);
  std::ostringstream os;
  for (const std::string& m : missing) os << " " << m;
  INFO("GPU-capable opcodes without samples in tests/gpu/op_registry.cpp:" << os.str());
  CHECK(missing.empty());
}

TEST_CASE("op registry: cell-wise binary ops match the CPU", "[gpu][registry]") {
  run_family(OpFamily::kBinary, "binary");
}
TEST_CASE("op registry: unary ops match the CPU", "[gpu][registry]") {
  run_family(OpFamily::kUnary, "unary");
}
TEST_CASE("op registry: ternary ops match the CPU", "[gpu][registry]") {
  run_family(OpFamily::kTernary, "ternary");
}
TEST_CASE("op registry: aggregates match the CPU", "[gpu][registry]") {
  run_family(OpFamily::kAggregate, "aggregate");
}
TEST_CASE("op registry: reorg ops match the CPU", "[gpu][registry]") {
  run_family(OpFamily::kReorg, "reorg");
}
TEST_CASE("op registry: indexing matches the CPU", "[gpu][registry]") {
  run_family(OpFamily::kIndexing, "indexing");
}
TEST_CASE("op registry: append matches the CPU", "[gpu][registry]") {
  run_family(OpFamily::kAppend, "append");
}
TEST_CASE("op registry: matrix multiply matches the CPU", "[gpu][registry]") {
  run_family(OpFamily::kMatmult, "matmult");
}
TEST_CASE("op registry: solve matches the CPU", "[gpu][registry]") {
  run_family(OpFamily::kSolve, "solve");
}
TEST_CASE("op registry: cuSOLVER factorisations match the CPU", "[gpu][registry]") {
  run_family(OpFamily::kFactor, "factor");
}
TEST_CASE("op registry: cuFFT transforms match the CPU", "[gpu][registry]") {
  run_family(OpFamily::kFft, "fft");
}
TEST_CASE("op registry: rand and seq match the CPU", "[gpu][registry]") {
  run_family(OpFamily::kDataGen, "datagen");
}
TEST_CASE("op registry: DNN ops match the CPU", "[gpu][registry]") {
  run_family(OpFamily::kDnn, "dnn");
}
