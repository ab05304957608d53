// The typed error hierarchy of dmlrt. Every failure is one of these exceptions; the library never
// exits or aborts, and the CLI maps them to exit codes (see runtime/cli).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace dmlrt {

// The base class is also the public API's exception (runtime/include/dmlrt/error.h defines it token
// for token under the same guard), so API users catch every dmlrt error as dmlrt::Error.
#ifndef DMLRT_ERROR_BASE_DEFINED
#define DMLRT_ERROR_BASE_DEFINED
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};
#endif

// Malformed plan text, bad operands, unknown opcodes, bad options.
class ParseError : public Error {
 public:
  using Error::Error;
};

// Operand shapes that do not fit an operation.
class ShapeError : public Error {
 public:
  using Error::Error;
};

// Unreadable, missing or corrupt files; failed writes.
class IoError : public Error {
 public:
  using Error::Error;
};

// A device or host allocation that cannot be satisfied, even after eviction.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

// A run-time failure of the program itself: stop(), a failed assert, a bad value.
class RuntimeError : public Error {
 public:
  using Error::Error;
};

// An op or option that the chosen backend does not implement.
class NotSupported : public Error {
 public:
  using Error::Error;
};

// A frame operand, variable or instruction: frames are a later issue. The plan parser turns such a
// line into one that fails when it runs (Note [Frames in plans], runtime/plan_parser.cpp).
class FramesNotSupported : public NotSupported {
 public:
  using NotSupported::NotSupported;
};

// A failed call into CUDA or one of its libraries; Status is the library's status enum.
template <typename Status>
class LibraryError : public Error {
 public:
  LibraryError(const std::string& msg, Status status) : Error(msg), status_(status) {}
  Status status() const { return status_; }

 private:
  Status status_;
};

// Re-throws `e` as the same dynamic type with `prefix` put in front of its message. Used to add the
// plan file, line and instruction to errors raised deep inside an op.
[[noreturn]] void rethrow_with_context(const std::exception& e, const std::string& prefix);

}  // namespace dmlrt

// Builds a message with stream syntax only when it is needed: DMLRT_FAIL(ShapeError, "a " << x).
#define DMLRT_FAIL(ErrorType, stream_expr)   \
  do {                                       \
    std::ostringstream dmlrt_fail_os_;       \
    dmlrt_fail_os_ << stream_expr;           \
    throw ErrorType(dmlrt_fail_os_.str());   \
  } while (0)

#define DMLRT_REQUIRE(cond, ErrorType, stream_expr) \
  do {                                              \
    if (!(cond)) DMLRT_FAIL(ErrorType, stream_expr); \
  } while (0)
