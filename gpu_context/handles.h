// UniqueHandle<Raw, Destroy>: the one typed, move-only owner of every library handle and
// descriptor (STYLE.md 5). The owner is created together with the resource it owns, so nothing
// leaks when the next call throws. Host-clean: it names no CUDA type itself.
#pragma once

#include <utility>

namespace dmlrt::gpu {

// Destroy is a function object type, e.g. struct { void operator()(cublasHandle_t h) const; }.
// Destroy functions never throw (a failed destroy during unwinding cannot be reported).
template <typename Raw, typename Destroy>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  explicit UniqueHandle(Raw raw) : raw_(raw) {}
  ~UniqueHandle() { reset(); }
  UniqueHandle(UniqueHandle&& other) noexcept : raw_(std::exchange(other.raw_, Raw{})) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) {
      reset();
      raw_ = std::exchange(other.raw_, Raw{});
    }
    return *this;
  }
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;

  Raw get() const { return raw_; }
  explicit operator bool() const { return raw_ != Raw{}; }
  void reset() {
    if (raw_ != Raw{}) Destroy{}(std::exchange(raw_, Raw{}));
  }
  Raw release() { return std::exchange(raw_, Raw{}); }

 private:
  Raw raw_{};
};

}  // namespace dmlrt::gpu
