// The CHECK family for CUDA runtime calls (STYLE.md 3): file:line, the call as written, and context
// built only on failure. Library-specific checks (cuBLAS, cuSPARSE, cuDNN) join this file as
// their backends arrive.
#pragma once

#ifdef DMLRT_WITH_CUDA
#include <cuda_runtime_api.h>

#include <sstream>

#include "gpu_context/error.h"

namespace dmlrt {

using CudaError = LibraryError<cudaError_t>;

namespace gpu::detail {
[[noreturn]] inline void throw_cuda(cudaError_t st, const char* call, const char* file, int line,
                                    const std::string& ctx) {
  std::ostringstream os;
  os << file << ":" << line << ": " << call << " failed: " << cudaGetErrorName(st) << " ("
     << cudaGetErrorString(st) << ")";
  if (!ctx.empty()) os << " [" << ctx << "]";
  throw CudaError(os.str(), st);
}
}  // namespace gpu::detail

}  // namespace dmlrt

#define DMLRT_CUDA_CHECK_CTX(call, ctx_stream)                                        \
  do {                                                                                \
    const cudaError_t dmlrt_st_ = (call);                                             \
    if (dmlrt_st_ != cudaSuccess) {                                                   \
      std::ostringstream dmlrt_ctx_;                                                  \
      dmlrt_ctx_ << ctx_stream;                                                       \
      ::dmlrt::gpu::detail::throw_cuda(dmlrt_st_, #call, __FILE__, __LINE__, dmlrt_ctx_.str()); \
    }                                                                                 \
  } while (0)

#define DMLRT_CUDA_CHECK(call) DMLRT_CUDA_CHECK_CTX(call, "")

#endif  // DMLRT_WITH_CUDA
