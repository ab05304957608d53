// Scalar values of the DML type system (INT64, FP64, BOOLEAN, STRING) with DML's conversions and
// print formatting (Java's Double.toString for doubles, TRUE/FALSE for booleans).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "instructions/types.h"

namespace dmlrt::inst {

class ScalarValue {
 public:
  ScalarValue() = default;  // FP64 0.0
  static ScalarValue fp64(double v);
  static ScalarValue int64(int64_t v);
  static ScalarValue boolean(bool v);
  static ScalarValue string(std::string v);

  // Parses literal text of the given value type ("3", "0.5", "true", "TRUE", "abc").
  // Throws ParseError when the text is not a value of that type.
  static ScalarValue from_literal(const std::string& text, ValueType vt);

  // A value computed on first use (Note [Deferred scalars] in scalar_value.cpp): a GPU result
  // still on its way to the host, or a pure scalar operation over such values. Its type is
  // `type` now; `compute` runs once, on the first conversion below, from whichever thread gets
  // there first; an error it raises is raised again by every later conversion.
  static ScalarValue deferred(ValueType type, std::function<ScalarValue()> compute);
  bool is_deferred() const;  // deferred and not computed yet
  void resolve() const {     // computes a deferred value now (raises its error)
    if (deferred_) (void)resolved();
  }

  ValueType type() const { return type_; }
  bool is_string() const { return type_ == ValueType::kString; }

  // DML conversions. Strings convert to numbers only when they parse; booleans are 0/1.
  double to_double() const;
  int64_t to_int() const;         // doubles: Java's (long) cast (truncation, saturating; NaN -> 0)
  bool to_bool() const;           // numbers: != 0; strings: "true"/"TRUE"
  std::string to_string() const;  // as DML's print shows it

  // Value converted to `vt` (FP32 and INT32 are kept as FP64 and INT64).
  ScalarValue cast_to(ValueType vt) const;

 private:
  struct Deferred;
  const ScalarValue& resolved() const;  // the value of a deferred scalar (computes it once)

  std::shared_ptr<Deferred> deferred_;
  ValueType type_ = ValueType::kFP64;
  double d_ = 0.0;
  int64_t i_ = 0;
  bool b_ = false;
  std::string s_;
};

// Note [Deferred scalars] (scalar_value.cpp). While a DeferScope is open on a thread (the CUDA
// graph runner opens one per instruction list it runs), a GPU instruction of `owner`'s session
// may leave its scalar result deferred: the copy to the host is queued, not waited for, and the
// scalar is registered here. finish() (and the destructor, and a nested scope's start) computes
// every registered scalar, so none outlives the run of its list unread.
class DeferScope {
 public:
  explicit DeferScope(const void* owner);
  ~DeferScope();
  DeferScope(const DeferScope&) = delete;
  DeferScope& operator=(const DeferScope&) = delete;

  // The scope open on this thread for `owner`, or null.
  static DeferScope* active(const void* owner);
  // Computes what every scope open on this thread holds: before worker threads (PARFOR,
  // paramserv) start, so that none of them waits on another session's stream.
  static void finish_all();
  void add(const ScalarValue& v) { pending_.push_back(v); }
  // Computes every registered scalar (an error is raised from here).
  void finish();

 private:
  const void* owner_;
  DeferScope* outer_;
  std::vector<ScalarValue> pending_;
};

// Java's Double.toString: "3.0", "0.1", "1.0E-20", "1.2345678E7", "NaN", "Infinity".
std::string format_double_java(double v);

}  // namespace dmlrt::inst
