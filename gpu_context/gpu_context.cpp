// GpuContext: stream and library handles of one device; see gpu_context.h. Also the status-name
// helpers of library_check.h.
#ifdef DMLRT_WITH_CUDA
#include "gpu_context/gpu_context.h"

#include <chrono>
#include <sstream>

#include "gpu_context/host_sync_hook.h"
#include "gpu_context/library_check.h"
#include "gpu_context/log.h"

namespace dmlrt::gpu {

namespace detail {

const char* status_name(cublasStatus_t st) { return cublasGetStatusName(st); }
const char* status_name(cusparseStatus_t st) { return cusparseGetErrorName(st); }
const char* status_name(cudnnStatus_t st) { return cudnnGetErrorString(st); }
const char* status_name(cufftResult st) {
  switch (st) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    default: return "CUFFT_(other)";
  }
}

const char* status_name(cusolverStatus_t st) {
  switch (st) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "CUSOLVER_STATUS_(other)";
  }
}

}  // namespace detail

UniqueEvent make_timing_event() {
  return UniqueEvent::create(
      [](auto* e) { DMLRT_CHECK(cudaEventCreateWithFlags(e, cudaEventDefault)); });
}

UniqueStream make_stream() {
  return UniqueStream::create(
      [](auto* s) { DMLRT_CHECK(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking)); });
}

UniqueCublas make_cublas(cudaStream_t stream) {
  auto h = UniqueCublas::create([](auto* p) { DMLRT_CHECK(cublasCreate(p)); });
  DMLRT_CHECK(cublasSetStream(h.get(), stream));
  return h;
}

UniqueCusparse make_cusparse(cudaStream_t stream) {
  auto h = UniqueCusparse::create([](auto* p) { DMLRT_CHECK(cusparseCreate(p)); });
  DMLRT_CHECK(cusparseSetStream(h.get(), stream));
  return h;
}

UniqueCusolver make_cusolver(cudaStream_t stream) {
  auto h = UniqueCusolver::create([](auto* p) { DMLRT_CHECK(cusolverDnCreate(p)); });
  DMLRT_CHECK(cusolverDnSetStream(h.get(), stream));
  return h;
}

UniqueCudnn make_cudnn(cudaStream_t stream) {
  auto h = UniqueCudnn::create([](auto* p) { DMLRT_CHECK(cudnnCreate(p)); });
  DMLRT_CHECK(cudnnSetStream(h.get(), stream));
  return h;
}

GpuContext::GpuContext(int device) : device_(device) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  DMLRT_CHECK_CTX(cudaSetDevice(device), "device " << device);
  DMLRT_CHECK_CTX(cudaGetDeviceProperties(&props_, device), "device " << device);
  stream_ = make_stream();
  const auto t1 = Clock::now();

  cublas_ = make_cublas(stream());
  cusparse_ = make_cusparse(stream());
  const auto t2 = Clock::now();
  cuda_init_seconds_ = std::chrono::duration<double>(t1 - t0).count();
  libraries_init_seconds_ = std::chrono::duration<double>(t2 - t1).count();
  DMLRT_INFO("GPU " << device << ": " << summary());
}

GpuContext::~GpuContext() {
  // Pending work must finish before the handles and the stream go; errors cannot be reported here.
  if (stream_) cudaStreamSynchronize(stream_.get());
}

cusolverDnHandle_t GpuContext::cusolver() {
  if (!cusolver_) {
    const auto t0 = std::chrono::steady_clock::now();
    cusolver_ = make_cusolver(stream());
    libraries_init_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return cusolver_.get();
}

cudnnHandle_t GpuContext::cudnn() {
  if (!cudnn_) {
    const auto t0 = std::chrono::steady_clock::now();
    cudnn_ = make_cudnn(stream());
    libraries_init_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return cudnn_.get();
}

std::string GpuContext::summary() const {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::ostringstream os;
  os << props_.name << ", compute capability " << props_.major << "." << props_.minor << ", "
     << (props_.totalGlobalMem >> 20) << " MiB, driver " << driver << ", runtime " << runtime
     << ", cuDNN " << cudnnGetVersion() << " (built against " << CUDNN_VERSION << ")";
  return os.str();
}

void GpuContext::synchronize(const char* what) {
  before_host_sync(what);
  DMLRT_CHECK_CTX(cudaStreamSynchronize(stream()), what);
}

}  // namespace dmlrt::gpu
#endif  // DMLRT_WITH_CUDA
