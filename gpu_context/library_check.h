// DMLRT_CHECK (gpu_context/cuda_check.h) for the CUDA libraries: the check_ok/throw_status
// overloads of cuBLAS, cuSPARSE, cuSOLVER and cuDNN status types, which throw the typed
// LibraryError<Status> of their library. Only files built with CUDA include this header.
#pragma once

#ifdef DMLRT_WITH_CUDA
#include <cublas_v2.h>
#include <cudnn.h>
#include <cufft.h>
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
using CufftError = LibraryError<cufftResult>;

namespace gpu::detail {

const char* status_name(cublasStatus_t st);
const char* status_name(cusparseStatus_t st);
const char* status_name(cusolverStatus_t st);
const char* status_name(cudnnStatus_t st);
const char* status_name(cufftResult st);

template <typename Status>
[[noreturn]] void throw_library(Status st, const char* library, const char* call, const char* file,
                                int line, const std::string& ctx) {
  std::ostringstream os;
  os << file << ":" << line << ": " << call << " failed: " << library << " "
     << status_name(st) << " (" << static_cast<int>(st) << ")";
  if (!ctx.empty()) os << " [" << ctx << "]";
  throw LibraryError<Status>(os.str(), st);
}

inline bool check_ok(cublasStatus_t st) { return st == CUBLAS_STATUS_SUCCESS; }
inline bool check_ok(cusparseStatus_t st) { return st == CUSPARSE_STATUS_SUCCESS; }
inline bool check_ok(cusolverStatus_t st) { return st == CUSOLVER_STATUS_SUCCESS; }
inline bool check_ok(cudnnStatus_t st) { return st == CUDNN_STATUS_SUCCESS; }
inline bool check_ok(cufftResult st) { return st == CUFFT_SUCCESS; }

[[noreturn]] inline void throw_status(cublasStatus_t st, const char* call, const char* file,
                                      int line, const std::string& ctx) {
  throw_library(st, "cuBLAS", call, file, line, ctx);
}
[[noreturn]] inline void throw_status(cusparseStatus_t st, const char* call, const char* file,
                                      int line, const std::string& ctx) {
  throw_library(st, "cuSPARSE", call, file, line, ctx);
}
[[noreturn]] inline void throw_status(cusolverStatus_t st, const char* call, const char* file,
                                      int line, const std::string& ctx) {
  throw_library(st, "cuSOLVER", call, file, line, ctx);
}
[[noreturn]] inline void throw_status(cudnnStatus_t st, const char* call, const char* file,
                                      int line, const std::string& ctx) {
  throw_library(st, "cuDNN", call, file, line, ctx);
}
[[noreturn]] inline void throw_status(cufftResult st, const char* call, const char* file, int line,
                                      const std::string& ctx) {
  throw_library(st, "cuFFT", call, file, line, ctx);
}

}  // namespace gpu::detail
}  // namespace dmlrt

#endif  // DMLRT_WITH_CUDA
