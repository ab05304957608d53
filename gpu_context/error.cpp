// Context-adding rethrow for the error hierarchy of error.h.
#include "gpu_context/error.h"

namespace dmlrt {

void rethrow_with_context(const std::exception& e, const std::string& prefix) {
  const std::string msg = prefix + e.what();
  if (dynamic_cast<const ParseError*>(&e)) throw ParseError(msg);
  if (dynamic_cast<const ShapeError*>(&e)) throw ShapeError(msg);
  if (dynamic_cast<const IoError*>(&e)) throw IoError(msg);
  if (dynamic_cast<const OutOfMemory*>(&e)) throw OutOfMemory(msg);
  if (dynamic_cast<const RuntimeError*>(&e)) throw RuntimeError(msg);
  if (dynamic_cast<const FramesNotSupported*>(&e)) throw FramesNotSupported(msg);
  if (dynamic_cast<const NotSupported*>(&e)) throw NotSupported(msg);
  if (dynamic_cast<const std::bad_alloc*>(&e)) throw OutOfMemory(msg + " (host memory)");
  throw Error(msg);
}

}  // namespace dmlrt
