// Data generation instructions: parsing, the checks both runs share, and the CPU runs
// (datagen_instructions.h).
#include "instructions/datagen_instructions.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string_view>

#include "gpu_context/error.h"
#include "gpu_context/string_util.h"
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

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Java's Double.parseDouble, strictly: surrounding characters <= ' ' trimmed, an optional sign,
// then NaN, Infinity, a decimal [digits][.digits][(e|E)[sign]digits] with at least one digit, or
// a hex 0x<hex>[.hex]p[sign]digits; either number may end in one of f F d D (the value is still
// the double). "Inf", "nan" and "1e" are not numbers. The value itself comes from strtod, which
// rounds as Java does (to nearest; overflow to Infinity, underflow to 0).
bool parse_java_double(std::string_view s, double* out) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  const std::string_view rest = s.substr(i);
  if (rest == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (rest == "Infinity") {
    *out = neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return true;
  }
  const bool hex = rest.size() >= 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X');
  if (hex) i += 2;
  auto digits = [&](bool h) {
    size_t n = 0;
    while (i < s.size() && (h ? is_hex_digit(s[i]) : is_digit(s[i]))) ++i, ++n;
    return n;
  };
  size_t n = digits(hex);
  if (i < s.size() && s[i] == '.') {
    ++i;
    n += digits(hex);
  }
  if (n == 0) return false;
  const char e = hex ? 'p' : 'e';
  if (i < s.size() && (s[i] == e || s[i] == e - 'a' + 'A')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits(false) == 0) return false;
  } else if (hex) {
    return false;  // Java requires the binary exponent of a hex number
  }
  const size_t end = i;
  if (i < s.size() && (s[i] == 'f' || s[i] == 'F' || s[i] == 'd' || s[i] == 'D')) ++i;
  if (i != s.size()) return false;
  const std::string num(s.substr(0, end));
  *out = std::strtod(num.c_str(), nullptr);
  return true;
}

// A bare size field as SystemDS's sinit reads it: Double.valueOf(s).longValue() (truncation).
int64_t sinit_size(const std::string& field, const std::string& where, const char* what) {
  double d = 0.0;
  DMLRT_REQUIRE(parse_java_double(field, &d), ParseError,
                where << ": sinit " << what << " must be a number, got '" << field << "'");
  if (std::isnan(d)) return 0;
  return static_cast<int64_t>(std::fmax(-9.2e18, std::fmin(9.2e18, d)));
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

SampleInstruction::SampleInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(6);
  double range = 0.0, seed = 0.0;
  DMLRT_REQUIRE(parse_java_double(field(0), &range) && !std::isnan(range), ParseError,
                where() << ": sample range must be a number, got '" << field(0) << "'");
  range_ = static_cast<int64_t>(std::fmax(-9.2e18, std::fmin(9.2e18, range)));  // (long) range
  size_ = operand(1);
  const std::string replace = to_lower(field(2));
  DMLRT_REQUIRE(replace == "true" || replace == "false", ParseError,
                where() << ": sample replace must be true or false, got '" << field(2) << "'");
  replace_ = replace == "true";
  DMLRT_REQUIRE(parse_java_double(field(3), &seed) && seed == std::floor(seed), ParseError,
                where() << ": sample seed must be an integer, got '" << field(3) << "'");
  seed_ = static_cast<int64_t>(seed);
  out_ = operand(5);
  DMLRT_REQUIRE(size_.is_scalar() && out_.is_matrix(), ParseError,
                where() << ": sample expects a scalar size and a matrix output");
}

int64_t SampleInstruction::checked_size(ExecutionContext& ec) const {
  const int64_t size = long_value(ec.scalar(size_));
  DMLRT_REQUIRE(size >= 0, RuntimeError, "sample: invalid sample size " << size);
  DMLRT_REQUIRE(range_ > 0 || size == 0, RuntimeError,
                "sample: invalid population size " << range_ << " for a sample of " << size);
  // SystemDS's message (LibMatrixDatagen.sample).
  DMLRT_REQUIRE(replace_ || size <= range_, RuntimeError,
                "Sample (size=" << size << ") larger than population (size=" << range_
                                << ") can only be generated with replacement.");
  return size;
}

uint64_t SampleInstruction::run_seed(ExecutionContext& ec) const {
  return seed_ == -1 ? fresh_seed(ec.options().seed) : static_cast<uint64_t>(seed_);
}

// Only the (size, 1) output: sample has no matrix inputs.
int64_t SampleInstruction::device_bytes(ExecutionContext& ec) const {
  return dense_device_bytes(ec.options().gpu.get(), checked_size(ec), 1);
}

void SampleInstruction::run_cpu(ExecutionContext& ec) {
  const int64_t size = checked_size(ec);
  ec.set_matrix(out_.name, kernels::cpu::sample_column(range_, size, replace_, run_seed(ec)));
}

StringInitInstruction::StringInitInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(5);
  rows_ = sinit_size(field(0), where(), "rows");
  cols_ = sinit_size(field(1), where(), "cols");
  out_ = operand(4);
  DMLRT_REQUIRE(out_.is_matrix(), ParseError,
                where() << ": sinit expects a matrix output, got " << out_.to_string());
  // Java's StringTokenizer on " ": runs of spaces separate, other whitespace belongs to a value.
  const std::string& data = field(3);
  size_t pos = 0;
  while (true) {
    pos = data.find_first_not_of(' ', pos);
    if (pos == std::string::npos) break;
    const size_t end = std::min(data.find(' ', pos), data.size());
    const std::string_view tok(data.data() + pos, end - pos);
    double v = 0.0;
    if (!parse_java_double(tok, &v) && value_error_.empty())
      value_error_ = "value " + std::to_string(values_.size() + 1) + " '" + std::string(tok) + "'";
    values_.push_back(v);
    pos = end;
  }
}

void StringInitInstruction::run_cpu(ExecutionContext& ec) {
  const auto n = static_cast<int64_t>(values_.size());
  // SystemDS checks the count before it parses any value; rows and cols are each at most n
  // unless the other is 0, so the product cannot overflow.
  const bool count_ok =
      rows_ >= 0 && cols_ >= 0 &&
      (rows_ == 0 || cols_ == 0 ? n == 0 : rows_ <= n && cols_ <= n && rows_ * cols_ == n);
  DMLRT_REQUIRE(count_ok, RuntimeError,
                "sinit: invalid matrix string initialization: dimensions=["
                    << rows_ << "x" << cols_ << "] vs numValues=" << n
                    << " (matrix(\"...\") needs exactly rows*cols values)");
  DMLRT_REQUIRE(value_error_.empty(), RuntimeError,
                "sinit: " << value_error_
                          << " is not a number (Java's Double.parseDouble forms, e.g. 1, -2.5e3, "
                             "NaN, Infinity)");
  kernels::MatrixBlock out = kernels::MatrixBlock::dense(rows_, cols_, values_);
  out.examine_format();
  ec.set_matrix(out_.name, std::move(out));
}

}  // namespace dmlrt::inst
