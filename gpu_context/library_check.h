// The CHECK family for the CUDA libraries (STYLE.md 3): DMLRT_CUBLAS_CHECK, DMLRT_CUSPARSE_CHECK,
// DMLRT_CUSOLVER_CHECK, DMLRT_CUDNN_CHECK (each with a _CTX variant). Like DMLRT_CUDA_CHECK they
// carry file:line, the call as written and context built only on failure, and throw the typed
// LibraryError<Status> of their library. Only files built with CUDA include this header.
#pragma once

#ifdef DMLRT_WITH_CUDA
#include <cublas_v2.h>
#include <cudnn.h>
#include <cusolverDn.h>
#include <cusparse.h>

#include <sstream>
#include <string>

#include "gpu_context/cuda_check.h"
#include "gpu_context/error.h"

namespace dmlrt {

using CublasError = LibraryError<cublasStatus_t>;
using CusparseError = LibraryError<cusparseStatus_t>;
using CusolverError = LibraryError<cusolverStatus_t>;
using CudnnError = LibraryError<cudnnStatus_t>;

namespace gpu::detail {

const char* status_name(cublasStatus_t st);
const char* status_name(cusparseStatus_t st);
const char* status_name(cusolverStatus_t st);
const char* status_name(cudnnStatus_t st);

template <typename Status>
[[noreturn]] void throw_library(Status st, const char* library, const char* call, const char* file,
                                int line, const std::string& ctx) {
  std::ostringstream os;
  os << file << ":" << line << ": " << call << " failed: " << library << " "
     << status_name(st) << " (" << static_cast<int>(st) << ")";
  if (!ctx.empty()) os << " [" << ctx << "]";
  throw LibraryError<Status>(os.str(), st);
}

}  // namespace gpu::detail
}  // namespace dmlrt

#define DMLRT_LIBRARY_CHECK_CTX_(StatusT, ok, library, call, ctx_stream)                    \
  do {                                                                                      \
    const StatusT dmlrt_lst_ = (call);                                                      \
    if (dmlrt_lst_ != (ok)) {                                                               \
      std::ostringstream dmlrt_lctx_;                                                       \
      dmlrt_lctx_ << ctx_stream;                                                            \
      ::dmlrt::gpu::detail::throw_library(dmlrt_lst_, library, #call, __FILE__, __LINE__,   \
                                          dmlrt_lctx_.str());                               \
    }                                                                                       \
  } while (0)

#define DMLRT_CUBLAS_CHECK_CTX(call, ctx) \
  DMLRT_LIBRARY_CHECK_CTX_(cublasStatus_t, CUBLAS_STATUS_SUCCESS, "cuBLAS", call, ctx)
#define DMLRT_CUSPARSE_CHECK_CTX(call, ctx) \
  DMLRT_LIBRARY_CHECK_CTX_(cusparseStatus_t, CUSPARSE_STATUS_SUCCESS, "cuSPARSE", call, ctx)
#define DMLRT_CUSOLVER_CHECK_CTX(call, ctx) \
  DMLRT_LIBRARY_CHECK_CTX_(cusolverStatus_t, CUSOLVER_STATUS_SUCCESS, "cuSOLVER", call, ctx)
#define DMLRT_CUDNN_CHECK_CTX(call, ctx) \
  DMLRT_LIBRARY_CHECK_CTX_(cudnnStatus_t, CUDNN_STATUS_SUCCESS, "cuDNN", call, ctx)

#define DMLRT_CUBLAS_CHECK(call) DMLRT_CUBLAS_CHECK_CTX(call, "")
#define DMLRT_CUSPARSE_CHECK(call) DMLRT_CUSPARSE_CHECK_CTX(call, "")
#define DMLRT_CUSOLVER_CHECK(call) DMLRT_CUSOLVER_CHECK_CTX(call, "")
#define DMLRT_CUDNN_CHECK(call) DMLRT_CUDNN_CHECK_CTX(call, "")

#endif  // DMLRT_WITH_CUDA
