// One typed operand field of an instruction: name·DATATYPE·VALUETYPE[·isLiteral], split by
// SystemDS's CPOperand rules (4 parts typed with literal flag, 3 typed, 2 name·VALUETYPE,
// 1 an FP64 literal).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "instructions/types.h"

namespace dmlrt::inst {

struct Operand {
  std::string name;  // variable name, or the value itself for literals
  DataType data_type = DataType::kScalar;
  ValueType value_type = ValueType::kFP64;
  bool literal = false;

  // Throws ParseError for unknown type names or more than 4 parts.
  static Operand parse(const std::string& field);

  bool is_matrix() const { return data_type == DataType::kMatrix; }
  bool is_scalar() const { return data_type == DataType::kScalar; }
  std::string to_string() const;  // back to name·DT·VT[·lit]
};

// A matrix operand's dims as check() sees them; -1 = unknown.
struct Dims {
  int64_t rows = -1;
  int64_t cols = -1;
  bool known() const { return rows >= 0 && cols >= 0; }
};

// Where check() gets the dims of matrix operands: the execution context at run time (the inputs'
// actual dims), the plan's createvar metadata under -explain.
class Shapes {
 public:
  virtual ~Shapes() = default;
  // The dims of matrix operand `op`; {-1, -1} when unknown here.
  // Matrices not yet read from their files are read here when their metadata lacks the dims.
  virtual Dims dims(const Operand& op) = 0;
};

// The separators of the raw instruction form (UTF-8).
inline constexpr const char* kOperandDelim = "\xC2\xB0";      // ° U+00B0
inline constexpr const char* kTypeDelim = "\xC2\xB7";         // · U+00B7
inline constexpr const char* kInstructionDelim = "\xE2\x80\xA1";  // ‡ U+2021
inline constexpr const char* kPlaceholder = "\xC2\xB6";       // ¶ U+00B6

// True when `s` is a plain decimal integer ("2", "-1", "+3"): tells a trailing thread count or
// flag field from an operand.
bool is_integer_text(const std::string& s);

class ExecutionContext;

// For out-of-memory messages: the matrix operands among an instruction's `fields` that are bound
// in `ec`, with their shapes and dense sizes, and the host memory available now:
//   "operands X = 46341x46341 (17179958088 bytes (16.0 GiB) dense), ...; host memory available:
//    ... (MemAvailable)". Never throws (a failure inside gives a shorter text).
std::string out_of_memory_context(const std::vector<std::string>& fields,
                                  const ExecutionContext& ec) noexcept;

// Splits `s` on `delim`, keeping empty tokens (Java's split(delim, -1)).
std::vector<std::string> split_keep_empty(const std::string& s, const std::string& delim);

}  // namespace dmlrt::inst
