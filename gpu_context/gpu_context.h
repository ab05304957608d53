// GpuContext: one CUDA device as dmlrt uses it — its non-default stream and the library handles
// bound to that stream. cuBLAS and cuSPARSE are created eagerly (nearly every GPU op needs them);
// cuSOLVER and cuDNN lazily (only solve and the DNN ops do), since cuDNN alone costs ~100 ms to load.
// CUDA builds only; the memory manager and device matrices live one layer up (memory/).
#pragma once

#ifdef DMLRT_WITH_CUDA
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <cusolverDn.h>
#include <cusparse.h>

#include <string>

#include "gpu_context/handles.h"

namespace dmlrt::gpu {

namespace detail {
struct StreamDestroy {
  void operator()(cudaStream_t s) const { cudaStreamDestroy(s); }
};
struct EventDestroy {
  void operator()(cudaEvent_t e) const { cudaEventDestroy(e); }
};
struct CublasDestroy {
  void operator()(cublasHandle_t h) const { cublasDestroy(h); }
};
struct CusparseDestroy {
  void operator()(cusparseHandle_t h) const { cusparseDestroy(h); }
};
struct CusolverDestroy {
  void operator()(cusolverDnHandle_t h) const { cusolverDnDestroy(h); }
};
struct CudnnDestroy {
  void operator()(cudnnHandle_t h) const { cudnnDestroy(h); }
};
}  // namespace detail

using UniqueStream = UniqueHandle<cudaStream_t, detail::StreamDestroy>;
using UniqueEvent = UniqueHandle<cudaEvent_t, detail::EventDestroy>;
using UniqueCublas = UniqueHandle<cublasHandle_t, detail::CublasDestroy>;
using UniqueCusparse = UniqueHandle<cusparseHandle_t, detail::CusparseDestroy>;
using UniqueCusolver = UniqueHandle<cusolverDnHandle_t, detail::CusolverDestroy>;
using UniqueCudnn = UniqueHandle<cudnnHandle_t, detail::CudnnDestroy>;

// Creates a timing event (cudaEventDefault: timing enabled).
UniqueEvent make_timing_event();
// A stream that never serialises with the legacy default stream (cudaStreamNonBlocking).
UniqueStream make_stream();
// Library handles, each bound to `stream` before it is returned.
UniqueCublas make_cublas(cudaStream_t stream);
UniqueCusparse make_cusparse(cudaStream_t stream);
UniqueCusolver make_cusolver(cudaStream_t stream);
UniqueCudnn make_cudnn(cudaStream_t stream);

class GpuContext {
 public:
  // Selects `device` for this thread, creates the stream (cudaStreamNonBlocking: it never
  // serialises with the legacy default stream) and the eager handles, and logs the start-up line.
  // Throws CudaError / CublasError / CusparseError.
  explicit GpuContext(int device);
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;
  ~GpuContext();

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_.get(); }
  cublasHandle_t cublas() const { return cublas_.get(); }
  cusparseHandle_t cusparse() const { return cusparse_.get(); }
  cusolverDnHandle_t cusolver();  // created on first use, bound to stream()
  cudnnHandle_t cudnn();          // created on first use, bound to stream()
  const cudaDeviceProp& properties() const { return props_; }

  // "NVIDIA H200, compute capability 9.0, driver 13000, runtime 13000, cuDNN 91900 (built
  // against 91900)".
  std::string summary() const;
  // Seconds spent creating the context (CUDA init) and the library handles, for -stats.
  double cuda_init_seconds() const { return cuda_init_seconds_; }
  double libraries_init_seconds() const { return libraries_init_seconds_; }

  // Waits for all work on stream(); throws CudaError naming `what` when an earlier launch failed.
  void synchronize(const char* what = "stream synchronize");

 private:
  int device_;
  cudaDeviceProp props_{};
  UniqueStream stream_;
  UniqueCublas cublas_;
  UniqueCusparse cusparse_;
  UniqueCusolver cusolver_;
  UniqueCudnn cudnn_;
  double cuda_init_seconds_ = 0.0;
  double libraries_init_seconds_ = 0.0;
};

}  // namespace dmlrt::gpu
#endif  // DMLRT_WITH_CUDA
