// The public exception type of dmlrt's embedded API. Every failure the library reports is a
// dmlrt::Error (the internal kinds — parse, shape, I/O, out-of-memory, ... — derive from it), so
// `catch (const dmlrt::Error& e)` sees them all, with the message naming file:line and instruction.
#pragma once

#include <stdexcept>
#include <string>

// Note [One Error type]
// gpu_context/error.h defines this class token for token under the same guard: the library's
// internal hierarchy derives from the very type API users catch, and a translation unit that
// includes both headers sees one definition.
#ifndef DMLRT_ERROR_BASE_DEFINED
#define DMLRT_ERROR_BASE_DEFINED
namespace dmlrt {
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};
}  // namespace dmlrt
#endif
