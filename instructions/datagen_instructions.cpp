// Data generation instructions: parsing, the checks both runs share, and the CPU runs
// (datagen_instructions.h).
#include "instructions/datagen_instructions.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/host_memory.h"

namespace dmlrt::inst {
namespace {

// SystemDS reads dimension scalars with getLongValue(): doubles go through UtilFunctions.toLong,
// sign(x) * floor(|x| + 2^-53).
int64_t long_value(const ScalarValue& v) {
  if (v.type() != ValueType::kFP64 && v.type() != ValueType::kFP32) return v.to_int();
  const double d = v.to_double();
  DMLRT_REQUIRE(std::isfinite(d) && std::fabs(d) < 9.2e18, RuntimeError,
                "rand: invalid dimension " << format_double_java(d));
  const double s = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
  return static_cast<int64_t>(s * std::floor(std::fabs(d) + std::ldexp(1.0, -53)));
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Note [Fresh rand seeds]
// seed -1 asks for a new seed at every execution. With -seed n the k-th such draw of the process
// is splitmix64(n, k), so a CLI run is reproducible; without it, random_device and the clock. The
// counter is process-wide rather than per ExecutionContext because function calls run in fresh
// contexts: a per-context counter would give the same "fresh" matrix on every call.
uint64_t fresh_seed(int64_t base_seed) {
  static std::atomic<uint64_t> draws{0};
  const uint64_t k = draws.fetch_add(1);
  if (base_seed != -1) return splitmix64(static_cast<uint64_t>(base_seed) ^ splitmix64(k));
  std::random_device rd;
  const uint64_t hw = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  const auto t =
      static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  return splitmix64(hw ^ splitmix64(t ^ splitmix64(k)));
}

}  // namespace

RandInstruction::RandInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(10, 11);
  if (num_fields() == 10 && field(1).find(kTypeDelim) == std::string::npos)
    DMLRT_FAIL(NotSupported, where() << ": rand with a dims operand (tensor rand) is not "
                                        "supported; dmlrt generates matrices only");
  rows_ = operand(0);
  cols_ = operand(1);
  DMLRT_REQUIRE(rows_.is_scalar() && cols_.is_scalar(), ParseError,
                where() << ": rand expects scalar rows and cols operands");
  spec_.min = number(3, "min");
  spec_.max = number(4, "max");
  spec_.sparsity = number(5, "sparsity");
  const double seed = number(6, "seed");
  DMLRT_REQUIRE(seed == std::floor(seed), ParseError,
                where() << ": rand seed must be an integer, got '" << field(6) << "'");
  seed_ = static_cast<int64_t>(seed);
  std::string pdf = field(7);
  for (auto& c : pdf) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (pdf == "uniform")
    spec_.pdf = kernels::cpu::RandPdf::kUniform;
  else if (pdf == "normal")
    spec_.pdf = kernels::cpu::RandPdf::kNormal;
  else if (pdf == "poisson")
    spec_.pdf = kernels::cpu::RandPdf::kPoisson;
  else
    DMLRT_FAIL(ParseError, where() << ": rand: unsupported distribution '" << field(7)
                                   << "' (expected uniform, normal or poisson)");
  spec_.lambda = number(8, "lambda");
  out_ = operand(num_fields() - 1);
  DMLRT_REQUIRE(out_.is_matrix(), ParseError,
                where() << ": rand expects a matrix output, got " << out_.to_string());
}

double RandInstruction::number(size_t i, const char* what) const {
  const std::string& s = field(i);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  DMLRT_REQUIRE(!s.empty() && *end == '\0', ParseError,
                where() << ": rand " << what << " must be a number, got '" << s << "'");
  return v;
}

kernels::cpu::RandSpec RandInstruction::checked_spec(ExecutionContext& ec) const {
  kernels::cpu::RandSpec spec = spec_;
  spec.rows = long_value(ec.scalar(rows_));
  spec.cols = long_value(ec.scalar(cols_));
  // SystemDS: "Invalid matrix characteristics: -1x2, 1.0".
  DMLRT_REQUIRE(spec.rows >= 0 && spec.cols >= 0 && spec.sparsity >= 0.0 && spec.sparsity <= 1.0,
                RuntimeError,
                "rand: invalid matrix characteristics: " << spec.rows << "x" << spec.cols
                                                         << ", sparsity "
                                                         << format_double_java(spec.sparsity));
  DMLRT_REQUIRE(spec.pdf != kernels::cpu::RandPdf::kPoisson || spec.lambda > 0.0, RuntimeError,
                "rand: poisson lambda must be positive, got " << format_double_java(spec.lambda));
  return spec;
}

kernels::cpu::RandSpec RandInstruction::run_spec(ExecutionContext& ec) const {
  kernels::cpu::RandSpec spec = checked_spec(ec);
  spec.seed = seed_ == -1 ? fresh_seed(ec.options().seed) : static_cast<uint64_t>(seed_);
  return spec;
}

// Only the output: rand has no matrix inputs.
int64_t RandInstruction::device_bytes(ExecutionContext& ec) const {
  const kernels::cpu::RandSpec spec = checked_spec(ec);
  return dense_device_bytes(ec.options().gpu.get(), spec.rows, spec.cols);
}

void RandInstruction::run_cpu(ExecutionContext& ec) {
  ec.set_matrix(out_.name, kernels::cpu::rand_matrix(run_spec(ec)));
}

SeqInstruction::SeqInstruction(InstructionText t) : Instruction(std::move(t)) {
  // rows, cols and blen are the compile-time size (-1 when unknown); the run-time values decide.
  expect_fields(7);
  from_ = operand(3);
  to_ = operand(4);
  incr_ = operand(5);
  out_ = operand(6);
  for (const Operand* op : {&from_, &to_, &incr_})
    DMLRT_REQUIRE(
        op->is_scalar(), ParseError,
        where() << ": seq expects scalar from, to and incr operands, got " << op->to_string());
  DMLRT_REQUIRE(out_.is_matrix(), ParseError,
                where() << ": seq expects a matrix output, got " << out_.to_string());
}

SeqInstruction::Args SeqInstruction::args(ExecutionContext& ec) const {
  const double from = ec.scalar(from_).to_double();
  const double to = ec.scalar(to_).to_double();
  double incr = ec.scalar(incr_).to_double();
  // SystemDS's checks, in its order (LibMatrixDatagen.updateSeqIncr, generateSequence,
  // UtilFunctions.getSeqLength): the default increment 1 turns into -1 when from > to, so
  // seq(3, 1, 1) is 3 2 1 while seq(3, 1, 2) is an error.
  if (from > to && incr == 1.0) incr = -1.0;
  DMLRT_REQUIRE(!((from > to && incr > 0) || incr == 0.0), RuntimeError,
                "seq: wrong sequence increment: from=" << format_double_java(from)
                                                       << ", to=" << format_double_java(to)
                                                       << ", incr=" << format_double_java(incr));
  DMLRT_REQUIRE(
      std::isfinite(from) && std::isfinite(to) && std::isfinite(incr) && !(from < to && incr < 0),
      RuntimeError,
      "seq: invalid seq parameters: (" << format_double_java(from) << ", " << format_double_java(to)
                                       << ", " << format_double_java(incr) << ")");
  // The length is checked in doubles before seq_length's int64 conversion: seq(0, 1, 1e-300)
  // has 1e300 rows, which no int64 holds.
  const double count = std::floor(to / incr - from / incr) + 1.0;
  std::ostringstream what;
  what << "seq(from=" << format_double_java(from) << ", to=" << format_double_java(to)
       << ", incr=" << format_double_java(incr) << ") with " << format_double_java(count)
       << " rows";
  kernels::check_host_bytes(what.str(), "a " + format_double_java(count) + "x1 dense column",
                            8.0 * count);
  return Args{from, to, incr};
}

int64_t SeqInstruction::device_bytes(ExecutionContext& ec) const {
  const Args a = args(ec);
  return dense_device_bytes(ec.options().gpu.get(), kernels::cpu::seq_length(a.from, a.to, a.incr),
                            1);
}

void SeqInstruction::run_cpu(ExecutionContext& ec) {
  const Args a = args(ec);
  ec.set_matrix(out_.name, kernels::cpu::seq_column(a.from, a.to, a.incr));
}

}  // namespace dmlrt::inst
