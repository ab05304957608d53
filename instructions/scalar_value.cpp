// ScalarValue conversions and Java-compatible double formatting.
#include "instructions/scalar_value.h"

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>

#include "gpu_context/error.h"
#include "kernels/cpu/java_format.h"

namespace dmlrt::inst {
namespace {

bool parse_double_text(const std::string& text, double* out) {
  if (text.empty()) return false;
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(begin, &end);
  if (end == begin || *end != '\0') {
    // Java spellings that strtod does not take as is.
    if (text == "Infinity" || text == "+Infinity")
      v = std::numeric_limits<double>::infinity();
    else if (text == "-Infinity")
      v = -std::numeric_limits<double>::infinity();
    else if (text == "NaN")
      v = std::numeric_limits<double>::quiet_NaN();
    else
      return false;
  }
  *out = v;
  return true;
}

int64_t java_long_cast(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

}  // namespace

// Note [Deferred scalars]
// A full aggregate on the GPU (sum, sum of squares, ...) whose result is a scalar used to read it
// back at once: the host waited for the device in the middle of the block, which also ended a
// CUDA graph capture there (Note [CUDA graphs] in runtime/cuda_graphs.cpp). The LeNet step
// reads five such scalars (the loss and four L2 terms) only to add them up and print the sum at
// the end of the step. Inside a DeferScope (opened by the graph runner for each instruction list
// it runs) such an instruction queues an asynchronous copy of the element into a pinned host
// slot and binds a deferred scalar: FP64 now, its value once the stream has passed the copy.
// Scalar binary and n-ary operations whose result type follows from their operands' types and
// that cannot fail (arithmetic in double, comparisons, string concatenation) give deferred
// results when an operand is deferred; everything else (a print, a predicate, a literal check, a
// kernel's scalar parameter) converts the value, which waits for the copy then (through
// gpu::before_host_sync, so a capture ends or a replay launches there, as for any host read).
// The scope computes its scalars when it closes, before a nested scope opens and before PARFOR or
// paramserv start worker threads (DeferScope::finish_all): a slot is never rewritten (by the next
// replay of the same graph) while a scalar still waits for it, no worker waits on another
// session's stream, and no scalar outlives its GPU session unread. Values are those of the immediate read: the same
// element, copied after the same kernels in stream order.
struct ScalarValue::Deferred {
  std::once_flag once;
  std::function<ScalarValue()> compute;
  ScalarValue value;
  std::exception_ptr error;
  std::atomic<bool> done{false};
};

ScalarValue ScalarValue::deferred(ValueType type, std::function<ScalarValue()> compute) {
  ScalarValue s;
  s.type_ = type;
  s.deferred_ = std::make_shared<Deferred>();
  s.deferred_->compute = std::move(compute);
  return s;
}

bool ScalarValue::is_deferred() const {
  return deferred_ != nullptr && !deferred_->done.load(std::memory_order_acquire);
}

const ScalarValue& ScalarValue::resolved() const {
  Deferred& d = *deferred_;
  std::call_once(d.once, [&d] {
    try {
      d.value = d.compute();
    } catch (...) {
      d.error = std::current_exception();
    }
    d.compute = nullptr;  // releases what it held (a pinned slot, operands)
    d.done.store(true, std::memory_order_release);
  });
  if (d.error) std::rethrow_exception(d.error);
  return d.value;
}

namespace {
thread_local DeferScope* t_defer_scope = nullptr;
}  // namespace

DeferScope::DeferScope(const void* owner) : owner_(owner), outer_(t_defer_scope) {
  if (outer_ != nullptr) outer_->finish();
  t_defer_scope = this;
}

DeferScope::~DeferScope() {
  t_defer_scope = outer_;
  try {
    finish();
  } catch (...) {  // unwinding already, or the error stays with the scalar for its reader
  }
}

DeferScope* DeferScope::active(const void* owner) {
  DeferScope* s = t_defer_scope;
  return s != nullptr && s->owner_ == owner ? s : nullptr;
}

void DeferScope::finish_all() {
  for (DeferScope* s = t_defer_scope; s != nullptr; s = s->outer_) s->finish();
}

void DeferScope::finish() {
  std::vector<ScalarValue> pending;
  pending.swap(pending_);
  for (const ScalarValue& v : pending) v.resolve();
}

ScalarValue ScalarValue::fp64(double v) {
  ScalarValue s;
  s.type_ = ValueType::kFP64;
  s.d_ = v;
  return s;
}

ScalarValue ScalarValue::int64(int64_t v) {
  ScalarValue s;
  s.type_ = ValueType::kINT64;
  s.i_ = v;
  return s;
}

ScalarValue ScalarValue::boolean(bool v) {
  ScalarValue s;
  s.type_ = ValueType::kBoolean;
  s.b_ = v;
  return s;
}

ScalarValue ScalarValue::string(std::string v) {
  ScalarValue s;
  s.type_ = ValueType::kString;
  s.s_ = std::move(v);
  return s;
}

ScalarValue ScalarValue::from_literal(const std::string& text, ValueType vt) {
  switch (vt) {
    case ValueType::kString:
      return string(text);
    case ValueType::kBoolean:
      if (text == "true" || text == "TRUE") return boolean(true);
      if (text == "false" || text == "FALSE") return boolean(false);
      DMLRT_FAIL(ParseError, "'" << text << "' is not a BOOLEAN literal");
    case ValueType::kINT64:
    case ValueType::kINT32: {
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (!text.empty() && *end == '\0' && errno == 0) return int64(v);
      // An integer beyond int64 is an error, not a silent 2^63-1 (SystemDS's parser rejects it
      // too: Long.parseLong throws).
      DMLRT_REQUIRE(!(!text.empty() && *end == '\0' && errno == ERANGE), ParseError,
                    "integer literal '" << text << "' is out of the INT64 range [" << INT64_MIN
                                        << ", " << INT64_MAX << "]");
      // SystemDS sometimes prints integral doubles for INT64 literals ("3.0").
      double d = 0;
      if (parse_double_text(text, &d) && std::floor(d) == d) {
        DMLRT_REQUIRE(d >= -9.2233720368547758e18 && d < 9.2233720368547758e18, ParseError,
                      "integer literal '" << text << "' is out of the INT64 range [" << INT64_MIN
                                          << ", " << INT64_MAX << "]");
        return int64(java_long_cast(d));
      }
      DMLRT_FAIL(ParseError, "'" << text << "' is not an INT64 literal");
    }
    case ValueType::kFP64:
    case ValueType::kFP32:
    case ValueType::kUnknown: {
      double d = 0;
      if (parse_double_text(text, &d)) return fp64(d);
      DMLRT_FAIL(ParseError, "'" << text << "' is not an FP64 literal");
    }
  }
  DMLRT_FAIL(ParseError, "bad literal '" << text << "'");
}

double ScalarValue::to_double() const {
  if (deferred_) return resolved().to_double();
  switch (type_) {
    case ValueType::kINT64:
    case ValueType::kINT32:
      return static_cast<double>(i_);
    case ValueType::kBoolean:
      return b_ ? 1.0 : 0.0;
    case ValueType::kString: {
      double d = 0;
      DMLRT_REQUIRE(parse_double_text(s_, &d), RuntimeError,
                    "cannot convert string '" << s_ << "' to a number");
      return d;
    }
    default:
      return d_;
  }
}

int64_t ScalarValue::to_int() const {
  if (deferred_) return resolved().to_int();
  switch (type_) {
    case ValueType::kINT64:
    case ValueType::kINT32:
      return i_;
    case ValueType::kBoolean:
      return b_ ? 1 : 0;
    case ValueType::kString:
      return from_literal(s_, ValueType::kINT64).i_;
    default:
      return java_long_cast(d_);
  }
}

bool ScalarValue::to_bool() const {
  if (deferred_) return resolved().to_bool();
  switch (type_) {
    case ValueType::kINT64:
    case ValueType::kINT32:
      return i_ != 0;
    case ValueType::kBoolean:
      return b_;
    case ValueType::kString:
      if (s_ == "true" || s_ == "TRUE") return true;
      if (s_ == "false" || s_ == "FALSE") return false;
      DMLRT_FAIL(RuntimeError, "cannot convert string '" << s_ << "' to a boolean");
    default:
      return d_ != 0.0;
  }
}

std::string ScalarValue::to_string() const {
  if (deferred_) return resolved().to_string();
  switch (type_) {
    case ValueType::kINT64:
    case ValueType::kINT32:
      return std::to_string(i_);
    case ValueType::kBoolean:
      return b_ ? "TRUE" : "FALSE";
    case ValueType::kString:
      return s_;
    default:
      return format_double_java(d_);
  }
}

ScalarValue ScalarValue::cast_to(ValueType vt) const {
  if (deferred_) {  // the same type (FP32/INT32 are held as FP64/INT64) stays deferred
    const bool same = vt == type_ || vt == ValueType::kUnknown ||
                      (vt == ValueType::kFP32 && type_ == ValueType::kFP64) ||
                      (vt == ValueType::kINT32 && type_ == ValueType::kINT64);
    return same ? *this : resolved().cast_to(vt);
  }
  switch (vt) {
    case ValueType::kFP64:
    case ValueType::kFP32:
      return type_ == ValueType::kFP64 ? *this : fp64(to_double());
    case ValueType::kINT64:
    case ValueType::kINT32:
      return type_ == ValueType::kINT64 ? *this : int64(to_int());
    case ValueType::kBoolean:
      return boolean(to_bool());
    case ValueType::kString:
      return string(to_string());
    case ValueType::kUnknown:
      return *this;
  }
  return *this;
}

std::string format_double_java(double v) { return kernels::java_double_string(v); }

}  // namespace dmlrt::inst
