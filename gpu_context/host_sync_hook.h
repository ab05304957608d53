// The point before the host waits for the device or moves data between them, for CUDA graph
// capture (Note [CUDA graphs] in runtime/cuda_graphs.cpp): while the interpreter captures or
// replays a run of GPU instructions on this thread, work queued on the stream has not run yet, so
// such a point first ends the capture (or launches the replayed prefix). Header-only and
// host-clean: kernels/, memory/ and instructions/ call before_host_sync without a link dependency.
#pragma once

namespace dmlrt::gpu {

class HostSyncHook {
 public:
  virtual ~HostSyncHook() = default;
  // `what` names the operation ("copy to the host", "cudaFree", "cuDNN algorithm timing").
  virtual void host_sync(const char* what) = 0;
};

// Installed by the graph runner of this thread; null otherwise (the common case: one load).
inline thread_local HostSyncHook* t_host_sync_hook = nullptr;

inline void before_host_sync(const char* what) {
  if (t_host_sync_hook != nullptr) t_host_sync_hook->host_sync(what);
}

}  // namespace dmlrt::gpu
