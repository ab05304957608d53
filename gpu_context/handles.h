// UniqueHandle<Raw, Destroy>: the one typed, move-only owner of every library handle and
// descriptor (STYLE.md 5). The owner is created together with the resource it owns, so nothing
// leaks when the next call throws. Host-clean: it names no CUDA type itself. Owners are made in one
// step, never created and then wrapped: by the make_* factories beside the shared aliases
// (gpu_context.h, cusparse_descriptors.h, kernels/cuda/dnn_conv.h), `auto d =
// make_tensor_descriptor();`, or, for a file-local alias, by create() below.
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
  // The owner of what make(&raw) creates. `make` calls the library's create function under
  // DMLRT_CHECK, so a failure throws naming the call before there is anything to own, and nothing
  // runs between creating and owning:
  //   UniqueTensorDesc::create([](auto* d) { DMLRT_CHECK(cudnnCreateTensorDescriptor(d)); })
  template <typename Create>
  static UniqueHandle create(Create&& make) {
    Raw raw{};
    std::forward<Create>(make)(&raw);
    return UniqueHandle(raw);
  }
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
