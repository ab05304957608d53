// The one CHECK macro for CUDA and its libraries (STYLE.md 3): DMLRT_CHECK(call) and
// DMLRT_CHECK_CTX(call, ctx) carry file:line, the call as written and context built only on
// failure, and throw the typed LibraryError<Status> of the call's status type. The status type
// picks the overload of check_ok/throw_status: cudaError_t here, the libraries' (cuBLAS,
// cuSPARSE, cuSOLVER, cuDNN) in gpu_context/library_check.h.
#pragma once

#ifdef DMLRT_WITH_CUDA
#include <cuda_runtime_api.h>

#include <sstream>

#include "gpu_context/error.h"

namespace dmlrt {

using CudaError = LibraryError<cudaError_t>;

namespace gpu::detail {
inline bool check_ok(cudaError_t st) { return st == cudaSuccess; }
[[noreturn]] inline void throw_status(cudaError_t st, const char* call, const char* file, int line,
                                      const std::string& ctx) {
  std::ostringstream os;
  os << file << ":" << line << ": " << call << " failed: " << cudaGetErrorName(st) << " ("
     << cudaGetErrorString(st) << ")";
  if (!ctx.empty()) os << " [" << ctx << "]";
  throw CudaError(os.str(), st);
}
}  // namespace gpu::detail

}  // namespace dmlrt

#define DMLRT_CHECK_CTX(call, ctx_stream)                                                 \
  do {                                                                                    \
    const auto dmlrt_st_ = (call);                                                        \
    if (!::dmlrt::gpu::detail::check_ok(dmlrt_st_)) {                                     \
      std::ostringstream dmlrt_ctx_;                                                      \
      dmlrt_ctx_ << ctx_stream;                                                           \
      ::dmlrt::gpu::detail::throw_status(dmlrt_st_, #call, __FILE__, __LINE__,            \
                                         dmlrt_ctx_.str());                               \
    }                                                                                     \
  } while (0)

#define DMLRT_CHECK(call) DMLRT_CHECK_CTX(call, "")

#endif  // DMLRT_WITH_CUDA
