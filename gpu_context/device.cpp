// Device discovery; see device.h. The CUDA runtime is linked statically, so a missing driver shows
// up as an error code from cudaGetDeviceCount, never as a load failure.
#include "gpu_context/device.h"

#include <sstream>

#ifdef DMLRT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace dmlrt::gpu {

bool built_with_cuda() {
#ifdef DMLRT_WITH_CUDA
  return true;
#else
  return false;
#endif
}

int usable_device_count() {
#ifdef DMLRT_WITH_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" state
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

std::string device_summary() {
#ifdef DMLRT_WITH_CUDA
  int n = 0;
  cudaError_t st = cudaGetDeviceCount(&n);
  if (st != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device (") + cudaGetErrorString(st) + ")";
  }
  if (n == 0) return "no CUDA device found";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "CUDA device 0 cannot be queried";
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::ostringstream os;
  os << n << " CUDA device(s); device 0: " << prop.name << ", compute capability " << prop.major
     << "." << prop.minor << ", driver " << driver << ", runtime " << runtime;
  return os.str();
#else
  return "CPU-only build (DMLRT_WITH_CUDA=OFF)";
#endif
}

}  // namespace dmlrt::gpu
